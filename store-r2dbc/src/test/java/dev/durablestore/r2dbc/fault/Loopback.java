package dev.durablestore.r2dbc.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** The fault tests only ever listen and connect on the loopback address. */
final class Loopback {

    static final InetAddress ADDRESS = InetAddress.getLoopbackAddress();

    private Loopback() {}

    /** @return a port nothing listens on right now */
    static int freePort() {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(ADDRESS, 0));
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

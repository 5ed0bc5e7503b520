package dev.durablestore.r2dbc.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on the loopback address between the store and its server, which a test cuts (the
 * network is gone) and restores. {@link #cut()} closes every relayed connection at both ends and
 * stops listening, so the client sees its connections drop and new connections refused, as when a
 * link or a middlebox between the nodes goes away; the server sees its clients vanish and rolls back
 * their open transactions. {@link #restore()} listens again on the same port.
 *
 * <p>{@link #stall()} is the silent kind of outage: nothing is closed, but no byte is relayed and no
 * new connection reaches the server (the kernel still completes the client's handshake) until
 * {@link #resume()}, when everything held is delivered, as when a link drops packets for a while
 * and TCP retransmits once it is back. {@link #silenceExisting()} is the server's machine vanishing
 * silently behind an address that moves (a cloud failover): every connection relayed so far stays
 * open and silent forever, while new ones are relayed as usual. Blocking sockets on daemon threads:
 * test code, two threads per relayed connection.
 */
final class TcpProxy implements AutoCloseable {

    private final int port;
    private int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** The sockets of the connections {@link #silenceExisting()} silenced: open, relaying nothing. */
    private final Set<Socket> silenced = ConcurrentHashMap.newKeySet();

    private final Object gate = new Object();
    private boolean stalled;
    private ServerSocket listener;

    /**
     * @param targetPort the server's loopback port
     */
    TcpProxy(int targetPort) {
        this.port = Loopback.freePort();
        this.targetPort = targetPort;
        restore();
    }

    /** @return the port clients connect to */
    int port() {
        return port;
    }

    /** Listens (again) on {@link #port()}. */
    synchronized void restore() {
        if (listener != null) {
            throw new IllegalStateException("not cut");
        }
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(Loopback.ADDRESS, port));
            listener = s;
            daemon("proxy-accept-" + port, () -> accept(s));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + port, e);
        }
    }

    /**
     * Drops every relayed connection and relays new ones to another server from now on, as when a
     * name or a virtual address moves to another machine. Keeps listening.
     *
     * @param port the new server's loopback port
     */
    synchronized void moveTo(int port) {
        targetPort = port;
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    /** Drops every relayed connection and stops listening. */
    synchronized void cut() {
        ServerSocket s = listener;
        listener = null;
        closeQuietly(s);
        for (Socket socket : open) {
            closeQuietly(socket);
        }
        open.clear();
    }

    /**
     * Silences every connection relayed so far for good: its sockets stay open, nothing is relayed
     * either way and nothing is closed, so neither the client nor the server notices; connections
     * accepted from now on are relayed as usual. Until {@link #close()}.
     */
    synchronized void silenceExisting() {
        silenced.addAll(open);
        open.clear();
    }

    /** Holds every byte and every new connection until {@link #resume()}. */
    void stall() {
        synchronized (gate) {
            stalled = true;
        }
    }

    /** Relays again what {@link #stall()} held. */
    void resume() {
        synchronized (gate) {
            stalled = false;
            gate.notifyAll();
        }
    }

    private void passGate() {
        synchronized (gate) {
            while (stalled) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    @Override
    public synchronized void close() {
        resume();
        if (listener != null) {
            cut();
        }
        for (Socket socket : silenced) {
            closeQuietly(socket);
        }
        silenced.clear();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            Socket client;
            try {
                client = s.accept();
            } catch (IOException e) {
                return; // cut
            }
            passGate();
            if (!relay(s, client)) {
                return;
            }
        }
    }

    /**
     * Connects an accepted client to the target, under this relay's lock so that {@link #cut()} and
     * {@link #moveTo(int)} see every relayed connection.
     *
     * @return false when the relay was cut meanwhile
     */
    private synchronized boolean relay(ServerSocket s, Socket client) {
        if (s.isClosed()) { // cut while the client waited
            closeQuietly(client);
            return false;
        }
        try {
            Socket server = new Socket(Loopback.ADDRESS, targetPort);
            client.setTcpNoDelay(true);
            server.setTcpNoDelay(true);
            open.add(client);
            open.add(server);
            daemon("proxy-up-" + port, () -> pump(client, server));
            daemon("proxy-down-" + port, () -> pump(server, client));
        } catch (IOException e) {
            closeQuietly(client);
        }
        return true;
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                passGate();
                if (silenced.contains(from)) {
                    continue; // read and dropped: the other end never hears of it, nor of a close
                }
                out.write(buffer, 0, n);
            }
        } catch (IOException e) {
            // the connection is gone: close both ends below
        } finally {
            if (!silenced.contains(from)) {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // already closed
            }
        }
    }
}

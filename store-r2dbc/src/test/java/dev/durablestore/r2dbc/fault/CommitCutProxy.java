package dev.durablestore.r2dbc.fault;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A loopback relay between the store and PostgreSQL that reads the wire protocol and, once armed,
 * drops the connection that is committing a write: either just before the commit reaches the server
 * ({@link Cut#BEFORE_COMMIT}: the server never commits, it rolls the transaction back when the
 * connection goes) or just after ({@link Cut#AFTER_COMMIT}: the relay waits until the server has
 * answered the commit, so the commit is done, then drops the connection without passing the answer
 * on). Either way the client sees its connection close in the middle of its commit and cannot tell
 * which of the two happened.
 *
 * <p>The commit point of a connection is where its unit of work becomes durable: the simple query
 * {@code COMMIT} (or {@code END}) of an explicit transaction ({@code BEGIN} … {@code COMMIT}, as
 * {@code Connection.commitTransaction()} sends it), or, outside a transaction, the {@code Sync} that
 * ends an extended-protocol statement (its implicit transaction commits there) or a simple query
 * itself. A unit is a write when one of its statements inserts, updates or deletes; the armed cut
 * takes the first write unit, on any connection, whose statements match the test's predicate, and
 * then disarms. Statements prepared once and bound again later (the driver's statement cache) are
 * recognised by their prepared name.
 *
 * <p>Plain startup only (no SSL: the tests' server has none); a protocol the relay does not read is
 * recorded in {@link #errors()}. Blocking sockets on daemon threads: test code, two threads per
 * relayed connection.
 */
final class CommitCutProxy implements AutoCloseable {

    /** Where the armed cut drops the connection. */
    enum Cut {
        /** The commit is not sent: the server rolls the unit back. */
        BEFORE_COMMIT,
        /** The commit is sent and done on the server; its answer never reaches the client. */
        AFTER_COMMIT
    }

    /** The statements that make a unit of work a write. */
    static final Predicate<String> WRITES =
            Pattern.compile("(?i)\\b(insert\\s+into|update\\s|delete\\s+from)").asPredicate();

    private static final int STARTUP_V3 = 196_608;
    private static final int CANCEL_REQUEST = 80_877_102;

    private final int port;
    private final int targetPort;
    private final ServerSocket listener;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final List<String> cuts = new CopyOnWriteArrayList<>();
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final Object armLock = new Object();
    private Cut armed;
    private Predicate<String> target;

    /**
     * @param targetPort the server's loopback port
     */
    CommitCutProxy(int targetPort) {
        this.port = Loopback.freePort();
        this.targetPort = targetPort;
        try {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            s.bind(new InetSocketAddress(Loopback.ADDRESS, port));
            listener = s;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + port, e);
        }
        daemon("cut-proxy-accept-" + port, this::accept);
    }

    /** @return the port clients connect to */
    int port() {
        return port;
    }

    /**
     * Arms one cut: the next write unit with a statement matching {@code statement} loses its
     * commit as {@code cut} says; later units pass.
     *
     * @param cut before or after the commit
     * @param statement which statements' unit to cut ({@link #WRITES} for the first write)
     */
    void arm(Cut cut, Predicate<String> statement) {
        synchronized (armLock) {
            if (armed != null) {
                throw new IllegalStateException("already armed: " + armed);
            }
            armed = cut;
            target = statement;
        }
    }

    /** @return true while a cut is armed and has not happened */
    boolean isArmed() {
        synchronized (armLock) {
            return armed != null;
        }
    }

    /** @return each cut so far: where, and the statements of the unit it cut */
    List<String> cuts() {
        return List.copyOf(cuts);
    }

    /** @return failures of the relay itself (a protocol it does not read); none in a good run */
    List<Throwable> errors() {
        return List.copyOf(errors);
    }

    /** Stops listening and drops every relayed connection. */
    @Override
    public void close() {
        closeQuietly(listener);
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    /** @return the armed cut when this unit is its target (disarming it), else {@code null} */
    private Cut take(List<String> unit) {
        synchronized (armLock) {
            if (armed == null
                    || !unit.stream().anyMatch(WRITES)
                    || !unit.stream().anyMatch(target)) {
                return null;
            }
            Cut cut = armed;
            armed = null;
            target = null;
            return cut;
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(Loopback.ADDRESS, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                open.add(client);
                open.add(server);
                Relayed relayed = new Relayed(client, server);
                daemon("cut-proxy-up-" + port, relayed::up);
                daemon("cut-proxy-down-" + port, relayed::down);
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** One relayed connection: the client's messages go up, the server's come down. */
    private final class Relayed {
        private final Socket client;
        private final Socket server;
        /** Prepared statement name to its SQL, as the client's {@code Parse} messages named them. */
        private final Map<String, String> prepared = new HashMap<>();
        /** The statements of the unit of work in progress. */
        private final List<String> unit = new ArrayList<>();

        private boolean inTransaction;
        /** Set once the commit went up: nothing more comes down, the answer is dropped. */
        private volatile boolean holding;

        private volatile String cutUnit;

        Relayed(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void up() {
            try {
                DataInputStream in = new DataInputStream(client.getInputStream());
                OutputStream out = new BufferedOutputStream(server.getOutputStream());
                if (!startup(in, out)) {
                    return;
                }
                while (true) {
                    Message m = Message.read(in);
                    Cut cut = commitPoint(m);
                    if (cut == Cut.BEFORE_COMMIT) {
                        out.flush();
                        cuts.add("before the commit of " + cutUnit);
                        drop();
                        return;
                    }
                    if (cut == Cut.AFTER_COMMIT) {
                        holding = true; // before the commit goes up, so its answer cannot come down
                    }
                    m.write(out);
                    if (in.available() == 0) {
                        out.flush();
                    }
                }
            } catch (IOException e) {
                drop(); // one side closed
            } catch (RuntimeException e) {
                errors.add(e);
                drop();
            }
        }

        /** Relays the startup message; false for a connection that is not a plain session. */
        private boolean startup(DataInputStream in, OutputStream out) throws IOException {
            int length = in.readInt();
            byte[] body = new byte[length - 4];
            in.readFully(body);
            int code = ((body[0] & 0xff) << 24) | ((body[1] & 0xff) << 16) | ((body[2] & 0xff) << 8) | (body[3] & 0xff);
            if (code != STARTUP_V3 && code != CANCEL_REQUEST) {
                throw new IllegalStateException("the relay reads plain sessions only, got request code " + code);
            }
            out.write(
                    new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length});
            out.write(body);
            out.flush();
            return code == STARTUP_V3;
        }

        /** Follows the units of work; @return the cut to make at this message, or {@code null} */
        private Cut commitPoint(Message m) {
            switch (m.type()) {
                case 'P' -> { // Parse: statement name, query
                    String[] texts = m.texts(2);
                    prepared.put(texts[0], texts[1]);
                    return null;
                }
                case 'B' -> { // Bind: portal, statement name
                    String sql = prepared.get(m.texts(2)[1]);
                    if (sql == null) {
                        throw new IllegalStateException("a Bind of a statement the relay did not see prepared");
                    }
                    unit.add(sql);
                    return null;
                }
                case 'S' -> { // Sync: commits the implicit transaction of the statements before it
                    return inTransaction ? null : endUnit();
                }
                case 'Q' -> {
                    String sql = m.texts(1)[0];
                    String word = sql.strip().toUpperCase(Locale.ROOT);
                    if (word.startsWith("BEGIN") || word.startsWith("START TRANSACTION")) {
                        inTransaction = true;
                        unit.clear();
                        return null;
                    }
                    if (word.startsWith("COMMIT") || word.startsWith("END")) {
                        inTransaction = false;
                        return endUnit();
                    }
                    if (word.startsWith("ROLLBACK")) {
                        inTransaction = false;
                        unit.clear();
                        return null;
                    }
                    unit.add(sql);
                    return inTransaction ? null : endUnit();
                }
                default -> {
                    return null;
                }
            }
        }

        private Cut endUnit() {
            if (unit.isEmpty()) {
                return null;
            }
            Cut cut = take(unit);
            if (cut != null) {
                cutUnit = String.join("; ", unit);
            }
            unit.clear();
            return cut;
        }

        void down() {
            try {
                DataInputStream in = new DataInputStream(server.getInputStream());
                OutputStream out = new BufferedOutputStream(client.getOutputStream());
                while (true) {
                    Message m = Message.read(in);
                    if (holding) {
                        if (m.type() == 'Z') { // ReadyForQuery: the server has finished the commit
                            cuts.add("after the commit of " + cutUnit);
                            drop();
                            return;
                        }
                        continue; // the commit's answer is lost
                    }
                    m.write(out);
                    if (in.available() == 0) {
                        out.flush();
                    }
                }
            } catch (IOException e) {
                drop();
            } catch (RuntimeException e) {
                errors.add(e);
                drop();
            }
        }

        private void drop() {
            closeQuietly(client);
            closeQuietly(server);
            open.remove(client);
            open.remove(server);
        }
    }

    /** One typed message of the protocol after startup: its type byte and body. */
    private record Message(char type, byte[] body) {

        static Message read(DataInputStream in) throws IOException {
            int type = in.read();
            if (type < 0) {
                throw new EOFException();
            }
            int length = in.readInt();
            byte[] body = new byte[length - 4];
            in.readFully(body);
            return new Message((char) type, body);
        }

        void write(OutputStream out) throws IOException {
            int length = body.length + 4;
            out.write(new byte[] {
                (byte) type, (byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length
            });
            out.write(body);
        }

        /** @return the first {@code n} NUL-terminated texts of the body */
        String[] texts(int n) {
            String[] texts = new String[n];
            int from = 0;
            for (int i = 0; i < n; i++) {
                int end = from;
                while (body[end] != 0) {
                    end++;
                }
                texts[i] = new String(body, from, end - from, StandardCharsets.UTF_8);
                from = end + 1;
            }
            return texts;
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

package dev.durablestore.bench.pg;

import com.zaxxer.hikari.HikariDataSource;
import dev.durablestore.r2dbc.internal.StoreStatements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * pgjdbc over HikariCP on a small bounded scheduler of its own, the way the SQLite backend runs
 * sqlite-jdbc: each statement a blocking call on one of {@code threads} threads (as many
 * connections), its outcome a {@link Mono} that completes there; the driver's defaults (a statement
 * becomes a server-side prepared statement on its fifth use, cached per connection).
 *
 * <p>pgjdbc has no {@code $n} markers: each statement's text is sent with a {@code ?} in place of
 * every marker, in order, and a marker used twice is bound twice (translated once per text).
 */
final class JdbcPgClient implements PgClient {

    private static final Pattern MARKER = Pattern.compile("\\$(\\d+)");

    /** A statement's JDBC text and, per {@code ?}, the index of its value. */
    record Translated(String sql, int[] values) {}

    private final Map<String, Translated> translated = new ConcurrentHashMap<>();
    private final HikariDataSource pool;
    private final ExecutorService threads;
    private final Scheduler scheduler;
    private final String label;

    private JdbcPgClient(HikariDataSource pool, ExecutorService threads, String label) {
        this.pool = pool;
        this.threads = threads;
        this.scheduler = Schedulers.fromExecutorService(threads, "pgjdbc");
        this.label = label;
    }

    /**
     * @param server the server
     * @param schema the schema
     * @param size threads and connections
     * @return the client, its connections open
     */
    static JdbcPgClient open(PgServer server, String schema, int size) {
        AtomicInteger n = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(size, r -> {
            Thread t = new Thread(r, "pgjdbc-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        return new JdbcPgClient(
                JdbcPool.open(server, schema, size),
                threads,
                "pgjdbc 42.7 over HikariCP, " + size + " connections on a scheduler of " + size + " threads");
    }

    @Override
    public StoreStatements.ArrayForm arrayForm() {
        return StoreStatements.ArrayForm.LITERAL;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public Mono<List<ClaimedRow>> claim(StoreStatements.Bound claim) {
        return Mono.fromCallable(() -> {
                    try (Connection c = pool.getConnection();
                            PreparedStatement s = prepare(c, claim);
                            ResultSet rs = s.executeQuery()) {
                        List<ClaimedRow> claimed = new ArrayList<>();
                        while (rs.next()) {
                            Long nextDue = rs.getObject(StoreStatements.CLAIMED_COLUMN_COUNT + 1, Long.class);
                            String key = rs.getString(1);
                            if (key == null) {
                                continue;
                            }
                            claimed.add(new ClaimedRow(
                                    key,
                                    rs.getString(2),
                                    rs.getObject(3, Long.class),
                                    rs.getString(4),
                                    rs.getString(5),
                                    rs.getString(6),
                                    rs.getString(7),
                                    rs.getString(8),
                                    rs.getString(9),
                                    rs.getObject(10, Long.class),
                                    rs.getObject(11, Long.class),
                                    rs.getString(12),
                                    rs.getObject(13, Integer.class),
                                    rs.getString(14),
                                    nextDue));
                        }
                        return claimed;
                    }
                })
                .subscribeOn(scheduler);
    }

    @Override
    public Mono<List<String>> keys(StoreStatements.Bound statement) {
        return Mono.fromCallable(() -> {
                    try (Connection c = pool.getConnection();
                            PreparedStatement s = prepare(c, statement);
                            ResultSet rs = s.executeQuery()) {
                        List<String> keys = new ArrayList<>();
                        while (rs.next()) {
                            keys.add(rs.getString(1));
                        }
                        return keys;
                    }
                })
                .subscribeOn(scheduler);
    }

    @Override
    public Mono<Long> update(StoreStatements.Bound update) {
        return Mono.fromCallable(() -> {
                    try (Connection c = pool.getConnection();
                            PreparedStatement s = prepare(c, update)) {
                        return s.executeLargeUpdate();
                    }
                })
                .subscribeOn(scheduler);
    }

    private PreparedStatement prepare(Connection c, StoreStatements.Bound bound) throws SQLException {
        Translated t = translated.computeIfAbsent(bound.sql(), JdbcPgClient::translate);
        PreparedStatement s = c.prepareStatement(t.sql());
        Object[] values = bound.values();
        for (int i = 0; i < t.values().length; i++) {
            Object v = values[t.values()[i]];
            if (v instanceof StoreStatements.Null n) {
                s.setNull(i + 1, n.type() == Long.class ? Types.BIGINT : Types.VARCHAR);
            } else if (v instanceof Long l) {
                s.setLong(i + 1, l);
            } else if (v instanceof Integer x) {
                s.setInt(i + 1, x);
            } else if (v instanceof String text) {
                s.setString(i + 1, text);
            } else if (v instanceof String[] texts) {
                s.setArray(i + 1, c.createArrayOf("text", texts));
            } else if (v instanceof Long[] longs) {
                s.setArray(i + 1, c.createArrayOf("bigint", longs));
            } else if (v instanceof Integer[] ints) {
                s.setArray(i + 1, c.createArrayOf("int4", ints));
            } else {
                throw new IllegalArgumentException("value $" + (t.values()[i] + 1) + " of unexpected type "
                        + v.getClass().getName() + " in " + bound.sql());
            }
        }
        return s;
    }

    static Translated translate(String sql) {
        Matcher m = MARKER.matcher(sql);
        StringBuilder text = new StringBuilder();
        List<Integer> order = new ArrayList<>();
        while (m.find()) {
            order.add(Integer.parseInt(m.group(1)) - 1);
            m.appendReplacement(text, "?");
        }
        m.appendTail(text);
        return new Translated(
                text.toString(), order.stream().mapToInt(Integer::intValue).toArray());
    }

    @Override
    public void close() {
        scheduler.dispose();
        threads.shutdownNow();
        pool.close();
    }
}

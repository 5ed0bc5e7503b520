package dev.durablestore.sqlite.internal;

import dev.durablestore.sqlite.SqliteReactiveStore;
import java.lang.reflect.Field;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Runs a one-row query (a pragma) as a write command on a store's writer thread, on its write
 * connection, for tests that need a per-connection pragma the store offers no hook for. The writer
 * is reached by reflection; going through {@link Writer#submit} keeps the connection confined to
 * its thread.
 */
public final class OnWriter {

    private OnWriter() {}

    /**
     * @param store an open store
     * @param sql a statement that answers one number, e.g. {@code PRAGMA page_count}
     * @param timeout how long to wait for the writer
     * @return the number, 0 when the statement answered none
     */
    public static long queryLong(SqliteReactiveStore store, String sql, Duration timeout) {
        Writer writer = (Writer) field(field(store, SqliteReactiveStore.class, "backend"), Backend.class, "writer");
        Long value = writer.submit(new WriteCommand<Long>() {
                    @Override
                    public Long execute(DbConnection c) throws SQLException {
                        return c.queryLong(sql);
                    }

                    @Override
                    public String name() {
                        return "test:" + sql;
                    }
                })
                .block(timeout);
        return value == null ? 0 : value;
    }

    private static Object field(Object owner, Class<?> type, String name) {
        try {
            Field f = type.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(owner);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(type.getSimpleName() + "." + name + " moved; update this test helper", e);
        }
    }
}

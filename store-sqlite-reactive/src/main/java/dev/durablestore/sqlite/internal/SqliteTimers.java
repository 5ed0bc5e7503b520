package dev.durablestore.sqlite.internal;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.StoredTimer;
import dev.durablestore.core.storage.TimerStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Timers of the SQLite store (contract group T), keyed by canonical id text (S27). */
final class SqliteTimers implements TimerStorage {

    /** T1: create or replace a timer. */
    static final String UPSERT = "INSERT INTO timers (workflow_id, timer_id, fire_at) VALUES (?, ?, ?) "
            + "ON CONFLICT (workflow_id, timer_id) DO UPDATE SET fire_at = excluded.fire_at";
    /** W9: a step cancelling a timer. */
    static final String DELETE = "DELETE FROM timers WHERE workflow_id = ? AND timer_id = ?";

    private static final String EXPIRED = "SELECT workflow_id, timer_id, fire_at FROM timers WHERE fire_at <= ? "
            + "ORDER BY fire_at, workflow_id, timer_id";

    private final Writer writer;
    private final ReaderPool readers;

    /**
     * @param writer the single writer
     * @param readers the reader pool
     */
    SqliteTimers(Writer writer, ReaderPool readers) {
        this.writer = writer;
        this.readers = readers;
    }

    /** T1, T2. @param w workflow @param timerId timer @param fireAtNanos due time @return completion */
    @Override
    public Mono<Void> scheduleTimer(WorkflowId w, String timerId, long fireAtNanos) {
        return writer.submit(Commands.of("scheduleTimer", false, c -> {
            PreparedStatement ps = c.prepare(UPSERT);
            ps.setString(1, w.toString());
            ps.setString(2, timerId);
            ps.setLong(3, fireAtNanos);
            ps.executeUpdate();
            return null;
        }));
    }

    /** T3: timers due by the bound; the store orders them (T4, T5). @param asOfNanos bound @return due timers */
    @Override
    public Flux<StoredTimer> expiredTimers(long asOfNanos) {
        return readers.read("expiredTimers", c -> {
                    PreparedStatement ps = c.prepare(EXPIRED);
                    ps.setLong(1, asOfNanos);
                    List<StoredTimer> due = new ArrayList<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            due.add(new StoredTimer(
                                    rs.getString(1), rs.getString(2), Times.readRequiredNanos(rs, 3, "fire_at")));
                        }
                    }
                    return due;
                })
                .flatMapMany(Flux::fromIterable);
    }
}

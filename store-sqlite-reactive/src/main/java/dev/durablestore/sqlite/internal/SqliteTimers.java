package dev.durablestore.sqlite.internal;

import static dev.durablestore.api.InvalidArgumentException.requireNonNull;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.StoredText;
import dev.durablestore.core.storage.TimerStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Timers of the SQLite store (contract group T), keyed by canonical id text (S27). */
public final class SqliteTimers implements TimerStorage {

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
    public SqliteTimers(Writer writer, ReaderPool readers) {
        this.writer = writer;
        this.readers = readers;
    }

    /** T1, T2. @param w workflow @param t timer @param fireAt due time @return completion */
    @Override
    public Mono<Void> scheduleTimer(WorkflowId w, TimerId t, Instant fireAt) {
        return Mono.defer(() -> {
            requireNonNull(w, "workflowId");
            String timer = StoredText.timerIdText(t, "timerId");
            long at = Times.toNanos(fireAt, "fireAt");
            return writer.submit(Commands.of("scheduleTimer", false, c -> {
                PreparedStatement ps = c.prepare(UPSERT);
                ps.setString(1, w.toString());
                ps.setString(2, timer);
                ps.setLong(3, at);
                ps.executeUpdate();
                return null;
            }));
        });
    }

    /** T3–T5. @param asOf bound @return due timers */
    @Override
    public Flux<TimerEntry> expiredTimers(Instant asOf) {
        return Mono.defer(() -> {
                    long bound = Times.toNanos(asOf, "asOf");
                    return readers.read("expiredTimers", c -> {
                        PreparedStatement ps = c.prepare(EXPIRED);
                        ps.setLong(1, bound);
                        List<TimerEntry> due = new ArrayList<>();
                        try (ResultSet rs = ps.executeQuery()) {
                            while (rs.next()) {
                                String w = rs.getString(1);
                                String t = rs.getString(2);
                                TimerId id;
                                try {
                                    id = TimerId.parse(t);
                                } catch (RuntimeException e) {
                                    throw new SerializationException(
                                            "stored timer id '" + t + "' of workflow " + w + " is not canonical", e);
                                }
                                due.add(new TimerEntry(
                                        EventRows.workflowId(w), id, Times.readInstant(rs, 3, "fire_at")));
                            }
                        }
                        return due;
                    });
                })
                .flatMapMany(Flux::fromIterable);
    }
}

package dev.durablestore.r2dbc.internal;

import static dev.durablestore.api.InvalidArgumentException.requireNonNull;

import dev.durablestore.api.SerializationException;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.internal.StoredText;
import dev.durablestore.core.storage.TimerStorage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Timers over R2DBC (contract group T), keyed by canonical id text (S27). */
final class R2dbcTimers implements TimerStorage {

    /** W9: a step cancelling a timer. */
    static final String DELETE = "DELETE FROM timers WHERE workflow_id = $1 AND timer_id = $2";

    private static final String EXPIRED = "SELECT workflow_id, timer_id, fire_at FROM timers WHERE fire_at <= $1 "
            + "ORDER BY fire_at, workflow_id, timer_id";

    private static final Comparator<TimerEntry> ORDER = Comparator.comparing(TimerEntry::fireAt)
            .thenComparing(e -> e.workflowId().toString(), Times.CODE_POINT_ORDER)
            .thenComparing(e -> e.timerId().canonicalText(), Times.CODE_POINT_ORDER);

    private final Db db;

    R2dbcTimers(Db db) {
        this.db = db;
    }

    /** T1, T2: an upsert keyed by (workflow, timer). */
    @Override
    public Mono<Void> scheduleTimer(WorkflowId w, TimerId t, Instant fireAt) {
        return Mono.defer(() -> {
            requireNonNull(w, "workflowId");
            String timer = StoredText.timerIdText(t, "timerId");
            long at = Times.toNanos(fireAt, "fireAt");
            String upsert = db.dialect().timerUpsert();
            return db.write("scheduleTimer", c -> Sql.update(c, upsert, w.toString(), timer, at))
                    .then();
        });
    }

    /**
     * T3–T5: ordered by fire time, workflow id, then canonical timer-id text in code-point order
     * (sorted again in Java, because H2 compares text by UTF-16 unit).
     */
    @Override
    public Flux<TimerEntry> expiredTimers(Instant asOf) {
        return Mono.defer(() -> {
                    long bound = Times.toNanos(asOf, "asOf");
                    return db.read(
                            "expiredTimers",
                            c -> Sql.query(
                                            c,
                                            EXPIRED,
                                            row -> new Object[] {
                                                Sql.textAt(row, 0), Sql.textAt(row, 1), Sql.longAt(row, 2)
                                            },
                                            bound)
                                    .map(R2dbcTimers::entry)
                                    .collectList()
                                    .map(due -> {
                                        List<TimerEntry> sorted = new ArrayList<>(due);
                                        sorted.sort(ORDER);
                                        return sorted;
                                    }));
                })
                .flatMapMany(Flux::fromIterable);
    }

    private static TimerEntry entry(Object[] r) {
        String w = (String) r[0];
        String t = (String) r[1];
        TimerId id;
        try {
            id = TimerId.parse(t);
        } catch (RuntimeException e) {
            throw new SerializationException("stored timer id '" + t + "' of workflow " + w + " is not canonical", e);
        }
        return new TimerEntry(EventRows.workflowId(w), id, Times.fromNanos((Long) r[2]));
    }
}

package dev.durablestore.r2dbc.internal;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.storage.StoredTimer;
import dev.durablestore.core.storage.TimerStorage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Timers over R2DBC (contract group T), keyed by canonical id text (S27). */
final class R2dbcTimers implements TimerStorage {

    /** W9: a step cancelling a timer. */
    static final String DELETE = "DELETE FROM timers WHERE workflow_id = $1 AND timer_id = $2";

    private static final String EXPIRED = "SELECT workflow_id, timer_id, fire_at FROM timers WHERE fire_at <= $1 "
            + "ORDER BY fire_at, workflow_id, timer_id";

    private final Db db;

    R2dbcTimers(Db db) {
        this.db = db;
    }

    /** T1, T2: an upsert keyed by (workflow, timer). */
    @Override
    public Mono<Void> scheduleTimer(WorkflowId w, String timerId, long fireAtNanos) {
        String upsert = db.dialect().timerUpsert();
        return db.write("scheduleTimer", c -> Sql.update(c, upsert, w.toString(), timerId, fireAtNanos))
                .then();
    }

    /** T3: timers due by the bound; the store orders them (T4, T5). */
    @Override
    public Flux<StoredTimer> expiredTimers(long asOfNanos) {
        return db.stream(
                "expiredTimers",
                c -> Sql.query(
                        c,
                        EXPIRED,
                        row -> new StoredTimer(Sql.textAt(row, 0), Sql.textAt(row, 1), Sql.longAt(row, 2)),
                        asOfNanos));
    }
}

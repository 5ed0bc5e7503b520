package dev.durablestore.sqlite.internal;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.core.storage.ClaimBatch;
import dev.durablestore.core.storage.ClaimStorage;
import java.time.Clock;
import java.util.Set;
import java.util.function.IntSupplier;
import reactor.core.publisher.Mono;

/**
 * Every claim of the SQLite store (O16–O27), for calls and for claim streams (O52): argument
 * checks and the shortcuts that need no transaction here, the claim itself a {@link ClaimCommand}
 * on the {@link Writer} (which serializes claims, so no row is taken twice). The stream's releases
 * of rows it could not deliver are writes, in {@link OutboxWrites#release}. The R2DBC backend's
 * counterpart has the same name.
 */
final class Claims implements ClaimStorage {

    private final Writer writer;
    private final OutboxRows rows;
    private final Clock clock;
    private final StoreMetrics metrics;

    /**
     * @param writer the single writer
     * @param rows row codec
     * @param clock the store clock
     * @param metrics receives claimed-row counts
     */
    Claims(Writer writer, OutboxRows rows, Clock clock, StoreMetrics metrics) {
        this.writer = writer;
        this.rows = rows;
        this.clock = clock;
        this.metrics = metrics;
    }

    /**
     * Every claim (O16–O27, O62–O64), checked by the caller: a {@link ClaimCommand} on the writer.
     *
     * @param scope a matchable route, or {@code null}
     * @param limit the most rows, read when the writer runs the claim
     * @param heldKeys held workflows' ids
     * @param policy how rows are handed out
     * @param withNextDue whether to read the next known {@code visible_after}
     * @return the batch, corrupt rows reported in it
     */
    @Override
    public Mono<ClaimBatch> claim(
            ClaimScope scope, IntSupplier limit, Set<String> heldKeys, DispatchPolicy policy, boolean withNextDue) {
        return writer.submit(new ClaimCommand(rows, scope, heldKeys, limit, withNextDue, clock, policy))
                .doOnNext(r -> metrics.rowsClaimed(r.rows().size()));
    }
}

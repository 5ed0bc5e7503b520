package dev.durablestore.sqlite.internal;

import static dev.durablestore.api.InvalidArgumentException.requireNonNegative;
import static dev.durablestore.api.InvalidArgumentException.requireNonNull;
import static dev.durablestore.api.spi.Claims.heldKeys;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.DispatchPolicy;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.spi.ClaimBatch;
import dev.durablestore.api.spi.ClaimStreams;
import dev.durablestore.api.spi.StoredText;
import dev.durablestore.api.spi.Wakeups;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every claim of the SQLite store (O16–O27) and the claim stream (O52): argument checks and the
 * shortcuts that need no transaction here, the claim itself a {@link ClaimCommand} on the
 * {@link Writer} (which serializes claims, so no row is taken twice). The stream's releases of rows
 * it could not deliver are writes, in {@link OutboxWrites#release}. The R2DBC backend's counterpart
 * has the same name.
 */
public final class Claims implements ClaimStreams.Source {

    private final Writer writer;
    private final OutboxWrites writes;
    private final OutboxRows rows;
    private final Clock clock;
    private final Wakeups wakeups;
    private final StoreMetrics metrics;

    /**
     * @param writer the single writer
     * @param writes where the claim stream releases rows
     * @param rows row codec
     * @param clock the store clock
     * @param wakeups signalled by the writer after commits that make rows claimable
     * @param metrics receives claimed-row counts
     */
    public Claims(
            Writer writer, OutboxWrites writes, OutboxRows rows, Clock clock, Wakeups wakeups, StoreMetrics metrics) {
        this.writer = writer;
        this.writes = writes;
        this.rows = rows;
        this.clock = clock;
        this.wakeups = wakeups;
        this.metrics = metrics;
    }

    /**
     * O52.
     *
     * @param options stream options
     * @return the claim stream
     */
    public Flux<OutboxRow> claimStream(ClaimStreamOptions options) {
        return Flux.defer(() -> ClaimStreams.create(this, wakeups, clock, requireNonNull(options, "options")));
    }

    /**
     * Every claim variant (O16–O27).
     *
     * @param scope route or null
     * @param limit most rows
     * @param held held workflows
     * @return claimed rows
     */
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return claim(scope, limit, held, DispatchPolicy.none());
    }

    /**
     * Every claim variant with a dispatch policy (O16–O27, O63).
     *
     * @param scope route or null
     * @param limit most rows
     * @param held held workflows
     * @param policy how rows are handed out
     * @return claimed rows
     */
    public Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return claimBatch(scope, limit, held, policy, false).map(r -> r.rows());
    }

    /**
     * A claim that also reports the next known {@code visible_after}, for the claim stream.
     * Corrupt rows are reported in the result rather than as an error.
     */
    @Override
    public Mono<ClaimBatch> claimForStream(
            ClaimScope scope, IntSupplier limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return Mono.defer(() -> {
                    Set<String> keys = heldKeys(held);
                    if (StoredText.admitsNoStoredRow(scope)) {
                        return Mono.just(new ClaimBatch(List.of(), null, null)); // no stored row is on that route
                    }
                    return writer.submit(
                            new ClaimCommand(rows, StoredText.matchable(scope), keys, limit, true, clock, policy));
                })
                .doOnNext(r -> metrics.rowsClaimed(r.rows().size()));
    }

    private Mono<ClaimBatch> claimBatch(
            ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy, boolean next) {
        return Mono.defer(() -> {
            requireNonNegative(limit, "limit");
            Set<String> keys = heldKeys(held);
            dev.durablestore.api.spi.Claims.policy(scope, policy);
            if (limit == 0 || StoredText.admitsNoStoredRow(scope)) {
                return Mono.just(new ClaimBatch(List.of(), null, null)); // none asked for, or none on that route
            }
            return writer.submit(
                            new ClaimCommand(rows, StoredText.matchable(scope), keys, () -> limit, next, clock, policy))
                    .doOnNext(r -> metrics.rowsClaimed(r.rows().size()))
                    .flatMap(r -> r.corrupt() != null ? Mono.error(r.corrupt()) : Mono.just(r));
        });
    }

    /**
     * Returns rows a cancelled claim stream could not deliver to pending, exactly as they were.
     *
     * @param claimed rows claimed in one claim
     * @return completion
     */
    @Override
    public Mono<Void> release(List<OutboxRow> claimed) {
        return writes.release(claimed);
    }
}

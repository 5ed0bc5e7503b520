package dev.durablestore.api;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The claims and settles of 0.1, each now one call of {@link ReactiveStore#claim(ClaimRequest)},
 * {@link ReactiveStore#settle} or {@link OperatorStore#settleKeys}. Kept only while the project's
 * own callers move; removed before 1.0.
 *
 * @deprecated use the operation each method names
 */
@Deprecated
public interface LegacyStoreOperations {

    /** @return the claim, as {@link ReactiveStore#claim(ClaimRequest)} */
    Mono<List<OutboxRow>> claim(ClaimRequest request);

    /** @return the settle, as {@link ReactiveStore#settle} */
    Mono<Void> settle(OutboxRow claimed, Settlement settlement);

    /** @return the settle, as {@link OperatorStore#settleKeys} */
    Mono<Void> settleKeys(Collection<String> dispatchKeys, Settlement settlement);

    /** @deprecated use {@code claim(ClaimRequest.of(limit))} */
    @Deprecated
    default Mono<List<OutboxRow>> claim(int limit) {
        return Mono.defer(() -> claim(ClaimRequest.of(limit)));
    }

    /** @deprecated use {@code claim(ClaimRequest.of(limit).withHeldWorkflows(held))} */
    @Deprecated
    default Mono<List<OutboxRow>> claimExcluding(int limit, Set<WorkflowId> held) {
        return Mono.defer(() -> claim(ClaimRequest.of(limit).withHeldWorkflows(held)));
    }

    /** @deprecated use {@code claim(ClaimRequest.of(limit).withScope(scope))} */
    @Deprecated
    default Mono<List<OutboxRow>> claimScoped(ClaimScope scope, int limit) {
        return Mono.defer(
                () -> claim(ClaimRequest.of(limit).withScope(InvalidArgumentException.requireNonNull(scope, "scope"))));
    }

    /** @deprecated use {@code claim(ClaimRequest.of(limit).withScope(scope).withHeldWorkflows(held))} */
    @Deprecated
    default Mono<List<OutboxRow>> claimScopedExcluding(ClaimScope scope, int limit, Set<WorkflowId> held) {
        return Mono.defer(() -> claim(ClaimRequest.of(limit)
                .withScope(InvalidArgumentException.requireNonNull(scope, "scope"))
                .withHeldWorkflows(held)));
    }

    /** @deprecated use {@code claim(ClaimRequest.of(limit).withScope(scope).withHeldWorkflows(held).withPolicy(policy))} */
    @Deprecated
    default Mono<List<OutboxRow>> claim(ClaimScope scope, int limit, Set<WorkflowId> held, DispatchPolicy policy) {
        return Mono.defer(() -> claim(
                ClaimRequest.of(limit).withScope(scope).withHeldWorkflows(held).withPolicy(policy)));
    }

    /** @deprecated use {@code settleKeys(List.of(dispatchKey), Settlement.complete())} */
    @Deprecated
    default Mono<Void> complete(String dispatchKey) {
        return Mono.defer(() -> settleKeys(Collections.singletonList(dispatchKey), Settlement.complete()));
    }

    /** @deprecated use {@code settleKeys(dispatchKeys, Settlement.complete())} */
    @Deprecated
    default Mono<Void> complete(Collection<String> dispatchKeys) {
        return Mono.defer(() -> settleKeys(dispatchKeys, Settlement.complete()));
    }

    /** @deprecated use {@code settleKeys(List.of(dispatchKey), Settlement.retryAt(nextAttempt, visibleAfter))} */
    @Deprecated
    default Mono<Void> retry(String dispatchKey, int nextAttempt, Instant visibleAfter) {
        return Mono.defer(() ->
                settleKeys(Collections.singletonList(dispatchKey), Settlement.retryAt(nextAttempt, visibleAfter)));
    }

    /** @deprecated use {@code settleKeys(dispatchKeys, Settlement.retryAt(nextAttempt, visibleAfter))} */
    @Deprecated
    default Mono<Void> retry(Collection<String> dispatchKeys, int nextAttempt, Instant visibleAfter) {
        return Mono.defer(() -> settleKeys(dispatchKeys, Settlement.retryAt(nextAttempt, visibleAfter)));
    }

    /** @deprecated use {@code settleKeys(List.of(dispatchKey), Settlement.retryAfter(nextAttempt, delay))} */
    @Deprecated
    default Mono<Void> retryAfter(String dispatchKey, int nextAttempt, Duration delay) {
        return Mono.defer(
                () -> settleKeys(Collections.singletonList(dispatchKey), Settlement.retryAfter(nextAttempt, delay)));
    }

    /** @deprecated use {@code settleKeys(List.of(dispatchKey), Settlement.fail())} */
    @Deprecated
    default Mono<Void> fail(String dispatchKey) {
        return Mono.defer(() -> settleKeys(Collections.singletonList(dispatchKey), Settlement.fail()));
    }

    /** @deprecated use {@code settleKeys(dispatchKeys, Settlement.fail())} */
    @Deprecated
    default Mono<Void> fail(Collection<String> dispatchKeys) {
        return Mono.defer(() -> settleKeys(dispatchKeys, Settlement.fail()));
    }

    /** @deprecated use {@code settleKeys(List.of(dispatchKey), Settlement.cancel())} */
    @Deprecated
    default Mono<Void> settleCancelled(String dispatchKey) {
        return Mono.defer(() -> settleKeys(Collections.singletonList(dispatchKey), Settlement.cancel()));
    }

    /** @deprecated use {@code settleKeys(dispatchKeys, Settlement.cancel())} */
    @Deprecated
    default Mono<Void> settleCancelled(Collection<String> dispatchKeys) {
        return Mono.defer(() -> settleKeys(dispatchKeys, Settlement.cancel()));
    }

    /** @deprecated use {@code settle(claimed, Settlement.retryAt(nextAttempt, visibleAfter))} */
    @Deprecated
    default Mono<Void> retry(OutboxRow claimed, int nextAttempt, Instant visibleAfter) {
        return Mono.defer(() -> settle(claimed, Settlement.retryAt(nextAttempt, visibleAfter)));
    }

    /** @deprecated use {@code settle(claimed, Settlement.fail())} */
    @Deprecated
    default Mono<Void> fail(OutboxRow claimed) {
        return settle(claimed, Settlement.fail());
    }

    /** @deprecated use {@code settle(claimed, Settlement.cancel())} */
    @Deprecated
    default Mono<Void> settleCancelled(OutboxRow claimed) {
        return settle(claimed, Settlement.cancel());
    }
}

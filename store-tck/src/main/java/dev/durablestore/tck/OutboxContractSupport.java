package dev.durablestore.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxRowState;
import dev.durablestore.api.OutboxStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Shared steps of the outbox contract classes: staging and claiming in a "given" step, reading a
 * row's state, waiting for an asynchronous condition without sleeping, and checking that a call was
 * rejected as an invalid argument.
 */
abstract class OutboxContractSupport extends ContractTestSupport {

    /** How often {@link #awaitTrue} looks again. */
    private static final Duration POLL = Duration.ofMillis(20);

    /** @return the store's current instant */
    protected Instant now() {
        return clock.instant();
    }

    /** @param rows rows to stage with {@code appendOutboxBatch}, which must succeed */
    protected void stage(OutboxRow... rows) {
        stageAll(Arrays.asList(rows));
    }

    /** @param rows rows to stage with {@code appendOutboxBatch}, which must succeed */
    protected void stageAll(List<OutboxRow> rows) {
        store.appendOutboxBatch(rows).block(TIMEOUT);
    }

    /**
     * @param limit the claim limit
     * @return what a plain claim returned
     */
    protected List<OutboxRow> claim(int limit) {
        return store.claim(ClaimRequest.of(limit)).block(TIMEOUT);
    }

    /**
     * @param dispatchKey a key
     * @return the stored state, or empty when the key is not stored
     */
    protected Optional<OutboxRowState> state(String dispatchKey) {
        return store.rowState(dispatchKey).blockOptional(TIMEOUT);
    }

    /**
     * @param dispatchKey a key
     * @return the stored status; fails when the key is not stored
     */
    protected OutboxStatus status(String dispatchKey) {
        return state(dispatchKey)
                .orElseThrow(() -> new AssertionError("row " + dispatchKey + " is not stored"))
                .status();
    }

    /**
     * @param dispatchKey a key
     * @param status the expected status
     * @param attempt the expected attempt
     * @param visibleAfter the expected visibility
     */
    protected void assertState(String dispatchKey, OutboxStatus status, int attempt, Instant visibleAfter) {
        assertThat(state(dispatchKey))
                .as("state of %s", dispatchKey)
                .contains(new OutboxRowState(status, attempt, visibleAfter));
    }

    /**
     * @param dispatchKey a key
     * @param status the expected status
     */
    protected void assertStatus(String dispatchKey, OutboxStatus status) {
        assertThat(status(dispatchKey)).as("status of %s", dispatchKey).isEqualTo(status);
    }

    /** @param dispatchKey a key that must not be stored */
    protected void assertAbsent(String dispatchKey) {
        assertThat(state(dispatchKey)).as("state of %s", dispatchKey).isEmpty();
    }

    /**
     * @param dispatchKeys keys
     * @return each key's stored state, in the order given (empty for absent keys)
     */
    protected Map<String, Optional<OutboxRowState>> snapshot(Collection<String> dispatchKeys) {
        Map<String, Optional<OutboxRowState>> states = new LinkedHashMap<>();
        for (String key : dispatchKeys) {
            states.put(key, state(key));
        }
        return states;
    }

    /**
     * Waits, without sleeping the test thread, until {@code condition} emits true.
     *
     * @param what the condition, for the failure message
     * @param condition asked again every few milliseconds until it emits true, for at most
     *     {@link #TIMEOUT}
     */
    protected void awaitTrue(String what, Supplier<Mono<Boolean>> condition) {
        try {
            Mono.defer(condition)
                    .filter(Boolean::booleanValue)
                    .repeatWhenEmpty(ticks -> ticks.concatMap(tick -> Mono.delay(POLL)))
                    .timeout(TIMEOUT)
                    .block();
        } catch (RuntimeException e) {
            throw new AssertionError("timed out after " + TIMEOUT + " waiting until " + what, e);
        }
    }

    /**
     * @param dispatchKey a key
     * @param status the status it must reach
     */
    protected void awaitStatus(String dispatchKey, OutboxStatus status) {
        awaitTrue(
                dispatchKey + " is " + status,
                () -> store.rowState(dispatchKey)
                        .map(state -> state.status() == status)
                        .defaultIfEmpty(false));
    }

    /**
     * Expects {@code build} to throw an {@link InvalidArgumentException} naming exactly
     * {@code argument} (W2, X10): a step builder, a {@code ClaimRequest} or a {@code Settlement} is
     * no publisher, so it checks its values when it is built and throws.
     *
     * @param build builds the value under test
     * @param argument the argument name the error must report
     */
    static void buildRefused(Supplier<?> build, String argument) {
        InvalidArgumentException e = catchThrowableOfType(InvalidArgumentException.class, build::get);
        assertThat(e).as("building must refuse the value naming %s", argument).isNotNull();
        assertThat(e.argument()).as("argument() of %s", e.getMessage()).isEqualTo(argument);
        assertThat(e.getMessage()).as("the message names the argument").contains(argument);
    }

    /**
     * Checks X9 and X10: the call returns a publisher without throwing, and the publisher fails with
     * an {@link InvalidArgumentException} whose argument name contains {@code argument}.
     *
     * @param call the call under test
     * @param argument a fragment of the argument name the error must report
     */
    protected void assertRejected(Supplier<? extends Publisher<?>> call, String argument) {
        Publisher<?>[] publisher = new Publisher<?>[1];
        assertThatCode(() -> publisher[0] = call.get())
                .as("X9: the method must not throw from the calling thread")
                .doesNotThrowAnyException();
        assertThat(publisher[0]).as("the returned publisher").isNotNull();
        StepVerifier.create(publisher[0])
                .expectErrorSatisfies(error -> {
                    assertThat(error).isInstanceOf(InvalidArgumentException.class);
                    assertThat(((InvalidArgumentException) error).argument())
                            .as("the argument named by %s", error.getMessage())
                            .containsIgnoringCase(argument);
                })
                .verify(TIMEOUT);
    }
}

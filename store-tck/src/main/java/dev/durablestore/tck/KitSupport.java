package dev.durablestore.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunSummary;
import dev.durablestore.api.TimerEntry;
import dev.durablestore.api.WorkflowFilter;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.WorkflowSummary;
import dev.durablestore.api.event.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Short, blocking-with-timeout calls and assertions shared by the contract classes. */
final class KitSupport {

    static final Duration TIMEOUT = ContractTestSupport.TIMEOUT;

    /** The earliest instant both stored time forms of S10 can hold (S15). */
    static final Instant EARLIEST = Instant.parse("1677-09-21T00:12:43.145224192Z");

    /** The latest instant both stored time forms of S10 can hold (S15). */
    static final Instant LATEST = Instant.parse("2262-04-11T23:47:16.854775807Z");

    private KitSupport() {}

    /**
     * Appends a batch that starts right after the stored head: {@code expectedSeq} is the first
     * event's {@code seq - 1}, the workflow is the first event's. Fails the test unless it completes.
     */
    static void given(ReactiveStore store, List<? extends Event> events) {
        Event first = events.get(0);
        append(store, first.workflowId(), events, first.seq() - 1);
    }

    /** Appends and fails the test unless the append completes. */
    static void append(ReactiveStore store, WorkflowId workflowId, List<? extends Event> events, long expectedSeq) {
        StepVerifier.create(store.append(workflowId, List.copyOf(events), expectedSeq))
                .expectComplete()
                .verify(TIMEOUT);
    }

    static List<Event> history(ReactiveStore store, WorkflowId workflowId) {
        return collect(store.readHistory(workflowId));
    }

    static List<Event> historyFrom(ReactiveStore store, WorkflowId workflowId, long fromSeq) {
        return collect(store.readHistoryFrom(workflowId, fromSeq));
    }

    static long head(ReactiveStore store, WorkflowId workflowId) {
        Long head = store.readHead(workflowId).block(TIMEOUT);
        assertThat(head).as("readHead(%s) must emit a value", workflowId).isNotNull();
        return head;
    }

    static List<WorkflowId> workflowIds(ReactiveStore store) {
        return collect(store.listWorkflowIds());
    }

    static List<WorkflowId> active(ReactiveStore store) {
        return collect(store.listActive());
    }

    static List<WorkflowId> paused(ReactiveStore store) {
        return collect(store.listPaused());
    }

    static List<WorkflowSummary> query(ReactiveStore store, WorkflowFilter filter) {
        return collect(store.query(filter));
    }

    static List<RunSummary> runChain(ReactiveStore store, WorkflowId workflowId) {
        List<RunSummary> chain = store.readRunChain(workflowId).block(TIMEOUT);
        assertThat(chain).as("readRunChain(%s) must emit a list", workflowId).isNotNull();
        return chain;
    }

    static List<TimerEntry> expired(ReactiveStore store, Instant asOf) {
        return collect(store.expiredTimers(asOf));
    }

    static <T> List<T> collect(Flux<T> flux) {
        List<T> list = flux.collectList().block(TIMEOUT);
        assertThat(list).isNotNull();
        return list;
    }

    /**
     * Subscribes to {@code publisher} and returns the error it signals, failing the test when it
     * completes, emits, or signals an error of another type.
     */
    static <E extends Throwable> E failure(Publisher<?> publisher, Class<E> type) {
        AtomicReference<Throwable> error = new AtomicReference<>();
        StepVerifier.create(Flux.from(publisher).ignoreElements())
                .expectErrorSatisfies(e -> {
                    error.set(e);
                    assertThat(e).as("error signal").isInstanceOf(type);
                })
                .verify(TIMEOUT);
        return type.cast(error.get());
    }

    /**
     * Calls {@code operation} (which must not throw, X9), subscribes, and asserts it signals an
     * {@link InvalidArgumentException} whose {@code argument()} contains one of
     * {@code argumentNames} and whose message names that argument (X10).
     */
    static InvalidArgumentException invalidArgument(
            Supplier<? extends Publisher<?>> operation, String... argumentNames) {
        AtomicReference<Publisher<?>> publisher = new AtomicReference<>();
        assertThatCode(() -> publisher.set(operation.get()))
                .as("the method must not throw; errors are onError signals (X9)")
                .doesNotThrowAnyException();
        assertThat(publisher.get()).as("the method must return a publisher").isNotNull();
        InvalidArgumentException e = failure(publisher.get(), InvalidArgumentException.class);
        assertThat(e.argument()).as("argument() of %s", e.getMessage()).isNotNull();
        assertThat(List.of(argumentNames))
                .as("argument() '%s' must name one of %s", e.argument(), List.of(argumentNames))
                .anyMatch(name -> e.argument().contains(name));
        assertThat(e.getMessage()).as("the message names the argument").contains(e.argument());
        return e;
    }

    /**
     * Runs every operation on its own thread, all released at once by a latch, and waits for all.
     * Each operation's publisher is created and blocked on by its thread.
     *
     * @return per operation, in order: {@code null} when it completed, else the error it signalled
     */
    static List<Throwable> concurrently(List<Supplier<? extends Publisher<?>>> operations) {
        int n = operations.size();
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            CountDownLatch ready = new CountDownLatch(n);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Throwable>> futures = new ArrayList<>();
            for (Supplier<? extends Publisher<?>> operation : operations) {
                futures.add(pool.submit(() -> {
                    ready.countDown();
                    if (!go.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                        return new AssertionError("start gate never opened");
                    }
                    Publisher<?> publisher;
                    try {
                        publisher = operation.get();
                    } catch (RuntimeException e) {
                        return new AssertionError("the method threw instead of signalling (X9)", e);
                    }
                    return Flux.from(publisher)
                            .then(Mono.<Throwable>empty())
                            .onErrorResume(Mono::just)
                            .block(TIMEOUT);
                }));
            }
            assertThat(ready.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("all threads ready")
                    .isTrue();
            go.countDown();
            List<Throwable> outcomes = new ArrayList<>();
            for (Future<Throwable> future : futures) {
                outcomes.add(future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
            }
            return outcomes;
        } catch (Exception e) {
            throw new AssertionError("concurrent operations did not finish in " + TIMEOUT, e);
        } finally {
            pool.shutdownNow();
        }
    }

    static WorkflowId wid(String canonicalText) {
        return WorkflowId.parse(canonicalText);
    }
}

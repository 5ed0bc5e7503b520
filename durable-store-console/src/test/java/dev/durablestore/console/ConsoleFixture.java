package dev.durablestore.console;

import dev.durablestore.api.ClaimRequest;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ContentType;
import dev.durablestore.api.FailureReason;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.TimerId;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.api.event.WorkflowCompleted;
import dev.durablestore.api.event.WorkflowError;
import dev.durablestore.api.event.WorkflowFailed;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * A SQLite store with known contents: workflow {@link #WF} with a history and three rows (failed after
 * two attempts that each recorded a reason ({@link #RETRIED}, {@link #HOSTILE}), pending, done);
 * {@link #FAILED_BULK} dead letters on billing/payments, each failed on attempt 1 for {@link #DECLINED};
 * {@link #STUCK} claims older than the 5-minute lease on shipping/labels, each on attempt 2 after a
 * {@link #TIMED_OUT} first attempt; one fresh claim there. Two more started workflows, older than
 * {@link #WF}: {@link #REFUND} (completed, its input bytes not UTF-8 JSON) and {@link #EXPIRED}
 * (failed); and {@link #TIMERS} timers, two of them due.
 */
final class ConsoleFixture implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(20);
    static final WorkflowId WF = WorkflowId.parse("11111111-1111-4111-8111-111111111111");
    static final int FAILED_BULK = 12;
    static final int STUCK = 3;

    /** A "refund" workflow started 2 h before {@link #WF}, completed 1 h before; its input is no UTF-8 JSON. */
    static final WorkflowId REFUND = WorkflowId.parse("55555555-5555-4555-8555-000000000001");

    /** A "checkout" workflow started 1 h before {@link #WF}, failed 30 min before. */
    static final WorkflowId EXPIRED = WorkflowId.parse("55555555-5555-4555-8555-000000000002");

    /** Bytes that are not UTF-8 (and so no JSON), stored as a JSON payload: the store does not check. */
    static final byte[] NOT_UTF8 = {(byte) 0xff, (byte) 0xfe, '{', '}'};

    /**
     * The timers: {@link #WF}'s anonymous 7 at the seed's start (due), {@link #REFUND}'s "a,b" a minute
     * before it (due, a comma in its id), {@link #WF}'s "reminder" an hour after it (due in 50 min).
     */
    static final int TIMERS = 3;

    /** The reason of attempt 1 of {@link #WF}'s failed row, retried. */
    static final FailureReason RETRIED = FailureReason.of("ledger unavailable")
            .withType("java.net.ConnectException")
            .withTrace("\tat com.example.Ledger.post(Ledger.java:42)\n\tat com.example.Charge.run(Charge.java:7)\n");

    /** The reason of attempt 2 of {@link #WF}'s failed row, dead-lettered: markup the page must show as text. */
    static final FailureReason HOSTILE = FailureReason.of(
                    "<img src=x onerror=\"window.pwned=1\">declined & <b>bold</b>")
            .withType("<script>window.pwned=2</script>")
            .withTrace("\tat <svg onload=\"window.pwned=3\">\n");

    /** Why each of the {@link #FAILED_BULK} dead letters failed. */
    static final FailureReason DECLINED = FailureReason.of("card declined").withType("com.example.PaymentDeclined");

    /** Why the first attempt of each {@link #STUCK} claim failed. */
    static final FailureReason TIMED_OUT = FailureReason.of("label printer timed out");

    /** The system clock shifted by an offset that tests move instead of sleeping. */
    static final class MovableClock extends Clock {
        private volatile Duration offset;

        MovableClock(Instant start) {
            this.offset = Duration.between(Instant.now(), start);
        }

        void advance(Duration d) {
            offset = offset.plus(d);
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(offset);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    final MovableClock clock;
    /** When the seed began, on {@link #clock}: what the fixture's times count from. */
    Instant t0;

    final ReactiveStore store;
    final List<String> failedKeys = new ArrayList<>();
    final List<String> stuckKeys = new ArrayList<>();

    ConsoleFixture(Path dir, TrafficMeter meter, boolean systemClock) {
        clock = new MovableClock(
                systemClock ? Instant.now().minus(Duration.ofMinutes(10)) : Instant.parse("2026-03-01T10:00:00Z"));
        ReactiveStore raw = SqliteReactiveStore.open(
                SqliteStoreConfig.of(dir.resolve("console.db")).withClock(clock));
        store = meter == null ? raw : meter.wrap(raw);
        seed();
    }

    private void seed() {
        t0 = clock.instant();
        // the workflow: started, a signal with a large payload, three rows
        String big = "{\"note\":\"" + "x".repeat(5000) + "\"}";
        store.appendWithOutbox(
                        WF,
                        List.of(
                                new WorkflowStarted(
                                        new EventEnvelope(1, t0, WF),
                                        "checkout",
                                        Payload.json("{\"order\":42}"),
                                        RunId.parse("00000000-0000-4000-8000-0000000000aa"),
                                        null,
                                        new PackageVersion("v1")),
                                new SignalReceived(
                                        new EventEnvelope(2, t0.plusMillis(5), WF), "poke", Payload.json(big))),
                        0,
                        List.of(
                                row(WF, 0, "orders", "checkout", "charge-card", t0),
                                OutboxRow.pending(
                                                WF,
                                                1,
                                                "send-email",
                                                Payload.of(ContentType.JSON, NOT_UTF8),
                                                t0.plus(Duration.ofHours(1)))
                                        .withRoute("orders", "checkout", null),
                                row(WF, 2, "orders", "checkout", "reserve-stock", t0)))
                .block(TIMEOUT);
        store.settleKeys(
                        List.of(OutboxRow.dispatchKey(WF, 0)),
                        Settlement.retryAt(1, t0).withReason(RETRIED))
                .block(TIMEOUT);
        store.settleKeys(
                        List.of(OutboxRow.dispatchKey(WF, 0)), Settlement.fail().withReason(HOSTILE))
                .block(TIMEOUT);
        store.settleKeys(List.of(OutboxRow.dispatchKey(WF, 2)), Settlement.complete())
                .block(TIMEOUT);
        // older workflows, for the search, and timers
        store.append(
                        REFUND,
                        List.of(
                                new WorkflowStarted(
                                        new EventEnvelope(1, t0.minus(Duration.ofHours(2)), REFUND),
                                        "refund",
                                        Payload.of(ContentType.JSON, NOT_UTF8),
                                        RunId.parse("00000000-0000-4000-8000-0000000000bb"),
                                        null,
                                        new PackageVersion("v1")),
                                new WorkflowCompleted(
                                        new EventEnvelope(2, t0.minus(Duration.ofHours(1)), REFUND),
                                        Payload.json("{\"refunded\":true}"))),
                        0)
                .block(TIMEOUT);
        store.append(
                        EXPIRED,
                        List.of(
                                new WorkflowStarted(
                                        new EventEnvelope(1, t0.minus(Duration.ofHours(1)), EXPIRED),
                                        "checkout",
                                        Payload.json("{\"order\":7}"),
                                        RunId.parse("00000000-0000-4000-8000-0000000000cc"),
                                        null,
                                        new PackageVersion("v1")),
                                new WorkflowFailed(
                                        new EventEnvelope(2, t0.minus(Duration.ofMinutes(30)), EXPIRED),
                                        new WorkflowError("card expired", Payload.json("{}")))),
                        0)
                .block(TIMEOUT);
        store.scheduleTimer(WF, TimerId.anonymous(7), t0).block(TIMEOUT);
        store.scheduleTimer(REFUND, TimerId.named("a,b"), t0.minus(Duration.ofMinutes(1)))
                .block(TIMEOUT);
        store.scheduleTimer(WF, TimerId.named("reminder"), t0.plus(Duration.ofHours(1)))
                .block(TIMEOUT);
        // dead letters
        List<OutboxRow> bulk = new ArrayList<>();
        for (int i = 0; i < FAILED_BULK; i++) {
            WorkflowId w = WorkflowId.parse(String.format("22222222-2222-4222-8222-%012d", i));
            bulk.add(row(w, 0, "billing", "payments", i % 2 == 0 ? "charge-card" : "refund", t0));
            failedKeys.add(OutboxRow.dispatchKey(w, 0));
        }
        store.appendOutboxBatch(bulk).block(TIMEOUT);
        store.settleKeys(failedKeys, Settlement.fail().withReason(DECLINED)).block(TIMEOUT);
        // stuck claims: claimed now, then the clock moves past the lease
        List<OutboxRow> stuck = new ArrayList<>();
        for (int i = 0; i < STUCK; i++) {
            WorkflowId w = WorkflowId.parse(String.format("33333333-3333-4333-8333-%012d", i));
            stuck.add(row(w, 0, "shipping", "labels", "print-label", t0));
            stuckKeys.add(OutboxRow.dispatchKey(w, 0));
        }
        store.appendOutboxBatch(stuck).block(TIMEOUT);
        store.settleKeys(stuckKeys, Settlement.retryAt(1, t0).withReason(TIMED_OUT))
                .block(TIMEOUT);
        if (store.claim(ClaimRequest.of(STUCK).withScope(ClaimScope.of("shipping", "labels")))
                        .block(TIMEOUT)
                        .size()
                != STUCK) {
            throw new IllegalStateException("the stuck rows were not claimed");
        }
        clock.advance(Duration.ofMinutes(10));
        WorkflowId fresh = WorkflowId.parse("44444444-4444-4444-8444-000000000000");
        store.appendOutboxBatch(List.of(row(fresh, 0, "shipping", "labels", "print-label", clock.instant())))
                .block(TIMEOUT);
        store.claim(ClaimRequest.of(1).withScope(ClaimScope.of("shipping", "labels")))
                .block(TIMEOUT);
    }

    static OutboxRow row(WorkflowId w, long ordinal, String ns, String queue, String activity, Instant visible) {
        return OutboxRow.pending(
                        w,
                        ordinal,
                        activity,
                        Payload.json("{\"n\":" + ordinal + ",\"activity\":\"" + activity + "\"}"),
                        visible)
                .withRoute(ns, queue, null);
    }

    OutboxStatus status(String key) {
        return store.rowState(key).block(TIMEOUT).status();
    }

    @Override
    public void close() {
        store.close();
    }
}

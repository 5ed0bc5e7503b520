package dev.durablestore.sqlite.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.Payload;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.StoreMetrics;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.SignalReceived;
import dev.durablestore.core.codec.EventCodec;
import dev.durablestore.core.internal.EventEncoder;
import dev.durablestore.core.internal.OutboxRowEncoder;
import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * Appends queued together run as one group (guards first, then multi-row inserts, E3–E22), and
 * what they leave is what the same appends one by one would leave. The group does not read the
 * head of a workflow it has not seen when the append expects head 0: the insert of seq 1 is the
 * check. These tests provoke that check against a workflow the store has never read, whose
 * history the file already holds.
 */
class GroupedAppendTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Instant AT = Instant.parse("2026-12-03T10:00:00Z");

    @TempDir
    Path tmp;

    private final EventRows eventRows = new EventRows(EventCodec.create());
    private final OutboxRows outboxRows = new OutboxRows(EventCodec.create());
    private Connections connections;
    private Scheduler emit;
    private Writer writer;
    private HeadCache heads;
    /** A workflow with two events in the file before the writer opens: its head is unknown to the cache. */
    private final WorkflowId existing = WorkflowId.random();

    @BeforeEach
    void open() throws SQLException {
        connections = new Connections(tmp.resolve("g.db"), SqliteJournalMode.WAL, SqliteSynchronous.NORMAL, 1_000);
        DbConnection c = connections.openWriter(1_000, 2_000);
        Schema.apply(c, connections.file());
        c.execute("BEGIN IMMEDIATE");
        EventRows.insert(c, existing.toString(), encode(existing, 0, signals(existing, 1, 2)));
        c.execute("COMMIT");
        emit = Schedulers.newSingle("grouped-append-emit");
        writer = new Writer(c, 512, emit, () -> {}, StoreMetrics.NONE, "grouped-append-test");
        heads = new HeadCache(1_000);
        writer.addListener(heads);
    }

    @AfterEach
    void close() {
        writer.close(5_000);
        emit.dispose();
    }

    @Test
    void E3_E7_E22_a_stale_first_append_in_a_group_conflicts_alone_and_stores_none_of_its_rows() throws Exception {
        // given a new workflow's start, a start of the workflow the file already holds (expected 0,
        // head 2, with an outbox row), another start; when the writer takes them as one batch
        WorkflowId a = WorkflowId.random();
        WorkflowId b = WorkflowId.random();
        OutboxRow staleRow = OutboxRow.pending(existing, 1, "work", Payload.json("{}"), AT);
        List<Mono<Void>> appends = queuedTogether(
                append(a, 0, signals(a, 1, 1), List.of()),
                append(existing, 0, signals(existing, 1, 1), List.of(staleRow)),
                append(b, 0, signals(b, 1, 1), List.of()));

        // then the stale one fails with the head the file holds, and the others commit
        StepVerifier.create(appends.get(0)).expectComplete().verify(TIMEOUT);
        expectConflict(appends.get(1), 2L);
        StepVerifier.create(appends.get(2)).expectComplete().verify(TIMEOUT);
        // and the stale append wrote nothing: the history is unchanged and its row was not staged
        assertThat(seqs(existing)).containsExactly(1L, 2L);
        assertThat(outboxCount(existing)).isZero();
        assertThat(seqs(a)).containsExactly(1L);
        assertThat(seqs(b)).containsExactly(1L);
    }

    @Test
    void E4_E5_E6_E13_a_mixed_group_leaves_what_the_same_appends_one_by_one_would() throws Exception {
        // given eight appends; when the writer takes them as one batch
        WorkflowId a = WorkflowId.random();
        WorkflowId b = WorkflowId.random();
        WorkflowId c = WorkflowId.random();
        WorkflowId d = WorkflowId.random();
        List<Event> gapped = List.of(signal(c, 1), signal(c, 3));
        List<Mono<Void>> appends = queuedTogether(
                append(a, 0, signals(a, 1, 2), List.of(OutboxRow.pending(a, 1, "work", Payload.json("{}"), AT))),
                append(b, 0, signals(b, 1, 1), List.of()),
                append(b, 0, signals(b, 1, 1), List.of()), // the same guard again: E13, one wins
                append(a, 2, signals(a, 3, 1), List.of()), // builds on the first append of this batch
                append(c, 0, gapped, List.of()), // E6
                append(existing, 0, List.of(), List.of()), // E4: an empty batch under a stale guard
                append(d, 0, List.of(), List.of()), // E5: an empty batch under a matching guard
                append(existing, 2, signals(existing, 3, 1), List.of()));

        // then each has the outcome it has alone, in queue order
        StepVerifier.create(appends.get(0)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(appends.get(1)).expectComplete().verify(TIMEOUT);
        expectConflict(appends.get(2), 1L);
        StepVerifier.create(appends.get(3)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(appends.get(4))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(BackendException.class)
                        .hasMessageContaining("event sequence must be contiguous"))
                .verify(TIMEOUT);
        expectConflict(appends.get(5), 2L);
        StepVerifier.create(appends.get(6)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(appends.get(7)).expectComplete().verify(TIMEOUT);
        assertThat(seqs(a)).containsExactly(1L, 2L, 3L);
        assertThat(outboxCount(a)).isEqualTo(1);
        assertThat(seqs(b)).containsExactly(1L);
        assertThat(seqs(c)).isEmpty();
        assertThat(seqs(d)).isEmpty();
        assertThat(seqs(existing)).containsExactly(1L, 2L, 3L);
    }

    @Test
    void E8_a_group_wider_than_one_insert_stores_every_event_in_order() throws Exception {
        // given 30 appends of 3 events each (90 rows: two wide inserts, three narrow, two single);
        // when the writer takes them as one batch
        List<WorkflowId> workflows = new ArrayList<>();
        List<AppendCommand> pending = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            WorkflowId w = WorkflowId.random();
            workflows.add(w);
            pending.add(append(w, 0, signals(w, 1, 3), List.of()));
        }
        List<Mono<Void>> appends = queuedTogether(pending.toArray(AppendCommand[]::new));

        // then every append succeeds and every history holds its three events, decoding as written
        for (Mono<Void> m : appends) {
            StepVerifier.create(m).expectComplete().verify(TIMEOUT);
        }
        for (WorkflowId w : workflows) {
            assertThat(seqs(w)).containsExactly(1L, 2L, 3L);
            assertThat(history(w)).containsExactlyElementsOf(signals(w, 1, 3));
        }
    }

    /** @return an append not yet submitted, encoded as the store encodes it */
    private AppendCommand append(WorkflowId w, long expected, List<Event> events, List<OutboxRow> rows) {
        return new AppendCommand(
                w.toString(),
                expected,
                encode(w, expected, events),
                new OutboxRowEncoder(EventCodec.create()).forStaging(rows, "rows"),
                Clock.systemUTC(),
                heads);
    }

    /** E3: the append failed with a sequence conflict naming {@code found} as the head. */
    private static void expectConflict(Mono<Void> append, long found) {
        StepVerifier.create(append)
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOfSatisfying(
                                SequenceConflictException.class,
                                conflict -> assertThat(conflict.found()).isEqualTo(found)))
                .verify(TIMEOUT);
    }

    /**
     * Submits the appends while the writer is held by another command, then releases it: it takes
     * them as one batch (the when of every test here).
     */
    private List<Mono<Void>> queuedTogether(AppendCommand... appends) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        writer.submit(new Noop(() -> {
                    started.countDown();
                    Noop.await(release);
                }))
                .subscribe();
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        List<Mono<Void>> results = new ArrayList<>();
        for (AppendCommand append : appends) {
            Mono<Void> m = writer.submit(append).cache();
            m.subscribe(null, e -> {});
            results.add(m);
        }
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (writer.queueDepth() < appends.length) {
            assertThat(System.nanoTime()).as("appends queued in time").isLessThan(deadline);
            Thread.onSpinWait();
        }
        release.countDown();
        return results;
    }

    private List<EventEncoder.Encoded> encode(WorkflowId w, long expected, List<Event> events) {
        return new EventEncoder(EventCodec.create()).forAppend(w, events, expected);
    }

    private static List<Event> signals(WorkflowId w, long from, int count) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(signal(w, from + i));
        }
        return events;
    }

    private static Event signal(WorkflowId w, long seq) {
        return new SignalReceived(new EventEnvelope(seq, AT, w), "tick-" + seq, Payload.json("{\"n\":" + seq + "}"));
    }

    private List<Long> seqs(WorkflowId w) throws SQLException {
        try (DbConnection reader = connections.openReader()) {
            PreparedStatement ps = reader.prepare("SELECT seq FROM events WHERE workflow_id = ? ORDER BY seq");
            ps.setString(1, w.toString());
            List<Long> seqs = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    seqs.add(rs.getLong(1));
                }
            }
            return seqs;
        }
    }

    private List<Event> history(WorkflowId w) throws SQLException {
        try (DbConnection reader = connections.openReader()) {
            PreparedStatement ps =
                    reader.prepare("SELECT workflow_id, seq, event FROM events WHERE workflow_id = ? ORDER BY seq");
            ps.setString(1, w.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return eventRows.decodeAll(rs);
            }
        }
    }

    private int outboxCount(WorkflowId w) throws SQLException {
        try (DbConnection reader = connections.openReader()) {
            PreparedStatement ps = reader.prepare("SELECT count(*) FROM outbox WHERE workflow_id = ?");
            ps.setString(1, w.toString());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}

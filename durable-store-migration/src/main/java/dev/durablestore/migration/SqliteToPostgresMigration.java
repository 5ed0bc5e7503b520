package dev.durablestore.migration;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.migration.PostgresTarget.Marker;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Copies a store from its SQLite file to a PostgreSQL database: every history (run chains are
 * events too), every timer and every outbox row with all it carries (status, attempt, claim token
 * and claim times, the node that claimed it, settle time, priority, failure reasons, trace
 * context, route, visibility), then verifies the copy. Immutable; each {@code with…} returns a
 * copy, checked when it is built.
 *
 * <pre>{@code
 * MigrationReport report = SqliteToPostgresMigration.from(Path.of("app.db"))
 *         .to(connectionFactory)
 *         .withProgress(p -> log.info("{} {}/{}", p.phase(), p.done(), p.total()))
 *         .run()
 *         .block();
 * if (!report.verified()) { ... report.verification().mismatches() ... }
 * }</pre>
 *
 * <p>What a run does, in order:
 *
 * <ol>
 *   <li>Opens the file as a store once (so an older file is migrated in place to this library's
 *       schema version; a newer one is refused), then reads it through one read-only connection
 *       holding one read transaction: the copy is of one moment of the file.
 *   <li>Looks at the target. A target whose tables hold rows is refused, unless it records (in the
 *       table {@code durable_store_migration}) a migration of this same source: the same file, at
 *       the same schema version, with the same content fingerprint. The refusal names what it
 *       found and writes nothing.
 *   <li>Creates the target's schema by opening a PostgreSQL store on it once (the library's own
 *       code) and records the source in {@code durable_store_migration}.
 *   <li>Copies {@code events}, then {@code timers}, then {@code outbox}, each in batches of
 *       {@link #batchSize()} rows in primary-key order, each batch in one transaction. A run that
 *       resumes an interrupted one starts each table after the last key on the target; a row that
 *       is there already is left as it is ({@code ON CONFLICT DO NOTHING}), so a batch
 *       half-copied before an interruption is harmless.
 *   <li>Verifies ({@link #verify()}): per workflow its head, its events and a checksum of its
 *       history's bytes; the outbox rows of each status; the timers. When it finds no mismatch it
 *       marks the migration complete.
 * </ol>
 *
 * <p>Stop every application and dispatcher using the file before a run (docs/migration.md): the
 * copy is of the moment the run started, and a write after it is not in the copy. Nothing is
 * written to the source beyond what opening it as a store does.
 *
 * <p>Threads: the file is read on a thread of the run's own (blocking JDBC), PostgreSQL is written
 * through R2DBC; the caller's thread is never blocked.
 */
public final class SqliteToPostgresMigration {

    /** The batch size unless {@link #withBatchSize} sets one: rows per insert transaction. */
    public static final int DEFAULT_BATCH_SIZE = 1_000;

    /** The largest batch size {@link #withBatchSize} takes. */
    public static final int MAX_BATCH_SIZE = 100_000;

    private final Path source;
    private final ConnectionFactory target;
    private final int batchSize;
    private final Consumer<MigrationProgress> progress;

    private SqliteToPostgresMigration(
            Path source, ConnectionFactory target, int batchSize, Consumer<MigrationProgress> progress) {
        this.source = source;
        this.target = target;
        this.batchSize = batchSize;
        this.progress = progress;
    }

    /**
     * @param sqliteFile the store's SQLite file
     * @return the first half of a migration; {@link Source#to} names the target
     * @throws InvalidArgumentException naming {@code sqliteFile} when null
     */
    public static Source from(Path sqliteFile) {
        return new Source(InvalidArgumentException.requireNonNull(sqliteFile, "sqliteFile"));
    }

    /** A migration's source, waiting for its target. */
    public static final class Source {
        private final Path file;

        private Source(Path file) {
            this.file = file;
        }

        /**
         * @param target the PostgreSQL database: the connection factory of the database and schema
         *     (its {@code search_path}) the application will use; the migration takes one
         *     connection for its run, and opening a store on it to create the schema takes more
         * @return the migration, with batches of {@value #DEFAULT_BATCH_SIZE} rows and no progress
         *     reports
         * @throws InvalidArgumentException naming {@code target} when null
         */
        public SqliteToPostgresMigration to(ConnectionFactory target) {
            return new SqliteToPostgresMigration(
                    file, InvalidArgumentException.requireNonNull(target, "target"), DEFAULT_BATCH_SIZE, p -> {});
        }
    }

    /** @return the source file, as given */
    public Path source() {
        return source;
    }

    /** @return the target */
    public ConnectionFactory target() {
        return target;
    }

    /** @return rows per insert transaction */
    public int batchSize() {
        return batchSize;
    }

    /**
     * @param value rows per insert transaction, 1 to {@value #MAX_BATCH_SIZE}
     * @return a copy with that batch size
     * @throws InvalidArgumentException naming {@code batchSize} when out of range
     */
    public SqliteToPostgresMigration withBatchSize(int value) {
        return new SqliteToPostgresMigration(
                source,
                target,
                InvalidArgumentException.requireBetween(value, 1, MAX_BATCH_SIZE, "batchSize"),
                progress);
    }

    /**
     * @param value receives the progress after each batch and when the verification starts, on the
     *     run's threads: it must return quickly and not block (print, log, count); an exception it
     *     throws fails the run
     * @return a copy that reports to it
     * @throws InvalidArgumentException naming {@code progress} when null
     */
    public SqliteToPostgresMigration withProgress(Consumer<MigrationProgress> value) {
        return new SqliteToPostgresMigration(
                source, target, batchSize, InvalidArgumentException.requireNonNull(value, "progress"));
    }

    /**
     * Runs the migration (see the class comment).
     *
     * @return a cold Mono: each subscription runs it once and completes with its report, whose
     *     {@link MigrationReport#verified()} says whether the copy equals the source. It signals
     *     {@link InvalidArgumentException} naming {@code sqliteFile} when no file is there, naming
     *     {@code target} when the target holds data and no migration of this source (nothing is
     *     written then); {@link dev.durablestore.api.SchemaVersionException} when the file or the
     *     database records a newer schema version than this library's; {@link BackendException}
     *     when either cannot be read or written. Cancelling it stops the copy after the batch in
     *     flight, which is rolled back; a later run of the same source resumes.
     */
    public Mono<MigrationReport> run() {
        return Mono.usingWhen(Mono.fromCallable(Run::new), Run::migrate, Run::close);
    }

    /**
     * Compares the target with the source as a run's last step does, without copying: per workflow
     * its head, its events and the checksum of its history; the outbox rows of each status; the
     * timers. Reads only (beyond opening the source as a store).
     *
     * @return a cold Mono of the comparison; it signals the errors of {@link #run()} other than the
     *     refusal of a target that holds data
     */
    public Mono<MigrationVerification> verify() {
        return Mono.usingWhen(Mono.fromCallable(Run::new), Run::verifyOnly, Run::close);
    }

    @Override
    public String toString() {
        return "SqliteToPostgresMigration[from " + source + ", batches of " + batchSize + "]";
    }

    /** One subscription's run: the source thread, the source's snapshot and the target connection. */
    private final class Run {
        private final Scheduler sourceThread = Schedulers.newSingle("durable-store-migration-source");
        private final long started = System.nanoTime();
        private final AtomicReference<SqliteSource> sqlite = new AtomicReference<>();

        /** Runs blocking work on the source thread. */
        private <T> Mono<T> onSource(Callable<T> work) {
            return Mono.fromCallable(work).subscribeOn(sourceThread);
        }

        private <T> Mono<T> read(SqlWork<T> work) {
            return onSource(() -> {
                try {
                    return work.apply(sqlite.get());
                } catch (SQLException e) {
                    throw new BackendException(
                            "cannot read SQLite file " + sqlite.get().file() + ": " + e.getMessage(), e);
                }
            });
        }

        private Mono<SqliteSource> openSource() {
            return onSource(() -> {
                SqliteSource opened = SqliteSource.open(source);
                sqlite.set(opened);
                return opened;
            });
        }

        private <T> Mono<T> withTarget(Function<PostgresTarget, Mono<T>> work) {
            return Mono.usingWhen(
                    Mono.from(target.create())
                            .onErrorMap(
                                    e -> !(e instanceof BackendException),
                                    e -> new BackendException(
                                            "cannot connect to the target database: " + e.getMessage(), e)),
                    (Connection c) -> work.apply(new PostgresTarget(c)),
                    Connection::close);
        }

        Mono<MigrationReport> migrate() {
            return openSource()
                    .then(read(s -> new Identity(
                            new Marker(s.file().toString(), s.schemaVersion(), fingerprint(s.contentSummary()), false),
                            counts(s))))
                    .flatMap(identity -> withTarget(t -> migrate(t, identity)));
        }

        Mono<MigrationVerification> verifyOnly() {
            return openSource().then(withTarget(this::verification));
        }

        private Mono<MigrationReport> migrate(PostgresTarget t, Identity identity) {
            return t.tryLock()
                    .flatMap(locked -> locked
                            ? migrateLocked(t, identity)
                            : Mono.error(new InvalidArgumentException(
                                    "target",
                                    "another migration into this schema is running (it holds the schema's advisory lock);"
                                            + " run one at a time (nothing was written)")));
        }

        private Mono<MigrationReport> migrateLocked(PostgresTarget t, Identity identity) {
            return t.marker()
                    .map(Optional::of)
                    .defaultIfEmpty(Optional.empty())
                    .zipWith(t.tablesWithRows())
                    .flatMap(found -> {
                        Optional<Marker> marker = found.getT1();
                        List<Table> withRows = found.getT2();
                        if (marker.isPresent() && !marker.get().sameSource(identity.marker())) {
                            return Mono.error(new InvalidArgumentException(
                                    "target",
                                    "holds a migration of another source: " + marker.get() + "; this source is "
                                            + identity.marker() + ". Migrate into an empty database or schema, or"
                                            + " drop its tables events, timers, outbox and "
                                            + PostgresTarget.MARKER_TABLE + " to start over (nothing was written)"));
                        }
                        if (marker.isEmpty() && !withRows.isEmpty()) {
                            return Mono.error(new InvalidArgumentException(
                                    "target",
                                    "holds data (rows in " + names(withRows) + ") and no migration of "
                                            + identity.marker() + ": a migration fills an empty store only, or"
                                            + " resumes its own copy (nothing was written)"));
                        }
                        boolean resumed = marker.isPresent();
                        Mono<Void> prepared = createSchema()
                                .then(resumed ? Mono.empty() : t.recordMarker(identity.marker(), epochNanos()));
                        Mono<Map<Table, Long>> there = resumed ? t.counts() : Mono.just(zeros());
                        return prepared.then(there)
                                .flatMap(before -> copyAll(t, identity, before)
                                        .flatMap(copied -> verification(t)
                                                .flatMap(v -> (v.verified()
                                                                ? t.markCompleted(epochNanos())
                                                                : Mono.<Void>empty())
                                                        .thenReturn(new MigrationReport(
                                                                Path.of(identity.marker()
                                                                        .source()),
                                                                identity.marker()
                                                                        .fingerprint(),
                                                                resumed,
                                                                copied.counts().get(Table.EVENTS),
                                                                copied.counts().get(Table.TIMERS),
                                                                copied.counts().get(Table.OUTBOX),
                                                                before.values().stream()
                                                                        .mapToLong(Long::longValue)
                                                                        .sum(),
                                                                copied.time(),
                                                                v)))));
                    });
        }

        /** The target's schema, made by the library's own code: a PostgreSQL store opened once. */
        private Mono<Void> createSchema() {
            return R2dbcStoreConfig.of(target).withNotifications(false).open().flatMap(store -> store.closeAsync());
        }

        private Mono<Copied> copyAll(PostgresTarget t, Identity identity, Map<Table, Long> before) {
            long copyStart = System.nanoTime();
            Map<Table, Long> copied = new EnumMap<>(Table.class);
            return Flux.fromArray(Table.values())
                    .concatMap(table -> copy(t, table, identity.counts().get(table), before.get(table))
                            .doOnNext(n -> copied.put(table, n)))
                    .then(Mono.fromCallable(() -> new Copied(copied, Duration.ofNanos(System.nanoTime() - copyStart))));
        }

        private Mono<Long> copy(PostgresTarget t, Table table, long total, long already) {
            int keyColumns = table.key().size();
            return t.lastKey(table)
                    .map(Optional::of)
                    .defaultIfEmpty(Optional.empty())
                    .flatMap(last -> {
                        AtomicReference<Object[]> after = new AtomicReference<>(last.orElse(null));
                        AtomicLong done = new AtomicLong(already);
                        // reads run ahead of the inserts by one batch: the file is read while
                        // PostgreSQL commits the batch before
                        return read(s -> {
                                    List<Object[]> rows = s.batch(table, after.get(), batchSize);
                                    if (!rows.isEmpty()) {
                                        after.set(Arrays.copyOf(rows.get(rows.size() - 1), keyColumns));
                                    }
                                    return rows;
                                })
                                .repeat()
                                .takeWhile(rows -> !rows.isEmpty())
                                .concatMap(
                                        rows -> t.insert(table, rows)
                                                .doOnNext(inserted -> progress.accept(new MigrationProgress(
                                                        phase(table),
                                                        done.addAndGet(inserted),
                                                        Math.max(total, done.get()),
                                                        elapsed()))),
                                        1)
                                .reduce(0L, Long::sum);
                    });
        }

        private Mono<MigrationVerification> verification(PostgresTarget t) {
            return Mono.fromRunnable(
                            () -> progress.accept(new MigrationProgress(MigrationPhase.VERIFY, 0, 0, elapsed())))
                    .then(read(s -> new SourceFacts(s.histories(), s.outboxByStatus(), s.count(Table.TIMERS))))
                    .flatMap(facts -> {
                        Mismatches found = new Mismatches();
                        Map<String, HistoryDigest> histories = facts.histories();
                        long workflows = histories.size();
                        return t.histories((id, copy) -> {
                                    HistoryDigest original = histories.remove(id);
                                    if (original == null) {
                                        found.add("workflow " + id + ": on the target only (" + copy + ")");
                                    } else if (!original.sameAs(copy)) {
                                        found.add("workflow " + id + ": the source holds " + original + "; the target "
                                                + copy);
                                    }
                                })
                                .then(Mono.defer(() -> {
                                    new TreeSet<>(histories.keySet())
                                            .forEach(id -> found.add("workflow " + id + ": missing on the target (the"
                                                    + " source holds " + histories.get(id) + ")"));
                                    return t.outboxByStatus();
                                }))
                                .flatMap(copyStatuses -> {
                                    TreeSet<String> statuses =
                                            new TreeSet<>(facts.outbox().keySet());
                                    statuses.addAll(copyStatuses.keySet());
                                    for (String status : statuses) {
                                        long a = facts.outbox().getOrDefault(status, 0L);
                                        long b = copyStatuses.getOrDefault(status, 0L);
                                        if (a != b) {
                                            found.add("outbox rows " + status + ": " + a + " in the source, " + b
                                                    + " on the target");
                                        }
                                    }
                                    return t.count(Table.TIMERS);
                                })
                                .map(timers -> {
                                    if (timers != facts.timers()) {
                                        found.add("timers: " + facts.timers() + " in the source, " + timers
                                                + " on the target");
                                    }
                                    long outboxRows = facts.outbox().values().stream()
                                            .mapToLong(Long::longValue)
                                            .sum();
                                    return new MigrationVerification(
                                            workflows, outboxRows, facts.timers(), found.listed, found.count);
                                });
                    });
        }

        private Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - started);
        }

        Mono<Void> close() {
            return Mono.<Void>fromRunnable(() -> {
                        SqliteSource s = sqlite.getAndSet(null);
                        if (s != null) {
                            s.close();
                        }
                    })
                    // after the read in flight, if any: the source thread runs one task at a time
                    .subscribeOn(sourceThread)
                    .doFinally(signal -> sourceThread.dispose());
        }
    }

    /** A read of the source that may fail with {@link SQLException}. */
    @FunctionalInterface
    private interface SqlWork<T> {
        T apply(SqliteSource source) throws SQLException;
    }

    /** The source's identity on the target and its rows per table. */
    private record Identity(Marker marker, Map<Table, Long> counts) {}

    /** What a run's copy inserted per table, and how long it took. */
    private record Copied(Map<Table, Long> counts, Duration time) {}

    /** What the verification reads of the source. */
    private record SourceFacts(Map<String, HistoryDigest> histories, Map<String, Long> outbox, long timers) {}

    /** The mismatches found: the first {@link MigrationVerification#MAX_LISTED}, and how many. */
    private static final class Mismatches {
        private final List<String> listed = new ArrayList<>();
        private long count;

        void add(String mismatch) {
            count++;
            if (listed.size() < MigrationVerification.MAX_LISTED) {
                listed.add(mismatch);
            }
        }
    }

    private static Map<Table, Long> counts(SqliteSource s) throws SQLException {
        Map<Table, Long> counts = new EnumMap<>(Table.class);
        for (Table t : Table.values()) {
            counts.put(t, s.count(t));
        }
        return counts;
    }

    private static Map<Table, Long> zeros() {
        Map<Table, Long> zeros = new EnumMap<>(Table.class);
        for (Table t : Table.values()) {
            zeros.put(t, 0L);
        }
        return zeros;
    }

    private static MigrationPhase phase(Table table) {
        return switch (table) {
            case EVENTS -> MigrationPhase.EVENTS;
            case TIMERS -> MigrationPhase.TIMERS;
            case OUTBOX -> MigrationPhase.OUTBOX;
        };
    }

    private static String names(List<Table> tables) {
        return String.join(", ", tables.stream().map(Table::sqlName).toList());
    }

    private static String fingerprint(String contentSummary) {
        try {
            byte[] digest =
                    MessageDigest.getInstance("SHA-256").digest(contentSummary.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static long epochNanos() {
        java.time.Instant now = java.time.Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SqliteToPostgresMigration m
                && source.equals(m.source)
                && target.equals(m.target)
                && batchSize == m.batchSize
                && progress.equals(m.progress);
    }

    @Override
    public int hashCode() {
        return Objects.hash(source, target, batchSize, progress);
    }
}

package dev.durablestore.sqlite;

import dev.durablestore.api.BackendException;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.StoreClosedException;
import dev.durablestore.core.AbstractReactiveStore;
import dev.durablestore.sqlite.internal.Backend;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * The embedded store: one SQLite file, one writer with group commit, a bounded pool of read-only
 * connections.
 *
 * <p>Every mutation is a command queued to the single writer, which owns the only write
 * connection. The writer takes every waiting command (up to
 * {@link SqliteStoreConfig#maxBatchCommands()}), runs them in one {@code BEGIN IMMEDIATE}
 * transaction and commits once; each subscriber is signalled only after that commit returned.
 * Reads run on the store's own reader threads against WAL snapshots. No JDBC call runs on a
 * caller's thread or on Reactor's schedulers.
 *
 * <p><b>Where results arrive.</b> Read results are emitted on the store's
 * {@code durable-store-emit} threads. Write results are signalled by the writer thread that
 * committed them, at once: the writer has two threads ({@code durable-store-writer-<name>-1} and
 * {@code -2}), one at a time holding the connection, and while one runs subscribers' code a command
 * submitted from any other thread makes the other one the writer, so downstream operators never
 * hold up the queue. All of these threads are non-blocking for subscribers' code: Reactor refuses
 * {@code block()} on them, and BlockHound, when installed, checks that code there (the writer's own
 * statements and waits are declared to it). Move slow or blocking downstream work elsewhere with
 * {@code publishOn}.
 *
 * <pre>{@code
 * try (SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(Path.of("app.db")))) {
 *     store.appendWithOutbox(workflowId, events, 0, rows).block();
 * }
 * }</pre>
 */
public final class SqliteReactiveStore extends AbstractReactiveStore {

    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final Backend backend;

    private SqliteReactiveStore(Backend backend) {
        super(backend.storage(), backend.wakeups(), backend.clock());
        this.backend = backend;
    }

    /**
     * Opens (creating when missing) the database file, checks the schema version it records, applies
     * pragmas, schema and migrations (S6–S9, S16–S20, S29), and starts the writer and readers.
     *
     * @param config the configuration
     * @return the open store
     * @throws dev.durablestore.api.SchemaVersionException when the file records a newer schema
     *     version than this library's (S29); nothing is written to the file
     * @throws BackendException when the file cannot be opened or migrated
     */
    public static SqliteReactiveStore open(SqliteStoreConfig config) {
        InvalidArgumentException.requireNonNull(config, "config");
        return new SqliteReactiveStore(Backend.open(config, String.valueOf(INSTANCES.incrementAndGet())));
    }

    /**
     * Writes a consistent copy of the store's file to {@code target} while the store goes on: appends,
     * claims, settles and reads run as usual during the backup (S30).
     *
     * <p>The copy is the snapshot of one moment after subscription: it holds every write acknowledged
     * before this Mono was subscribed, and of the writes acknowledged while it runs, those committed
     * before its snapshot began. It is taken by {@code VACUUM INTO} on a read-only connection of its
     * own, which holds one read transaction and never the write lock, so the writer keeps committing;
     * the write-ahead log cannot be checkpointed past that snapshot meanwhile, so it grows by what is
     * written during the backup. The copy goes to a new file in the target's directory, named
     * {@code <target name>.<digits>.partial}, is checked with {@code PRAGMA integrity_check}, synced
     * to disk, linked to {@code target} (a hard link, which fails atomically when a file is there)
     * and its directory synced; only then is this Mono signalled. The target name holds nothing
     * until then and never replaces a file: a process
     * killed during a backup leaves at most a {@code .partial} file, never a file at the target name.
     * A backup that fails, is cancelled or is stopped by {@link #close()} deletes its partial copy.
     *
     * <p>The copy is a compact single file (rollback journal, no {@code -wal} to carry along, owner
     * read and write permissions only); restore it by stopping the application and putting it in
     * place of the store's file, with no {@code -wal} or {@code -shm} file of the old one beside it
     * ({@code docs/operations.md}). Backups run one at a time on the store's own backup thread
     * ({@code durable-store-backup-<name>}); a second waits for the first. Nothing blocks the caller's
     * thread; the result is signalled on the store's emit threads (the refusals found before the copy
     * starts, on the subscribing thread). Backups need the default journal mode, WAL: in the
     * rollback-journal modes a reader stops every write for as long as it reads.
     *
     * @param target where the copy goes: a file that does not exist, in a directory that does
     * @return a cold Mono: subscribing starts the backup; it completes with the copy once it is at
     *     {@code target}, checked and synced. It signals {@link InvalidArgumentException} naming
     *     {@code target} when it is null, when a file (or link) is at {@code target} (that file is
     *     left as it was) or its directory does not exist, and naming {@code journalMode} when the
     *     store does not run in WAL; {@link StoreClosedException} when the store
     *     is closed, or closes while the backup runs; {@link BackendException} when the copy cannot be
     *     written (an unwritable directory, a full disk) or fails its integrity check. Cancelling the
     *     subscription stops the backup.
     */
    public Mono<BackupResult> backup(Path target) {
        return backend.backup(target).map(c -> new BackupResult(c.target(), c.sizeBytes(), c.duration()));
    }

    /** @return commands waiting for the writer thread (a gauge for metrics) */
    public int writerQueueDepth() {
        return backend.writerQueueDepth();
    }

    /**
     * Once the claim streams have ended: stops a running backup and refuses queued ones (each fails
     * with {@link StoreClosedException} and deletes its partial copy), answers queued reads with
     * {@link StoreClosedException}, lets every queued write finish (waiting up to 30 s), then closes
     * the write connection and the store's threads.
     */
    @Override
    protected Mono<Void> closeStorage() {
        return backend.closeStorage();
    }

    @Override
    protected StoreClosedException streamsClosedError() {
        return backend.streamsClosedError();
    }

    @Override
    public String toString() {
        return backend.toString();
    }
}

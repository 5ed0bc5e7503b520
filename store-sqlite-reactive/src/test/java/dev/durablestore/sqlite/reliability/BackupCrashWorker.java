package dev.durablestore.sqlite.reliability;

import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * The process {@link BackupCrashTest} kills: it takes one backup after another while it appends
 * with outbox rows and a claim stream completes what it claims, and prints one line per
 * acknowledged success, only after the store's {@code Mono} succeeded:
 *
 * <ul>
 *   <li>{@code APPEND <workflow> <newHead> #} — an {@code appendWithOutbox} committed;
 *   <li>{@code DONE <key> #} — {@code complete} of a claimed row committed;
 *   <li>{@code BACKUP <target> #} — printed right before the backup to {@code target} is subscribed,
 *       so every line above it was acknowledged before that backup began;
 *   <li>{@code BACKED-UP <target> #} — that backup completed;
 *   <li>{@code ERROR <message> #} — something failed that should not have (the test fails).
 * </ul>
 *
 * <p>Arguments: database path, backup directory. Never exits on its own: the parent kills it.
 */
public final class BackupCrashWorker {

    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
    private static final int APPENDERS = 8;

    private BackupCrashWorker() {}

    public static void main(String[] args) throws InterruptedException {
        SqliteReactiveStore store = SqliteReactiveStore.open(SqliteStoreConfig.of(Path.of(args[0])));
        Path backups = Path.of(args[1]);
        // never closed: the parent kills this process with SIGKILL

        for (int a = 0; a < APPENDERS; a++) {
            WorkflowId w = WorkflowId.random();
            long[] head = {0};
            Mono.defer(() -> {
                        long first = head[0] + 1;
                        int rows = ThreadLocalRandom.current().nextInt(3);
                        Instant now = Instant.now();
                        return store.appendWithOutbox(
                                        w,
                                        Reliability.batchEvents(w, first, 1, rows, now),
                                        first - 1,
                                        Reliability.batchRows(w, first, rows, now))
                                .doOnSuccess(v -> {
                                    head[0] = first;
                                    print("APPEND " + w + " " + first);
                                });
                    })
                    .repeat()
                    .subscribe(v -> {}, e -> print("ERROR append " + oneLine(e)));
        }

        store.claimStream(ClaimStreamOptions.defaults().withMaxBatch(16))
                .flatMap(row -> store.complete(row).doOnSuccess(v -> print("DONE " + row.dispatchKey())), 16)
                .subscribe(v -> {}, e -> print("ERROR claimStream " + oneLine(e)));

        AtomicInteger n = new AtomicInteger();
        Mono.defer(() -> {
                    Path target = backups.resolve("backup-" + n.incrementAndGet() + ".db");
                    print("BACKUP " + target);
                    return store.backup(target).doOnSuccess(r -> print("BACKED-UP " + target));
                })
                .repeat()
                .subscribe(v -> {}, e -> print("ERROR backup " + oneLine(e)));

        new CountDownLatch(1).await(); // until killed
    }

    private static String oneLine(Throwable e) {
        return e.toString().replace('\n', ' ');
    }

    /** One whole line per call; the trailing marker lets the parent drop a line cut by the kill. */
    private static void print(String line) {
        OUT.println(line + " #");
    }
}

package dev.durablestore.sqlite.internal;

import dev.durablestore.api.StoreMetrics;
import dev.durablestore.sqlite.SqliteJournalMode;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.nio.file.Path;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** A writer on a fresh WAL file (NORMAL sync) with its own emit scheduler, for the writer's tests. */
record TestWriter(Writer writer, Scheduler emit) implements AutoCloseable {

    /**
     * @param file the database file
     * @param name the writer's name (its threads are {@code durable-store-writer-<name>-1} and {@code -2})
     * @return the writer, taking commands
     */
    static TestWriter open(Path file, String name) {
        DbConnection c =
                new Connections(file, SqliteJournalMode.WAL, SqliteSynchronous.NORMAL, 1_000).openWriter(1_000, 2_000);
        Scheduler emit = Schedulers.newSingle(name + "-emit");
        return new TestWriter(new Writer(c, 512, emit, () -> {}, StoreMetrics.NONE, name), emit);
    }

    @Override
    public void close() {
        writer.close(5_000);
        emit.dispose();
    }
}

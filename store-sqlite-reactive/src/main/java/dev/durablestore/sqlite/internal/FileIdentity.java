package dev.durablestore.sqlite.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.SQLException;

/**
 * Refuses to commit when the database file is no longer the one the store opened (removed or
 * replaced). In WAL mode SQLite keeps writing to an unlinked file without an error, so without
 * this check a write would be acknowledged and then lost (E25).
 */
final class FileIdentity implements Writer.TransactionListener {

    private final Path file;
    private final Object key;

    private FileIdentity(Path file, Object key) {
        this.file = file;
        this.key = key;
    }

    /**
     * @param file the database file, just opened
     * @return a guard, or {@code null} when the file system has no file identity to compare
     */
    static FileIdentity of(Path file) {
        Object key = keyOf(file);
        return key == null ? null : new FileIdentity(file, key);
    }

    private static Object keyOf(Path file) {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public void afterBegin(DbConnection c) {}

    @Override
    public void beforeCommit() throws SQLException {
        if (!key.equals(keyOf(file))) {
            throw new SQLException("database file " + file + " was removed or replaced while the store was open");
        }
    }

    @Override
    public void afterCommit() {}

    @Override
    public void afterRollback() {}
}

package dev.durablestore.migration;

import static dev.durablestore.migration.Sources.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.migration.Table.Column;
import dev.durablestore.r2dbc.R2dbcStoreConfig;
import dev.durablestore.sqlite.SqliteReactiveStore;
import dev.durablestore.sqlite.SqliteStoreConfig;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drift guard: the migration copies every table and column each backend's schema has. A column
 * or table added to either backend and not to {@link Table} fails here, naming it.
 */
class SchemaDriftTest {

    @TempDir
    Path dir;

    @Test
    void theMigrationCopiesEveryTableAndColumnOfTheSqliteSchema() throws Exception {
        // given the schema a SQLite store creates
        Path file = dir.resolve("fresh.db");
        SqliteReactiveStore.open(SqliteStoreConfig.of(file)).close();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
            // then its tables are the migration's, and each column is copied with a fitting type
            assertThat(strings(c, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"))
                    .containsExactlyInAnyOrderElementsOf(tableNames());
            for (Table table : Table.values()) {
                List<String> columns = strings(
                        c,
                        "SELECT name || ' ' || type || ' ' || \"notnull\" FROM pragma_table_info('" + table.sqlName()
                                + "') ORDER BY cid");
                assertThat(columns)
                        .as(table.sqlName())
                        .containsExactlyInAnyOrderElementsOf(table.columns().stream()
                                .map(col -> col.name() + " " + sqliteType(col) + " " + (col.nullable() ? 0 : 1))
                                .toList());
            }
        }
    }

    @Test
    void theMigrationCopiesEveryTableAndColumnOfThePostgresSchema() {
        // given the schema a PostgreSQL store creates
        try (PgSchema pg = new PgSchema()) {
            R2dbcStoreConfig.of(pg.factory())
                    .withNotifications(false)
                    .open()
                    .flatMap(store -> store.closeAsync())
                    .block(WAIT);

            // then its tables are the migration's (and the schema version's), and each column is
            // copied with its type
            List<String> expectedTables = new ArrayList<>(tableNames());
            expectedTables.add("durable_store_schema");
            assertThat(pg.queryStrings("SELECT table_name::text FROM information_schema.tables WHERE table_schema = '"
                            + pg.name() + "'"))
                    .containsExactlyInAnyOrderElementsOf(expectedTables);
            for (Table table : Table.values()) {
                assertThat(pg.queryStrings("SELECT column_name || ' ' || data_type || ' ' || is_nullable"
                                + " FROM information_schema.columns WHERE table_schema = '" + pg.name()
                                + "' AND table_name = '" + table.sqlName() + "'"))
                        .as(table.sqlName())
                        .containsExactlyInAnyOrderElementsOf(table.columns().stream()
                                .map(col -> col.name() + " " + col.type().postgresType() + " "
                                        + (col.nullable() ? "YES" : "NO"))
                                .toList());
            }
        }
    }

    private static List<String> tableNames() {
        return Arrays.stream(Table.values()).map(Table::sqlName).toList();
    }

    /** SQLite's declared type of a column of that kind, as the store's schema declares it. */
    private static String sqliteType(Column column) {
        return switch (column.type()) {
            case TEXT -> "TEXT";
            case INTEGER, BIGINT -> "INTEGER";
            case BYTES -> "BLOB";
        };
    }

    private static List<String> strings(Connection c, String sql) throws Exception {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}

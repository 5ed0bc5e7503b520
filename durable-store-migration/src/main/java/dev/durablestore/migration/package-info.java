/**
 * Moving a store from its embedded SQLite file to PostgreSQL: {@link
 * dev.durablestore.migration.SqliteToPostgresMigration} copies every history (run chains are events
 * too), timer and outbox row with everything it carries, in batches, resumable after an
 * interruption, then compares the copy with the source ({@link
 * dev.durablestore.migration.MigrationVerification}). The cut-over is in {@code docs/migration.md}.
 *
 * <p>Every method result is to be used ({@code @CheckReturnValue}): a publisher that is built and
 * dropped does nothing, and a dropped option copy changes nothing.
 */
@CheckReturnValue
package dev.durablestore.migration;

import com.google.errorprone.annotations.CheckReturnValue;

/**
 * The {@code PG} workload of issues 6 and 17: the PostgreSQL backend ({@code store-r2dbc}) beside the
 * SQLite store on P1 and P2, claims per second with 1, 2 and 4 nodes, and in the same runs on the same
 * server the raw PostgreSQL ceilings by plain JDBC, db-scheduler as a peer and the store at several
 * pool sizes, each with its JVM and server CPU; on an embedded PostgreSQL server or the one named by
 * {@code DURABLE_STORE_PG_URL} ({@link dev.durablestore.bench.pg.PgServer}).
 */
package dev.durablestore.bench.pg;

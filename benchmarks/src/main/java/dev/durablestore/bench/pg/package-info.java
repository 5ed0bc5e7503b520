/**
 * The {@code PG} workload of issue 6: the PostgreSQL backend ({@code store-r2dbc}) beside the SQLite
 * store on P1 and P2, and claims per second with 1, 2 and 4 nodes, on an embedded PostgreSQL server
 * or the one named by {@code DURABLE_STORE_PG_URL} ({@link dev.durablestore.bench.pg.PgServer}).
 */
package dev.durablestore.bench.pg;

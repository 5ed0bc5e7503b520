/**
 * Building blocks for backend implementers (the SQLite and R2DBC backends use them): the
 * demand-driven claim stream and its in-process wake-ups. Application code should use
 * {@link dev.durablestore.api.OutboxStore#claimStream} instead.
 */
package dev.durablestore.api.spi;

/**
 * Building blocks for backend implementers (the SQLite and R2DBC backends use them): the
 * demand-driven claim stream and its in-process wake-ups, and the argument checks every backend
 * applies before a write ({@link dev.durablestore.api.spi.EventEncoder},
 * {@link dev.durablestore.api.spi.OutboxRowEncoder}, {@link dev.durablestore.api.spi.StoredText}). Application code should use
 * {@link dev.durablestore.api.OutboxStore#claimStream} instead.
 */
@CheckReturnValue
package dev.durablestore.api.spi;

import com.google.errorprone.annotations.CheckReturnValue;

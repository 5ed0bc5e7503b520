/**
 * Building blocks for backend implementers (the SQLite and R2DBC backends use them): the
 * demand-driven claim stream and its in-process wake-ups, and the argument checks every backend
 * applies before a write ({@link dev.durablestore.core.internal.EventEncoder},
 * {@link dev.durablestore.core.internal.OutboxRowEncoder}, {@link dev.durablestore.api.internal.StoredText}). Application code should use
 * {@link dev.durablestore.api.ReactiveStore#claimStream} instead.
 */
@CheckReturnValue
package dev.durablestore.core.internal;

import com.google.errorprone.annotations.CheckReturnValue;

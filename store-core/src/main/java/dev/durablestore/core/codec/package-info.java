/**
 * The JSON codec that turns {@link dev.durablestore.api.event.Event events} and
 * {@link dev.durablestore.api.Payload payloads} into the bytes a backend stores, and back (M20,
 * M25, X6).
 *
 * <p>{@link dev.durablestore.core.codec.EventCodec} is the only public type. It is thread-safe;
 * backends create one and share it. Everything it cannot encode or decode surfaces as a
 * {@link dev.durablestore.api.SerializationException}.
 */
@CheckReturnValue
package dev.durablestore.core.codec;

import com.google.errorprone.annotations.CheckReturnValue;

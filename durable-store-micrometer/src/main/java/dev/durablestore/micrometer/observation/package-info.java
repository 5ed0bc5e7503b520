/**
 * Micrometer observations of the store: {@link dev.durablestore.micrometer.observation.ObservedStore}
 * wraps any {@link dev.durablestore.api.ReactiveStore} and observes its staging, claims, settles and
 * steps, storing the trace context of the code that stages a row with the row;
 * {@link dev.durablestore.micrometer.observation.StoreObservations#dispatch} observes a dispatcher's work
 * on a claimed row inside the trace that scheduled it. Needs {@code io.micrometer:micrometer-observation}
 * on the class path (an optional dependency of durable-store).
 * {@link dev.durablestore.micrometer.observation.ClaimLinksObservationHandler} links each claim's span to
 * its rows' contexts; only it needs {@code io.micrometer:micrometer-tracing} (optional
 * too, loaded only when an application registers the handler).
 */
@CheckReturnValue
package dev.durablestore.micrometer.observation;

import com.google.errorprone.annotations.CheckReturnValue;

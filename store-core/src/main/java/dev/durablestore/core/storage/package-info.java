/**
 * The storage SPI: what a backend implements, and all it implements. Each interface is one part of
 * the store's storage (the history, timers, outbox writes, outbox reads, claims); the behaviour the
 * contract asks of every backend alike (argument checks that need no storage, claim streams,
 * settle wake-ups, the order of closing) is written once, in
 * {@link dev.durablestore.core.AbstractReactiveStore}, over these interfaces. Methods are named as
 * the {@link dev.durablestore.api.ReactiveStore} operations they store, and their contract is that
 * operation's (rule ids in each method's description). For backends; not part of the user API.
 */
@CheckReturnValue
package dev.durablestore.core.storage;

import com.google.errorprone.annotations.CheckReturnValue;

/**
 * The embedded SQLite store: {@link dev.durablestore.sqlite.SqliteReactiveStore} and its configuration.
 *
 * <p>Every method result is to be used ({@code @CheckReturnValue}): a publisher that is built
 * and dropped does nothing.
 */
@CheckReturnValue
package dev.durablestore.sqlite;

import com.google.errorprone.annotations.CheckReturnValue;

/**
 * The operator console: {@link dev.durablestore.console.DurableConsole} mounts it in a WebFlux
 * application; {@link dev.durablestore.console.ConsoleOptions} configures it.
 *
 * <p>Every method result is to be used ({@code @CheckReturnValue}): an options copy or a publisher
 * that is dropped does nothing.
 */
@CheckReturnValue
package dev.durablestore.console;

import com.google.errorprone.annotations.CheckReturnValue;

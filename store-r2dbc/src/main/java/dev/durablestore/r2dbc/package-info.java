/**
 * The R2DBC store for PostgreSQL and H2: {@link dev.durablestore.r2dbc.R2dbcReactiveStore} and its configuration.
 *
 * <p>Every method result is to be used ({@code @CheckReturnValue}): a publisher that is built
 * and dropped does nothing.
 */
@CheckReturnValue
package dev.durablestore.r2dbc;

import com.google.errorprone.annotations.CheckReturnValue;

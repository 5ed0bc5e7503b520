/**
 * The behaviour every backend's store shares, written once:
 * {@link dev.durablestore.core.AbstractReactiveStore}, which the SQLite and R2DBC stores extend,
 * over the storage SPI of {@code dev.durablestore.core.storage}. Applications use
 * {@link dev.durablestore.api.ReactiveStore}; this module is for backends.
 */
@CheckReturnValue
package dev.durablestore.core;

import com.google.errorprone.annotations.CheckReturnValue;

/**
 * The store's API.
 */
@CheckReturnValue
package dev.durablestore.api;

import com.google.errorprone.annotations.CheckReturnValue;

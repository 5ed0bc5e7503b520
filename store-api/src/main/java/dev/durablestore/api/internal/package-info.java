/**
 * Checks the API's own types share with the store modules: the text rules of every stored string
 * ({@link dev.durablestore.api.internal.StoredText}) and the claim check of a fenced settle
 * ({@link dev.durablestore.api.internal.ClaimFence}). Not API: on the module path this package is
 * exported only to the durable-store modules; on the class path it is reachable but may change in
 * any release.
 */
@CheckReturnValue
package dev.durablestore.api.internal;

import com.google.errorprone.annotations.CheckReturnValue;

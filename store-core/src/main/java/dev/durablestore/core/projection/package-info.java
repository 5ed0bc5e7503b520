/**
 * Pure-function projections over workflow histories, shared by every backend (contract group R).
 *
 * <p>{@link dev.durablestore.core.projection.HistoryProjection} derives, from one workflow's events
 * in ascending {@code seq} order, the projected status (R10, R11), the current-lease terminal and
 * end time (R18), the query summary (R24–R29), the run chain (R40–R45) and the current search
 * attributes (M19). {@link dev.durablestore.core.projection.ParentIndex} computes the one projection
 * that spans histories: a child workflow's parent (R30).
 *
 * <p>Everything here is deterministic (R17), does no I/O and keeps no state between calls; each
 * projection is a single linear pass (or a backward scan) over the events, so it suits histories of
 * hundreds of thousands of events. Only the nine workflow lifecycle kinds influence status, run
 * splitting and start or end times (M11, M12); the activity kinds are read only by the failure
 * projection (R28) and {@code ChildWorkflowStarted} only by the parent projection (R30).
 */
@CheckReturnValue
package dev.durablestore.core.projection;

import com.google.errorprone.annotations.CheckReturnValue;

package dev.durablestore.core.storage;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SerializationException;
import java.util.List;

/**
 * The outcome of one claim made for a claim stream.
 *
 * @param rows the claimed rows, in claim order (empty when {@code corrupt} is set)
 * @param corrupt set when the claim dead-lettered undecodable rows instead of claiming; reported,
 *     not thrown, so the stream can go on
 * @param nextVisibleAfterNanos the earliest {@code visible_after} (epoch nanoseconds) of the rows
 *     still pending in the stream's scope, or {@code null} when unknown or none
 */
public record ClaimBatch(List<OutboxRow> rows, SerializationException corrupt, Long nextVisibleAfterNanos) {}

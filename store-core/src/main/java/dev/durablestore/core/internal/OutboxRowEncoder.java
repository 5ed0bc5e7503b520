package dev.durablestore.core.internal;

import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.internal.StoredText;
import dev.durablestore.core.codec.EventCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * Validates outbox rows and encodes their inputs and timestamps before a write, the same way in
 * every backend: a bad row is refused with {@link InvalidArgumentException} naming the argument
 * ({@code rows[3].claimedAt}) before anything is written. Its key, route and activity type must
 * be {@linkplain StoredText storable} ({@code rows[3].dispatchKey}).
 */
public final class OutboxRowEncoder {

    private final EventCodec codec;

    /** @param codec encodes row inputs */
    public OutboxRowEncoder(EventCodec codec) {
        this.codec = InvalidArgumentException.requireNonNull(codec, "codec");
    }

    /**
     * Rows to stage as given (O6, OQ-10, S15): {@code claimedAt} must be present exactly when the
     * status is {@code CLAIMED}.
     *
     * @param rows the rows
     * @param argument the argument name to report
     * @return the encoded rows, in list order
     */
    public List<Encoded> forStaging(List<OutboxRow> rows, String argument) {
        return each(rows, argument, (row, name) -> {
            boolean claimed = row.status() == OutboxStatus.CLAIMED;
            if (claimed != (row.claimedAt() != null)) {
                throw new InvalidArgumentException(
                        name + ".claimedAt",
                        "must be present exactly when status is "
                                + "CLAIMED (O6); row " + row.dispatchKey() + " has status " + row.status()
                                + " and claimedAt " + row.claimedAt());
            }
            return encode(row, name);
        });
    }

    /**
     * Rows to re-arm (O12–O15): each as a pending row, whatever status and claim it carries.
     *
     * @param rows the rows
     * @param argument the argument name to report
     * @return the encoded rows, in list order
     */
    public List<Encoded> forRearm(List<OutboxRow> rows, String argument) {
        return each(rows, argument, (row, name) -> encode(row.withStatus(OutboxStatus.PENDING, null), name));
    }

    /** Checks the list and each row for null, naming it ({@code rows[3]}), and encodes each row. */
    private static List<Encoded> each(
            List<OutboxRow> rows, String argument, BiFunction<OutboxRow, String, Encoded> encodeOne) {
        InvalidArgumentException.requireNonNull(rows, argument);
        List<Encoded> encoded = new ArrayList<>(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            String name = argument + "[" + i + "]";
            encoded.add(encodeOne.apply(InvalidArgumentException.requireNonNull(rows.get(i), name), name));
        }
        return encoded;
    }

    private Encoded encode(OutboxRow row, String name) {
        StoredText.require(row.dispatchKey(), name + ".dispatchKey");
        StoredText.require(row.namespace(), name + ".namespace");
        StoredText.require(row.taskQueue(), name + ".taskQueue");
        StoredText.require(row.node(), name + ".node");
        StoredText.require(row.activityType(), name + ".activityType");
        long visibleAfter = EpochNanos.of(row.visibleAfter(), name + ".visibleAfter");
        Long claimedAt = row.claimedAt() == null ? null : EpochNanos.of(row.claimedAt(), name + ".claimedAt");
        return new Encoded(row, codec.encodePayload(row.input()), visibleAfter, claimedAt);
    }

    /**
     * A row with its encoded input and timestamps, ready for insertion.
     *
     * @param row the row
     * @param input its input, encoded
     * @param visibleAfterNanos {@code visibleAfter} in epoch nanoseconds
     * @param claimedAtNanos {@code claimedAt} in epoch nanoseconds, or {@code null}
     */
    public record Encoded(OutboxRow row, byte[] input, long visibleAfterNanos, Long claimedAtNanos) {}
}

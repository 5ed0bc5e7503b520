package dev.durablestore.migration;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What the verification compares of one history on each side: its events, its last sequence (its
 * head) and a checksum of its bytes. The checksum is the SHA-256 of the SHA-256 of each event's
 * bytes in sequence order, which PostgreSQL computes itself
 * ({@code sha256(string_agg(sha256(event), '' ORDER BY seq))}), so no history travels back.
 *
 * @param events the events
 * @param head the last sequence
 * @param checksum the checksum
 */
record HistoryDigest(long events, long head, byte[] checksum) {

    /** The PostgreSQL expression of {@link #checksum}, over the events of one group. */
    static final String POSTGRES_CHECKSUM = "sha256(string_agg(sha256(event), ''::bytea ORDER BY seq))";

    /** @return the checksum in hex */
    String checksumHex() {
        return HexFormat.of().formatHex(checksum);
    }

    /**
     * @param other the other side's digest
     * @return true when both hold the same events, head and checksum
     */
    boolean sameAs(HistoryDigest other) {
        return events == other.events && head == other.head && Arrays.equals(checksum, other.checksum);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HistoryDigest d && sameAs(d);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(events) * 31 + Long.hashCode(head) * 17 + Arrays.hashCode(checksum);
    }

    @Override
    public String toString() {
        return events + " events, head " + head + ", checksum " + checksumHex();
    }

    /** Adds one history's events in sequence order. */
    static final class Builder {
        private final MessageDigest outer = sha256();
        private final MessageDigest inner = sha256();
        private long events;
        private long head;

        /**
         * @param seq the event's sequence, the largest so far
         * @param event its bytes
         */
        void add(long seq, byte[] event) {
            outer.update(inner.digest(event));
            events++;
            head = seq;
        }

        /** @return the digest */
        HistoryDigest build() {
            return new HistoryDigest(events, head, outer.digest());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}

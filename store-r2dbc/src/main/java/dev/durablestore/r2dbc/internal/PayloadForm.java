package dev.durablestore.r2dbc.internal;

import java.nio.charset.StandardCharsets;

/**
 * How the payload bytes of a statement's rows travel ({@link ArrayRelation}): payload bytes that
 * are all 7-bit ASCII without NUL (the store's JSON codec writes nothing else, escaping the rest)
 * travel as {@code text} and are turned back into the same bytes by {@code convert_to}; anything
 * else travels as {@code bytea}, which r2dbc-postgresql sends as hex digits (two characters per
 * byte, written one by one: a sixth of the JVM's time in a group of 64 plain appends). Each form
 * has its own statement text, so the server prepares each once per connection.
 */
enum PayloadForm {
    /** The bytes as {@code bytea}. */
    BYTEA,
    /** The bytes as {@code text}, one character per byte: only for {@linkplain #ascii ASCII} bytes. */
    TEXT;

    /**
     * @param marker the payload's marker
     * @return the expression of the payload's bytes; text is turned into bytes once per statement
     *     (an init plan), as a cut of text would scan it from its start for every value in a
     *     multi-byte server encoding
     */
    String bytes(String marker) {
        return this == TEXT ? "(SELECT convert_to(" + marker + "::text, 'UTF8'))" : marker + "::bytea";
    }

    /**
     * @param bytes a payload, {@linkplain #ascii ASCII} for {@link #TEXT}
     * @return the value to bind for it in this form
     */
    Object value(byte[] bytes) {
        return this == TEXT ? new String(bytes, StandardCharsets.ISO_8859_1) : bytes;
    }

    /** @return true when every byte is 7-bit ASCII other than NUL: text that means exactly these bytes */
    static boolean ascii(byte[] bytes) {
        for (byte b : bytes) {
            if (b <= 0) {
                return false;
            }
        }
        return true;
    }
}

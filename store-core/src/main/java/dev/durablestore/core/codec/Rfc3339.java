package dev.durablestore.core.codec;

import dev.durablestore.api.SerializationException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * RFC 3339 timestamps. Writes the fixed-width UTC form {@code yyyy-MM-ddTHH:mm:ss.nnnnnnnnnZ}
 * (exactly nine fraction digits, S10); reads any RFC 3339 date-time and normalises it to UTC (S12).
 */
final class Rfc3339 {

    /** Length of the fixed-width form written by {@link #format}. */
    static final int LENGTH = 30;

    /** 0000-01-01T00:00:00Z, the first second a four-digit year can express. */
    private static final long MIN_SECOND = -62_167_219_200L;
    /** 9999-12-31T23:59:59Z, the last second a four-digit year can express. */
    private static final long MAX_SECOND = 253_402_300_799L;

    private static final int SECONDS_PER_DAY = 86_400;

    private Rfc3339() {}

    /**
     * @param instant the instant
     * @return its fixed-width UTC text, {@link #LENGTH} characters
     * @throws SerializationException when the instant falls outside the years 0000 to 9999
     */
    static char[] format(Instant instant) {
        long second = instant.getEpochSecond();
        if (second < MIN_SECOND || second > MAX_SECOND) {
            throw new SerializationException(
                    "cannot encode instant " + instant + ": RFC 3339 covers only the years 0000 to 9999");
        }
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(second, SECONDS_PER_DAY));
        int secondOfDay = (int) Math.floorMod(second, SECONDS_PER_DAY);
        char[] out = new char[LENGTH];
        digits(out, 0, date.getYear(), 4);
        out[4] = '-';
        digits(out, 5, date.getMonthValue(), 2);
        out[7] = '-';
        digits(out, 8, date.getDayOfMonth(), 2);
        out[10] = 'T';
        digits(out, 11, secondOfDay / 3600, 2);
        out[13] = ':';
        digits(out, 14, secondOfDay / 60 % 60, 2);
        out[16] = ':';
        digits(out, 17, secondOfDay % 60, 2);
        out[19] = '.';
        digits(out, 20, instant.getNano(), 9);
        out[29] = 'Z';
        return out;
    }

    /**
     * Parses an RFC 3339 {@code date-time}: {@code T}, {@code t} or a space between date and time,
     * any number of fraction digits (digits beyond the ninth are dropped), and {@code Z}, {@code z} or
     * a numeric offset. A leap second ({@code :60}) is not representable and is rejected.
     *
     * @param text the text
     * @return the instant, or {@code null} when the text is not a valid RFC 3339 date-time
     */
    static Instant parse(String text) {
        int length = text.length();
        if (length < 20
                || text.charAt(4) != '-'
                || text.charAt(7) != '-'
                || !isDateTimeSeparator(text.charAt(10))
                || text.charAt(13) != ':'
                || text.charAt(16) != ':') {
            return null;
        }
        int year = number(text, 0, 4);
        int month = number(text, 5, 2);
        int day = number(text, 8, 2);
        int hour = number(text, 11, 2);
        int minute = number(text, 14, 2);
        int second = number(text, 17, 2);
        if (year < 0
                || month < 0
                || day < 0
                || hour < 0
                || hour > 23
                || minute < 0
                || minute > 59
                || second < 0
                || second > 59) {
            return null;
        }
        int pos = 19;
        int nano = 0;
        if (text.charAt(pos) == '.') {
            pos++;
            int start = pos;
            while (pos < length && isDigit(text.charAt(pos))) {
                if (pos - start < 9) {
                    nano = nano * 10 + (text.charAt(pos) - '0');
                }
                pos++;
            }
            int count = pos - start;
            if (count == 0) {
                return null;
            }
            for (int i = count; i < 9; i++) {
                nano *= 10;
            }
        }
        if (pos >= length) {
            return null;
        }
        int offsetSeconds;
        char zone = text.charAt(pos);
        if (zone == 'Z' || zone == 'z') {
            if (pos + 1 != length) {
                return null;
            }
            offsetSeconds = 0;
        } else if (zone == '+' || zone == '-') {
            if (pos + 6 != length || text.charAt(pos + 3) != ':') {
                return null;
            }
            int offsetHour = number(text, pos + 1, 2);
            int offsetMinute = number(text, pos + 4, 2);
            if (offsetHour < 0 || offsetHour > 23 || offsetMinute < 0 || offsetMinute > 59) {
                return null;
            }
            offsetSeconds = (offsetHour * 3600 + offsetMinute * 60) * (zone == '-' ? -1 : 1);
        } else {
            return null;
        }
        long epochDay;
        try {
            epochDay = LocalDate.of(year, month, day).toEpochDay();
        } catch (DateTimeException e) {
            return null;
        }
        long epochSecond = epochDay * SECONDS_PER_DAY + hour * 3600L + minute * 60L + second - offsetSeconds;
        return Instant.ofEpochSecond(epochSecond, nano);
    }

    private static boolean isDateTimeSeparator(char c) {
        return c == 'T' || c == 't' || c == ' ';
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** @return the decimal value of {@code count} digits at {@code start}, or -1 if one is not a digit */
    private static int number(String text, int start, int count) {
        int value = 0;
        for (int i = start; i < start + count; i++) {
            char c = text.charAt(i);
            if (!isDigit(c)) {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    private static void digits(char[] out, int start, int value, int count) {
        for (int i = start + count - 1; i >= start; i--) {
            out[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }
}

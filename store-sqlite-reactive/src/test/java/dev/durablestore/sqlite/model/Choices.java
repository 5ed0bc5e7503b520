package dev.durablestore.sqlite.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The random decisions one generated step makes, recorded as a list of small non-negative ints so
 * that {@link SequenceRunner} can replay the step on a fresh store and simplify it.
 *
 * <p>Every {@link Gen} draws its randomness from {@link #draw(int)}. When generating, the values come
 * from a seeded {@link SplittableRandom}; when replaying, they come from a recorded array. A
 * generator maps a smaller draw to a simpler value (0 is the simplest), so lowering a recorded
 * value simplifies the parameter it decides, and {@link Gen#list} marks each list element as a span
 * that the shrinker may cut out. A replay is lenient: a recorded value that is out of range for the
 * bound asked for is clamped, and a replay that runs past the recorded values draws 0. What a
 * replay actually drew is recorded again ({@link #recorded()}), so a simplified step is stored in
 * its normal form.
 */
final class Choices {

    /** The recorded draws of one step, and the spans {@code [start, end)} of its list elements. */
    record Recorded(int[] values, List<Span> spans) {

        /** @return the same draws without {@code [span.start, span.end)} */
        int[] without(Span span) {
            int[] out = new int[values.length - (span.end() - span.start())];
            System.arraycopy(values, 0, out, 0, span.start());
            System.arraycopy(values, span.end(), out, span.start(), values.length - span.end());
            return out;
        }

        /** @return the same draws with {@code values[index] = value} */
        int[] with(int index, int value) {
            int[] out = values.clone();
            out[index] = value;
            return out;
        }

        @Override
        public String toString() {
            return Arrays.toString(values);
        }
    }

    /** The draws {@code [start, end)} that generated one list element (its continue-flag included). */
    record Span(int start, int end) {}

    private final SplittableRandom random;
    private final int[] replay;
    private int position;
    private int[] drawn = new int[16];
    private int size;
    private final List<Span> spans = new ArrayList<>();

    private Choices(SplittableRandom random, int[] replay) {
        this.random = random;
        this.replay = replay;
    }

    /** @return choices drawn from {@code random} (generation) */
    static Choices random(SplittableRandom random) {
        return new Choices(random, null);
    }

    /** @return choices read back from {@code recorded} (replay and shrinking) */
    static Choices replay(int[] recorded) {
        return new Choices(null, recorded);
    }

    /**
     * @param bound the number of possible values, at least 1
     * @return a value in {@code [0, bound)}; smaller means simpler to the generator that asks
     */
    int draw(int bound) {
        if (bound < 1) {
            throw new IllegalArgumentException("bound must be at least 1: " + bound);
        }
        int v;
        if (random != null) {
            v = random.nextInt(bound);
        } else {
            v = position < replay.length ? Math.min(Math.max(replay[position], 0), bound - 1) : 0;
            position++;
        }
        if (size == drawn.length) {
            drawn = Arrays.copyOf(drawn, size * 2);
        }
        drawn[size++] = v;
        return v;
    }

    /** @return a mark to pass to {@link #endSpan(int)} once the element it starts is drawn */
    int startSpan() {
        return size;
    }

    /** Records the draws since {@code mark} as one list element, a unit the shrinker may remove. */
    void endSpan(int mark) {
        spans.add(new Span(mark, size));
    }

    /** @return what was drawn so far, in its normal form */
    Recorded recorded() {
        return new Recorded(Arrays.copyOf(drawn, size), List.copyOf(spans));
    }
}

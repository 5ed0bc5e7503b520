package dev.durablestore.sqlite.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * A generator of values from {@link Choices}: the small in-house replacement of a property-testing
 * library's "arbitraries". Every generator maps the draw 0 to its simplest value, so that the
 * shrinker of {@link SequenceRunner} simplifies a value by lowering the draws that made it.
 *
 * <p>Combine generators with plain code: {@code c -> new Pair(a.next(c), b.next(c))} draws
 * {@code a} then {@code b}.
 *
 * @param <T> the generated type
 */
@FunctionalInterface
interface Gen<T> {

    /**
     * @param choices where the randomness comes from
     * @return a value
     */
    T next(Choices choices);

    /** @return a generator of {@code f} applied to this generator's values */
    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return c -> f.apply(next(c));
    }

    /**
     * Lists of 0 to {@code maxSize} elements, every length equally likely. Each element is drawn after
     * a "one more?" flag (0 = stop, the simplest; a list always ends with a 0 flag), and flag and
     * element form one span, so the shrinker can shorten a list by lowering a flag or cut out any one
     * element.
     *
     * @return unmodifiable lists of this generator's values
     */
    default Gen<List<T>> list(int maxSize) {
        return c -> {
            List<T> out = new ArrayList<>();
            for (int i = 0; ; i++) {
                int mark = c.startSpan();
                // at maxSize the flag can only be 0; it is drawn anyway so that a cut-out element
                // leaves the draws after the list where they were
                if (c.draw(maxSize - i + 1) == 0) {
                    break;
                }
                out.add(next(c));
                c.endSpan(mark);
            }
            return Collections.unmodifiableList(out);
        };
    }

    /** @return sets of at most {@code maxSize} distinct values (a list of values, duplicates dropped) */
    default Gen<Set<T>> set(int maxSize) {
        return list(maxSize).map(l -> Collections.unmodifiableSet(new LinkedHashSet<>(l)));
    }

    /** @return always {@code value}; draws nothing */
    static <T> Gen<T> constant(T value) {
        return c -> value;
    }

    /** @return integers in {@code [min, max]}, uniformly; simplest is {@code min} */
    static Gen<Integer> between(int min, int max) {
        return between(min, max, min);
    }

    /**
     * @param target the simplest value, within {@code [min, max]}
     * @return integers in {@code [min, max]}, uniformly; simpler is nearer {@code target} (a positive
     *         offset before the negative one of the same size)
     */
    static Gen<Integer> between(int min, int max, int target) {
        if (min > max || target < min || target > max) {
            throw new IllegalArgumentException("between(" + min + ", " + max + ", " + target + ")");
        }
        List<Integer> bySimplicity = IntStream.rangeClosed(min, max)
                .boxed()
                .sorted(Comparator.<Integer>comparingInt(v -> Math.abs(v - target))
                        .thenComparing(v -> v < target))
                .toList();
        return of(bySimplicity);
    }

    /** @return one of {@code values}, uniformly; simplest is the first */
    @SafeVarargs
    static <T> Gen<T> of(T... values) {
        return of(Arrays.asList(values));
    }

    /** @return one of {@code values} (nulls allowed), uniformly; simplest is the first */
    static <T> Gen<T> of(List<T> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values to choose from");
        }
        List<T> copy = Collections.unmodifiableList(new ArrayList<>(values));
        return c -> copy.get(c.draw(copy.size()));
    }

    /** @return one of the enum's constants, uniformly; simplest is the first declared */
    static <E extends Enum<E>> Gen<E> of(Class<E> type) {
        return of(type.getEnumConstants());
    }

    /** One option of {@link #frequency} and its weight. */
    record Weighted<T>(int weight, T value) {}

    /** @return an option for {@link #frequency} */
    static <T> Weighted<T> weight(int weight, T value) {
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be at least 1: " + weight);
        }
        return new Weighted<>(weight, value);
    }

    /** @return one of the options, with probability proportional to its weight; simplest is the first */
    @SafeVarargs
    static <T> Gen<T> frequency(Weighted<T>... options) {
        List<Weighted<T>> list = List.of(options);
        int total = list.stream().mapToInt(Weighted::weight).sum();
        return c -> {
            int pick = c.draw(total);
            for (Weighted<T> w : list) {
                pick -= w.weight();
                if (pick < 0) {
                    return w.value();
                }
            }
            throw new AssertionError("unreachable");
        };
    }
}

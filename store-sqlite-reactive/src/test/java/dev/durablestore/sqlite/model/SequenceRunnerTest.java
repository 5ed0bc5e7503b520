package dev.durablestore.sqlite.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.durablestore.sqlite.model.SequenceRunner.Action;
import dev.durablestore.sqlite.model.SequenceRunner.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The runner itself, on a toy state (no database): it runs every try of a passing property, and it
 * finds, shrinks and reports a planted bug reproducibly.
 */
class SequenceRunnerTest {

    /** A stack and its model; the "implementation" loses a push of 5 or more onto three elements. */
    static final class Toy implements AutoCloseable {
        static final AtomicInteger OPEN = new AtomicInteger();
        final boolean buggy;
        final List<Integer> real = new ArrayList<>();
        final List<Integer> model = new ArrayList<>();

        Toy(boolean buggy) {
            this.buggy = buggy;
            OPEN.incrementAndGet();
        }

        void push(int v) {
            if (!(buggy && v >= 5 && real.size() == 3)) {
                real.add(v);
            }
            model.add(v);
        }

        void pop() {
            real.remove(real.size() - 1);
            model.remove(model.size() - 1);
        }

        void check() {
            assertThat(real).isEqualTo(model);
        }

        @Override
        public void close() {
            OPEN.decrementAndGet();
        }

        @Override
        public String toString() {
            return "real=" + real + " model=" + model;
        }
    }

    private static SequenceRunner<Toy> runner(boolean buggy) {
        return SequenceRunner.forProperty("toy stack", () -> new Toy(buggy))
                .withInvariant("real equals model", Toy::check)
                .withAction(
                        3,
                        Action.independent(Gen.between(0, 9).map(v -> new Step<>("push(" + v + ")", t -> t.push(v)))))
                .withAction(2, Action.dependent(t -> !t.model.isEmpty(), (t, c) -> new Step<>("pop()", Toy::pop)))
                .withAction(
                        1,
                        Action.independent(Gen.of("x", "y").list(3).map(l -> new Step<>("look(" + l + ")", t -> {}))))
                .withSequenceLength(30)
                .withSeed(7);
    }

    @Test
    void a_passing_property_runs_every_try_in_full() {
        SequenceRunner.Summary summary = runner(false).withTries(200).run();

        assertThat(summary.tries()).isEqualTo(200);
        assertThat(summary.steps()).isEqualTo(200L * 30);
        assertThat(Toy.OPEN).hasValue(0);
    }

    @Test
    void a_failure_is_shrunk_to_the_minimal_sequence_and_reported_with_its_seeds() {
        AssertionError error = catchThrowableOfType(
                AssertionError.class, () -> runner(true).withTries(200).run());

        String nl = System.lineSeparator();
        assertThat(error.getMessage())
                .contains("Property \"toy stack\" failed on try ")
                .contains("(base seed 7, this try's seed ")
                .contains("Shrunk to 4 steps")
                .contains("   1. push(0)" + nl + "   2. push(0)" + nl + "   3. push(0)" + nl + "   4. push(5)" + nl
                        + "The invariant \"real equals model\" failed after step 4.")
                .contains("State after it: real=[0, 0, 0] model=[0, 0, 0, 5]");
        assertThat(error.getCause()).isInstanceOf(AssertionError.class);
        assertThat(Toy.OPEN).hasValue(0);
    }

    @Test
    void the_seed_of_the_failing_try_reproduces_it_alone() {
        AssertionError all = catchThrowableOfType(
                AssertionError.class, () -> runner(true).withTries(200).run());
        String trySeed = all.getMessage().replaceAll("(?s).*this try's seed (-?\\d+)\\).*", "$1");

        AssertionError alone = catchThrowableOfType(
                AssertionError.class,
                () -> runner(true)
                        .withSeed(Long.parseLong(trySeed))
                        .withTries(1)
                        .run());

        assertThat(alone.getMessage())
                .contains("failed on try 1 of 1 (base seed " + trySeed + ", this try's seed " + trySeed + ")");
        assertThat(originalLength(alone)).isEqualTo(originalLength(all));
        assertThat(stepsOf(alone)).isEqualTo(stepsOf(all));
    }

    @Test
    void a_failure_that_does_not_reproduce_is_reported_unshrunk() {
        AtomicInteger opened = new AtomicInteger();
        SequenceRunner<Toy> flaky = SequenceRunner.forProperty("flaky", () -> new Toy(false))
                .withAction(1, Action.independent(Gen.constant(new Step<>("tick()", t -> {
                    if (opened.incrementAndGet() == 5) {
                        throw new IllegalStateException("only once");
                    }
                }))))
                .withTries(3);

        AssertionError error = catchThrowableOfType(AssertionError.class, flaky::run);

        assertThat(error.getMessage())
                .contains("NOT SHRUNK")
                .contains("   5. tick()")
                .contains("Failure: java.lang.IllegalStateException: only once");
    }

    private static String originalLength(AssertionError e) {
        return e.getMessage().replaceAll("(?s).*Original sequence: (\\d+) steps.*", "$1");
    }

    private static List<String> stepsOf(AssertionError e) {
        return e.getMessage().lines().filter(l -> l.matches(" +\\d+\\. .*")).toList();
    }
}

package dev.durablestore.sqlite.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * A small model-based property runner: it generates random sequences of actions, runs each on a
 * fresh state, checks an invariant after every step, and shrinks a failing sequence to a minimal
 * one. It is the engine of {@link StoreModelPropertyTest}, written in-house rather than taken from
 * jqwik, whose author asks that AI agents not use that library; it does the part of such a library
 * the test needs (weighted, state-dependent action sequences, a per-step invariant, reproducible
 * seeds, shrinking) and nothing more.
 *
 * <h2>Generation</h2>
 * Try {@code t} (counting from 0) uses the seed {@code baseSeed + t × 0x9E3779B97F4A7C15}, so try 0
 * uses the base seed itself and any single try can be rerun alone. A try opens a fresh state and
 * builds its sequence step by step, up to the sequence length: it picks one of the actions whose
 * {@link Action#precondition precondition} holds on the current state, with probability
 * proportional to its weight, lets the action generate a {@link Step} from the state and a fresh
 * {@link Choices}, runs the step and then the invariant. The first exception or error (other than a
 * {@link VirtualMachineError}) fails the try.
 *
 * <h2>Shrinking</h2>
 * A step is stored as its action and the draws its {@link Choices} made, so it can be replayed on a
 * fresh state; a replayed step whose precondition does not hold is skipped. A candidate counts as
 * failing when its replay fails with the same exception class as the original failure. Starting from
 * the sequence cut after the failing step (and replayed once, to confirm the failure reproduces):
 * <ol>
 *   <li>delta debugging over steps: remove chunks of half the length, then a quarter, … down to
 *       single steps, keeping every removal after which the failure still reproduces, and repeating
 *       single-step removal until none succeeds;
 *   <li>parameter simplification: per step, cut out list elements ({@link Gen#list}) and lower each
 *       draw (to 0, to half, to one less), keeping every change after which the failure reproduces;
 * </ol>
 * both repeated until neither changes anything or the budget (time and number of replays) is
 * spent. Each accepted candidate is cut after its own failing step and stored as it was replayed.
 *
 * <h2>Report</h2>
 * On failure {@link #run()} throws an {@link AssertionError} naming the base seed, the try and its
 * seed, how to rerun either, the original and the shrunk length, the minimal sequence one step per
 * line, the state after the failing step, and the failure (also its cause; the original failure is
 * attached as suppressed).
 *
 * @param <S> the state of one sequence, opened fresh for every try and every replay and closed after
 */
final class SequenceRunner<S extends AutoCloseable> {

    /** The step that the seed of try {@code t} adds {@code t} times to the base seed (the golden gamma). */
    static final long SEED_STRIDE = 0x9E3779B97F4A7C15L;

    /**
     * One step of a sequence.
     *
     * @param description what a failure report lists for the step, e.g. {@code complete(w0:1)}
     * @param body what the step does to the state; it throws to fail the sequence
     * @param <S> the state type
     */
    record Step<S>(String description, Consumer<? super S> body) {

        /** @throws NullPointerException if an argument is null */
        public Step {
            Objects.requireNonNull(description, "description");
            Objects.requireNonNull(body, "body");
        }
    }

    /**
     * A kind of step, such as "claim with a limit": generates a concrete {@link Step} from the current
     * state and the choices it draws. It must draw all its randomness from the {@link Choices}, so a
     * replay with the same draws on the same state generates the same step.
     *
     * @param <S> the state type
     */
    @FunctionalInterface
    interface Action<S> {

        /**
         * @param state the current state
         * @return whether the action may be picked (when generating) or run (when replaying) now;
         *         true unless overridden
         */
        default boolean precondition(S state) {
            return true;
        }

        /**
         * @param state the current state (read it, do not change it)
         * @param choices where the randomness comes from
         * @return the step to run
         */
        Step<S> generate(S state, Choices choices);

        /** @return an action whose steps do not depend on the state */
        static <S> Action<S> independent(Gen<Step<S>> steps) {
            return (state, choices) -> steps.next(choices);
        }

        /**
         * @param precondition when the action applies
         * @param generate generates a step from the state (e.g. picks a row that is claimed right now)
         * @return an action whose steps depend on the state
         */
        static <S> Action<S> dependent(Predicate<? super S> precondition, BiFunction<S, Choices, Step<S>> generate) {
            return new Action<>() {
                @Override
                public boolean precondition(S state) {
                    return precondition.test(state);
                }

                @Override
                public Step<S> generate(S state, Choices choices) {
                    return generate.apply(state, choices);
                }
            };
        }
    }

    /**
     * What a passing run did.
     *
     * @param property the property's name
     * @param tries the sequences run
     * @param steps the steps run in all
     * @param baseSeed the seed of try 0
     * @param elapsed the wall-clock time
     */
    record Summary(String property, int tries, long steps, long baseSeed, Duration elapsed) {

        @Override
        public String toString() {
            return property + ": " + tries + " sequences, " + steps + " steps, base seed " + baseSeed + ", "
                    + elapsed.toMillis() + " ms";
        }
    }

    /** An action and its weight. */
    private record WeightedAction<S>(int weight, Action<S> action) {}

    /** A step as stored for replay: the index of its action and its draws. */
    private record StepRecord(int action, Choices.Recorded choices) {}

    /**
     * What one execution did: the steps run (cut after the failing one), their descriptions, and the
     * failure, if any, with where it happened and the state after it.
     */
    private record Outcome(
            List<StepRecord> steps, List<String> descriptions, Throwable failure, boolean inInvariant, String state) {

        boolean failed() {
            return failure != null;
        }
    }

    private final String property;
    private final Supplier<S> start;
    private final List<WeightedAction<S>> actions = new ArrayList<>();
    private String invariantName = "invariant";
    private Consumer<? super S> invariant = s -> {};
    private int sequenceLength = 30;
    private int tries = 1_000;
    private long baseSeed = 42;
    private Duration shrinkingTime = Duration.ofSeconds(120);
    private int shrinkingReplays = 10_000;
    private String seedProperty;
    private String triesProperty;

    private SequenceRunner(String property, Supplier<S> start) {
        this.property = Objects.requireNonNull(property, "property");
        this.start = Objects.requireNonNull(start, "start");
    }

    /**
     * @param property a name for reports
     * @param start opens a fresh state; called once per try and once per replay while shrinking
     * @return a runner with no actions, 1,000 tries of 30 steps, base seed 42
     */
    static <S extends AutoCloseable> SequenceRunner<S> forProperty(String property, Supplier<S> start) {
        return new SequenceRunner<>(property, start);
    }

    /** Adds an action, picked with probability proportional to {@code weight} among those that apply. */
    SequenceRunner<S> withAction(int weight, Action<S> action) {
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be at least 1: " + weight);
        }
        actions.add(new WeightedAction<>(weight, Objects.requireNonNull(action, "action")));
        return this;
    }

    /** Sets the check that runs after every step; it throws to fail the sequence. */
    SequenceRunner<S> withInvariant(String name, Consumer<? super S> check) {
        this.invariantName = Objects.requireNonNull(name, "name");
        this.invariant = Objects.requireNonNull(check, "check");
        return this;
    }

    /** Sets the number of steps a generated sequence has (fewer only if no action applies). */
    SequenceRunner<S> withSequenceLength(int steps) {
        if (steps < 1) {
            throw new IllegalArgumentException("sequence length must be at least 1: " + steps);
        }
        this.sequenceLength = steps;
        return this;
    }

    /** Sets the number of sequences to run. */
    SequenceRunner<S> withTries(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("tries must be at least 1: " + count);
        }
        this.tries = count;
        return this;
    }

    /** Sets the seed of try 0 (try {@code t} uses {@code seed + t × }{@link #SEED_STRIDE}). */
    SequenceRunner<S> withSeed(long seed) {
        this.baseSeed = seed;
        return this;
    }

    /** Bounds shrinking: it stops after {@code time} or {@code replays} replays, whichever comes first. */
    SequenceRunner<S> withShrinkingBudget(Duration time, int replays) {
        this.shrinkingTime = Objects.requireNonNull(time, "time");
        this.shrinkingReplays = replays;
        return this;
    }

    /**
     * Lets system properties override the seed and the number of tries, and names them in failure
     * reports. A seed may be decimal or {@code 0x} hexadecimal.
     *
     * @param seedProperty e.g. {@code durablestore.model.seed}
     * @param triesProperty e.g. {@code durablestore.model.tries}
     */
    SequenceRunner<S> withSettingsFrom(String seedProperty, String triesProperty) {
        this.seedProperty = seedProperty;
        this.triesProperty = triesProperty;
        String seed = System.getProperty(seedProperty);
        if (seed != null && !seed.isBlank()) {
            withSeed(Long.decode(seed.trim()));
        }
        String count = System.getProperty(triesProperty);
        if (count != null && !count.isBlank()) {
            withTries(Integer.parseInt(count.trim()));
        }
        return this;
    }

    /** @return the seed try {@code t} uses */
    static long seedOfTry(long baseSeed, int t) {
        return baseSeed + t * SEED_STRIDE;
    }

    /**
     * Runs every try; on the first failing one, shrinks it and throws.
     *
     * @return what was run, when every sequence passed
     * @throws AssertionError the report of the first failing sequence, shrunk
     */
    Summary run() {
        if (actions.isEmpty()) {
            throw new IllegalStateException("no actions");
        }
        long began = System.nanoTime();
        long steps = 0;
        for (int t = 0; t < tries; t++) {
            long seed = seedOfTry(baseSeed, t);
            Outcome outcome = execute(null, new SplittableRandom(seed));
            steps += outcome.steps().size();
            if (outcome.failed()) {
                throw report(t, seed, outcome);
            }
        }
        return new Summary(property, tries, steps, baseSeed, Duration.ofNanos(System.nanoTime() - began));
    }

    // ---------------------------------------------------------------- execution

    /**
     * Generates and runs a sequence ({@code replay == null}) or replays one, on a fresh state.
     */
    private Outcome execute(List<StepRecord> replay, SplittableRandom random) {
        S state = start.get();
        Outcome outcome = null;
        try {
            outcome = steps(state, replay, random);
            return outcome;
        } finally {
            try {
                state.close();
            } catch (Exception e) {
                if (outcome != null && outcome.failed()) {
                    outcome.failure().addSuppressed(e);
                } else if (outcome != null) {
                    throw new IllegalStateException("closing the state of a passing sequence failed", e);
                }
            }
        }
    }

    private Outcome steps(S state, List<StepRecord> replay, SplittableRandom random) {
        List<StepRecord> done = new ArrayList<>();
        List<String> described = new ArrayList<>();
        int planned = replay == null ? sequenceLength : replay.size();
        for (int i = 0; i < planned; i++) {
            int a;
            Choices choices;
            if (replay == null) {
                a = pick(random, state);
                if (a < 0) {
                    break;
                }
                choices = Choices.random(random.split());
            } else {
                a = replay.get(i).action();
                if (!actions.get(a).action().precondition(state)) {
                    continue;
                }
                choices = Choices.replay(replay.get(i).choices().values());
            }
            Step<S> step = null;
            Throwable failure = null;
            boolean inInvariant = false;
            try {
                step = actions.get(a).action().generate(state, choices);
            } catch (Throwable t) {
                failure = t;
            }
            done.add(new StepRecord(a, choices.recorded()));
            described.add(step == null ? "<the generator of action #" + a + " failed>" : step.description());
            if (failure == null) {
                try {
                    step.body().accept(state);
                    inInvariant = true;
                    invariant.accept(state);
                } catch (Throwable t) {
                    failure = t;
                }
            }
            if (failure != null) {
                if (failure instanceof VirtualMachineError fatal) {
                    throw fatal;
                }
                return new Outcome(List.copyOf(done), List.copyOf(described), failure, inInvariant, describe(state));
            }
        }
        return new Outcome(List.copyOf(done), List.copyOf(described), null, false, null);
    }

    /** @return the index of an applicable action picked by weight, or -1 if none applies */
    private int pick(SplittableRandom random, S state) {
        int[] weights = new int[actions.size()];
        int total = 0;
        for (int i = 0; i < weights.length; i++) {
            WeightedAction<S> w = actions.get(i);
            weights[i] = w.action().precondition(state) ? w.weight() : 0;
            total += weights[i];
        }
        if (total == 0) {
            return -1;
        }
        int r = random.nextInt(total);
        for (int i = 0; i < weights.length; i++) {
            r -= weights[i];
            if (r < 0) {
                return i;
            }
        }
        throw new AssertionError("unreachable");
    }

    private static String describe(Object state) {
        try {
            return String.valueOf(state);
        } catch (RuntimeException e) {
            return "<toString failed: " + e + ">";
        }
    }

    // ---------------------------------------------------------------- shrinking

    /** Shrinks one failing sequence within the budget; {@link #best} is the smallest failing one found. */
    private final class Shrinker {

        private final Class<?> kind;
        private final long deadline;
        private int replays;
        private Outcome best;

        Shrinker(Outcome original) {
            this.kind = original.failure().getClass();
            this.deadline = System.nanoTime() + shrinkingTime.toNanos();
        }

        /** @return false if the original failure does not reproduce on a fresh state */
        boolean shrink(Outcome original) {
            if (attempt(original.steps()) == null) {
                return false;
            }
            while (budgetLeft()) {
                boolean removed = removeSteps();
                boolean simplified = simplifySteps();
                if (!removed && !simplified) {
                    break;
                }
            }
            return true;
        }

        boolean budgetLeft() {
            return replays < shrinkingReplays && System.nanoTime() < deadline;
        }

        /**
         * Replays a candidate; keeps it as {@link #best} if it fails the same way and, as replayed, is
         * smaller than {@link #best} (or there is no best yet).
         */
        private Outcome attempt(List<StepRecord> candidate) {
            replays++;
            Outcome o = execute(candidate, null);
            if (o.failed() && o.failure().getClass() == kind && (best == null || smaller(o.steps(), best.steps()))) {
                best = o;
                return o;
            }
            return null;
        }

        /** Delta debugging: remove chunks of decreasing size, then single steps until none goes. */
        private boolean removeSteps() {
            boolean changed = false;
            int size = Math.max(1, best.steps().size() / 2);
            while (budgetLeft()) {
                boolean removed = false;
                for (int i = 0; i < best.steps().size() && budgetLeft(); ) {
                    List<StepRecord> current = best.steps();
                    List<StepRecord> candidate = new ArrayList<>(current.subList(0, i));
                    candidate.addAll(current.subList(Math.min(current.size(), i + size), current.size()));
                    if (!candidate.isEmpty() && attempt(candidate) != null) {
                        removed = true;
                        changed = true;
                    } else {
                        i += size;
                    }
                }
                if (size == 1 && !removed) {
                    break;
                }
                size = Math.max(1, size / 2);
            }
            return changed;
        }

        /** Per step: cut out list elements, last first; then lower each draw (to 0, half, one less). */
        private boolean simplifySteps() {
            boolean changed = false;
            for (int s = 0; s < best.steps().size() && budgetLeft(); s++) {
                for (int k = Integer.MAX_VALUE; s < best.steps().size() && budgetLeft(); ) {
                    Choices.Recorded choices = best.steps().get(s).choices();
                    k = Math.min(k - 1, choices.spans().size() - 1);
                    if (k < 0) {
                        break;
                    }
                    changed |= attemptWith(s, choices.without(choices.spans().get(k)));
                }
                for (int j = 0; s < best.steps().size() && budgetLeft(); j++) {
                    Choices.Recorded choices = best.steps().get(s).choices();
                    if (j >= choices.values().length) {
                        break;
                    }
                    int v = choices.values()[j];
                    for (int lower : lowerValues(v)) {
                        if (budgetLeft() && attemptWith(s, choices.with(j, lower))) {
                            changed = true;
                            break;
                        }
                    }
                }
            }
            return changed;
        }

        /** @return the distinct values among 0, v / 2 and v - 1 that are below {@code v}, in that order */
        private static int[] lowerValues(int v) {
            return IntStream.of(0, v / 2, v - 1).filter(x -> x < v).distinct().toArray();
        }

        private boolean attemptWith(int stepIndex, int[] values) {
            List<StepRecord> candidate = new ArrayList<>(best.steps());
            StepRecord old = candidate.get(stepIndex);
            candidate.set(stepIndex, new StepRecord(old.action(), new Choices.Recorded(values, List.of())));
            return attempt(candidate) != null;
        }
    }

    /**
     * The order that makes shrinking terminate: fewer steps, then fewer draws in all, then the first
     * differing draw lower. A replay can turn a candidate into something else (a lowered list flag
     * shifts the draws after it), so a candidate is kept only if the sequence as replayed is smaller.
     */
    private static boolean smaller(List<StepRecord> a, List<StepRecord> b) {
        if (a.size() != b.size()) {
            return a.size() < b.size();
        }
        int drawsA = a.stream().mapToInt(r -> r.choices().values().length).sum();
        int drawsB = b.stream().mapToInt(r -> r.choices().values().length).sum();
        if (drawsA != drawsB) {
            return drawsA < drawsB;
        }
        for (int i = 0; i < a.size(); i++) {
            int c = Arrays.compare(
                    a.get(i).choices().values(), b.get(i).choices().values());
            if (c != 0) {
                return c < 0;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- reporting

    private AssertionError report(int tryIndex, long trySeed, Outcome original) {
        long began = System.nanoTime();
        Shrinker shrinker = new Shrinker(original);
        boolean reproduced = shrinker.shrink(original);
        Outcome shown = reproduced ? shrinker.best : original;
        String nl = System.lineSeparator();
        StringBuilder m = new StringBuilder();
        m.append("Property \"")
                .append(property)
                .append("\" failed on try ")
                .append(tryIndex + 1)
                .append(" of ")
                .append(tries)
                .append(" (base seed ")
                .append(baseSeed)
                .append(", this try's seed ")
                .append(trySeed)
                .append(')')
                .append(nl);
        if (seedProperty != null) {
            m.append("Rerun: -D")
                    .append(seedProperty)
                    .append('=')
                    .append(baseSeed)
                    .append(" (every try), or -D")
                    .append(seedProperty)
                    .append('=')
                    .append(trySeed)
                    .append(" -D")
                    .append(triesProperty)
                    .append("=1 (this try only)")
                    .append(nl);
        }
        m.append("Original sequence: ")
                .append(original.steps().size())
                .append(" steps (of up to ")
                .append(sequenceLength)
                .append("), failing at the last. ");
        if (reproduced) {
            m.append("Shrunk to ")
                    .append(shown.steps().size())
                    .append(shown.steps().size() == 1 ? " step" : " steps")
                    .append(" in ")
                    .append(shrinker.replays)
                    .append(" replays, ")
                    .append(Duration.ofNanos(System.nanoTime() - began).toMillis())
                    .append(" ms")
                    .append(shrinker.budgetLeft() ? "" : " (budget spent: may not be minimal)")
                    .append(':')
                    .append(nl);
        } else {
            m.append("NOT SHRUNK: the failure did not reproduce when the sequence was replayed on a fresh state"
                            + " (a nondeterministic failure?). The original sequence:")
                    .append(nl);
        }
        List<String> lines = shown.descriptions();
        for (int i = 0; i < lines.size(); i++) {
            m.append(String.format("  %2d. ", i + 1)).append(lines.get(i)).append(nl);
        }
        m.append(
                        shown.inInvariant()
                                ? "The invariant \"" + invariantName + "\" failed after step " + lines.size()
                                : "Step " + lines.size() + " failed")
                .append('.')
                .append(nl);
        m.append("State after it: ").append(shown.state()).append(nl);
        m.append("Failure: ").append(shown.failure());
        AssertionError error = new AssertionError(m.toString(), shown.failure());
        if (shown != original) {
            error.addSuppressed(original.failure());
        }
        return error;
    }
}

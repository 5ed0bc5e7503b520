package dev.durablestore.sqlite.model;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Model-based property test: random sequences of store operations run against the SQLite store
 * and against {@link StoreModel}, an in-memory reference of STORE-CONTRACT.md; after every step the
 * observable state must agree ({@link ModelledStore#checkInvariant()}). Each try, and each replay
 * while shrinking, opens a fresh database file; {@link SequenceRunner} shrinks a failing sequence
 * to a minimal one and lists its steps.
 *
 * <p>{@value #DEFAULT_TRIES} sequences of {@value #SEQUENCE_LENGTH} actions in the default suite,
 * from a fixed base seed. Override with {@code -Ddurablestore.model.tries=N} and
 * {@code -Ddurablestore.model.seed=S} (decimal or {@code 0x…}); a failure report prints both seeds
 * to rerun it.
 */
class StoreModelPropertyTest {

    /** Actions per generated sequence. */
    static final int SEQUENCE_LENGTH = 30;
    /** Sequences per run unless {@code durablestore.model.tries} says otherwise. */
    static final int DEFAULT_TRIES = 1000;
    /** The base seed unless {@code durablestore.model.seed} says otherwise. */
    static final long DEFAULT_SEED = 20260603L;

    @Test
    void store_agrees_with_the_reference_model() {
        SequenceRunner<ModelledStore> runner = SequenceRunner.forProperty(
                        "store agrees with the reference model", ModelledStore::open)
                .withInvariant("observable state agrees with the model", ModelledStore::checkInvariant)
                .withSequenceLength(SEQUENCE_LENGTH)
                .withTries(DEFAULT_TRIES)
                .withSeed(DEFAULT_SEED)
                .withSettingsFrom("durablestore.model.seed", "durablestore.model.tries");
        SequenceRunner.Summary summary = StoreActions.addTo(runner).run();
        System.out.println(summary);
    }

    @AfterAll
    static void removeScratchFiles() {
        ModelledStore.deleteScratchDir();
    }
}

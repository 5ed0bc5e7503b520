package dev.durablestore.tck;

import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.WorkflowId;

/**
 * What a backend gives the contract tests: one fresh, empty database per test, on which any number
 * of store instances can be opened, plus the few backend-specific operations the contract needs
 * (corrupting a row to test decoding errors).
 *
 * <p>A backend implements {@link StoreHarnessFactory} once and extends each contract class with a
 * one-line subclass that returns it; {@link ContractKit#assertEveryContractRuns} checks that none is
 * missing.
 */
public interface StoreHarness extends AutoCloseable {

    /**
     * Opens a new store instance on this harness's database, reading time from the harness clock.
     * Calling it again opens a second, independent instance on the same database (E14, S22), or
     * reopens after {@link ReactiveStore#close()} (E24, S24).
     *
     * @return an open store; the harness closes it in {@link #close()} if the test has not
     */
    ReactiveStore open();

    /** @return the clock every store of this harness reads */
    TestClock clock();

    /**
     * Overwrites the stored encoding of one event with bytes that are not a valid event, bypassing
     * the store (S26, X6).
     *
     * @param workflowId the workflow
     * @param seq the event's sequence
     */
    void corruptEvent(WorkflowId workflowId, long seq);

    /**
     * Overwrites the stored input of one outbox row with bytes that cannot be decoded, bypassing the
     * store (X6).
     *
     * @param dispatchKey the row
     */
    void corruptOutboxInput(String dispatchKey);

    /** Closes every store this harness opened and deletes the database. */
    @Override
    void close();
}

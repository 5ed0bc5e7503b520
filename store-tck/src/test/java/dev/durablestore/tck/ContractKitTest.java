package dev.durablestore.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The list of contracts and the check each backend runs over it ({@link ContractKit}). */
class ContractKitTest {

    private static final String PKG = "dev.durablestore.fake";

    /** A support class of the kit: not public, so not a contract. */
    abstract static class NotAContract extends ContractTestSupport {}

    @Test
    void contracts_are_the_public_abstract_subclasses_of_the_support_class() {
        List<Class<? extends ContractTestSupport>> contracts = ContractKit.contracts();

        assertThat(contracts)
                .as("the kit as read from this module's classes")
                .contains(
                        AppendContract.class,
                        ClaimContract.class,
                        StepFencingContract.class,
                        TraceContextContract.class)
                .doesNotContain(ContractTestSupport.class, OutboxContractSupport.class, StepContractSupport.class);
        assertThat(contracts).allSatisfy(c -> assertThat(c.getSimpleName()).endsWith("Contract"));
        assertThat(contracts).extracting(Class::getSimpleName).isSorted();
    }

    @Test
    void a_backend_with_a_run_of_every_contract_passes() {
        assertThat(ContractKit.problems(
                        "Fake",
                        PKG,
                        List.of(AppendContract.class, ClaimContract.class),
                        Map.of(),
                        name -> switch (name) {
                            case PKG + ".FakeAppendContractTest" -> FakeAppend.class;
                            case PKG + ".FakeClaimContractTest" -> FakeClaim.class;
                            default -> null;
                        }))
                .isEmpty();
    }

    @Test
    void each_contract_without_a_run_is_named_with_the_class_it_lacks() {
        assertThat(ContractKit.problems(
                        "Fake",
                        PKG,
                        List.of(AppendContract.class, ClaimContract.class, TimerContract.class),
                        Map.of(),
                        name -> name.equals(PKG + ".FakeClaimContractTest") ? FakeClaim.class : null))
                .containsExactly(
                        "AppendContract: no class dev.durablestore.fake.FakeAppendContractTest",
                        "TimerContract: no class dev.durablestore.fake.FakeTimerContractTest");
    }

    @Test
    void a_run_that_does_not_extend_its_contract_or_is_abstract_counts_as_missing() {
        assertThat(ContractKit.problems(
                        "Fake",
                        PKG,
                        List.of(AppendContract.class, ClaimContract.class),
                        Map.of(),
                        name -> name.endsWith("AppendContractTest") ? FakeClaim.class : AbstractClaim.class))
                .containsExactly(
                        "AppendContract: dev.durablestore.fake.FakeAppendContractTest does not extend it",
                        "ClaimContract: dev.durablestore.fake.FakeClaimContractTest is abstract, so it runs nothing");
    }

    @Test
    void a_contract_listed_with_a_reason_needs_no_run_but_a_stale_or_unexplained_entry_fails() {
        List<Class<? extends ContractTestSupport>> kit = List.of(AppendContract.class, ClaimContract.class);

        assertThat(ContractKit.problems(
                        "Fake",
                        PKG,
                        kit,
                        Map.of(ClaimContract.class, "no outbox on this backend"),
                        name -> name.endsWith("AppendContractTest") ? FakeAppend.class : null))
                .isEmpty();
        assertThat(ContractKit.problems(
                        "Fake",
                        PKG,
                        kit,
                        Map.of(ClaimContract.class, " ", NotAContract.class, "gone"),
                        name -> name.endsWith("ClaimContractTest") ? FakeClaim.class : FakeAppend.class))
                .containsExactlyInAnyOrder(
                        "ClaimContract is listed as not run on Fake with no reason",
                        "ClaimContract is listed as not run on Fake ( ) but"
                                + " dev.durablestore.fake.FakeClaimContractTest exists: take it off the list",
                        NotAContract.class.getName()
                                + " is listed as not run on Fake but is not a contract of the kit: take it off the list");
    }

    /**
     * Stand-ins for a backend's runs. Nested classes without {@code @Nested}, so neither Surefire nor
     * JUnit runs them.
     */
    static final class FakeAppend extends AppendContract {
        @Override
        protected StoreHarnessFactory harnessFactory() {
            throw new UnsupportedOperationException("never run");
        }
    }

    static final class FakeClaim extends ClaimContract {
        @Override
        protected StoreHarnessFactory harnessFactory() {
            throw new UnsupportedOperationException("never run");
        }
    }

    abstract static class AbstractClaim extends ClaimContract {}
}

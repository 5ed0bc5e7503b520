package dev.durablestore.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** {@link ClaimRequest} and {@link Settlement}: checked when built, immutable, equal by value. */
class RequestTypesTest {

    private static final Instant T = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void a_claim_request_starts_from_every_route_nothing_held_and_no_policy() {
        ClaimRequest request = ClaimRequest.of(32);

        assertThat(request.limit()).isEqualTo(32);
        assertThat(request.scope()).isNull();
        assertThat(request.heldWorkflows()).isEmpty();
        assertThat(request.policy()).isEqualTo(DispatchPolicy.none());
        assertThat(ClaimRequest.of(0).limit()).isZero();
    }

    @Test
    void a_claim_request_copy_changes_one_field_and_leaves_the_original_alone() {
        ClaimRequest base = ClaimRequest.of(8);
        ClaimScope scope = ClaimScope.of("orders", "payments");
        DispatchPolicy serial = DispatchPolicy.none().withSerialPerWorkflow(true);
        WorkflowId held = WorkflowId.random();

        ClaimRequest changed =
                base.withScope(scope).withHeldWorkflows(Set.of(held)).withPolicy(serial);

        assertThat(changed.scope()).isEqualTo(scope);
        assertThat(changed.heldWorkflows()).containsExactly(held);
        assertThat(changed.policy()).isEqualTo(serial);
        assertThat(changed.limit()).isEqualTo(8);
        assertThat(base).isEqualTo(ClaimRequest.of(8));
        assertThat(changed)
                .isEqualTo(ClaimRequest.of(8)
                        .withPolicy(serial)
                        .withHeldWorkflows(Set.of(held))
                        .withScope(scope))
                .hasSameHashCodeAs(ClaimRequest.of(8)
                        .withScope(scope)
                        .withHeldWorkflows(Set.of(held))
                        .withPolicy(serial))
                .isNotEqualTo(base);
        assertThat(changed.withScope(null).scope()).isNull();
    }

    @Test
    void a_claim_request_keeps_its_own_copy_of_the_held_workflows() {
        Set<WorkflowId> held = new HashSet<>(Set.of(WorkflowId.random()));
        ClaimRequest request = ClaimRequest.of(1).withHeldWorkflows(held);

        held.add(WorkflowId.random());

        assertThat(request.heldWorkflows()).hasSize(1);
        assertThatThrownBy(() -> request.heldWorkflows().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void X10_a_claim_request_refuses_a_negative_limit_and_null_holds_or_policies_naming_them() {
        assertRefused(() -> ClaimRequest.of(-1), "limit");
        assertRefused(() -> ClaimRequest.of(1).withHeldWorkflows(null), "heldWorkflows");
        Set<WorkflowId> withNull = new HashSet<>();
        withNull.add(null);
        assertRefused(() -> ClaimRequest.of(1).withHeldWorkflows(withNull), "heldWorkflows[]");
        assertRefused(() -> ClaimRequest.of(1).withPolicy(null), "policy");
    }

    @Test
    void settlements_carry_their_kind_and_the_status_it_leaves() {
        assertThat(Settlement.complete().kind()).isEqualTo(Settlement.Kind.COMPLETE);
        assertThat(Settlement.fail().kind()).isEqualTo(Settlement.Kind.FAIL);
        assertThat(Settlement.cancel().kind()).isEqualTo(Settlement.Kind.CANCEL);
        assertThat(Settlement.Kind.COMPLETE.status()).isEqualTo(OutboxStatus.DONE);
        assertThat(Settlement.Kind.RETRY.status()).isEqualTo(OutboxStatus.PENDING);
        assertThat(Settlement.Kind.FAIL.status()).isEqualTo(OutboxStatus.FAILED);
        assertThat(Settlement.Kind.CANCEL.status()).isEqualTo(OutboxStatus.CANCELLED);
        assertThat(Settlement.complete().nextAttempt()).isZero();
        assertThat(Settlement.complete().visibleAfter()).isNull();
        assertThat(Settlement.complete().delay()).isNull();
    }

    @Test
    void a_retry_is_either_at_an_instant_or_after_a_delay() {
        Settlement at = Settlement.retryAt(3, T);
        Settlement after = Settlement.retryAfter(3, Duration.ofSeconds(5));

        assertThat(at.kind()).isEqualTo(Settlement.Kind.RETRY);
        assertThat(at.nextAttempt()).isEqualTo(3);
        assertThat(at.visibleAfter()).isEqualTo(T);
        assertThat(at.delay()).isNull();
        assertThat(after.visibleAfter()).isNull();
        assertThat(after.delay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(at).isEqualTo(Settlement.retryAt(3, T)).hasSameHashCodeAs(Settlement.retryAt(3, T));
        assertThat(at).isNotEqualTo(after).isNotEqualTo(Settlement.retryAt(4, T));
        assertThat(at.toString()).contains("RETRY", "nextAttempt=3", T.toString());
        assertThat(Settlement.retryAfter(0, Duration.ZERO).delay()).isZero();
    }

    @Test
    void X10_a_retry_refuses_a_negative_attempt_a_null_instant_and_a_null_or_negative_delay_naming_them() {
        assertRefused(() -> Settlement.retryAt(-1, T), "nextAttempt");
        assertRefused(() -> Settlement.retryAt(0, null), "visibleAfter");
        assertRefused(() -> Settlement.retryAfter(-1, Duration.ZERO), "nextAttempt");
        assertRefused(() -> Settlement.retryAfter(0, null), "delay");
        assertRefused(() -> Settlement.retryAfter(0, Duration.ofMillis(-1)), "delay");
    }

    @Test
    void O66_a_retry_or_dead_letter_carries_a_reason_and_is_equal_by_it() {
        FailureReason why = FailureReason.of("timed out");

        Settlement retry = Settlement.retryAfter(2, Duration.ofSeconds(1)).withReason(why);
        Settlement fail = Settlement.fail().withReason(why);

        assertThat(retry.reason()).isEqualTo(why);
        assertThat(retry.kind()).isEqualTo(Settlement.Kind.RETRY);
        assertThat(retry.nextAttempt()).isEqualTo(2);
        assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(fail.reason()).isEqualTo(why);
        assertThat(Settlement.fail().reason()).isNull();
        assertThat(Settlement.retryAt(1, T).withReason(why))
                .isEqualTo(Settlement.retryAt(1, T).withReason(why))
                .hasSameHashCodeAs(Settlement.retryAt(1, T).withReason(why))
                .isNotEqualTo(Settlement.retryAt(1, T));
        assertThat(fail)
                .isNotEqualTo(Settlement.fail())
                .isNotEqualTo(Settlement.fail().withReason(FailureReason.of("x")));
        assertThat(fail.toString()).contains("FAIL", "timed out");
    }

    @Test
    void O66_X10_a_reason_is_refused_when_null_and_on_a_complete_or_cancel() {
        FailureReason why = FailureReason.of("no");
        assertRefused(() -> Settlement.fail().withReason(null), "reason");
        assertRefused(() -> Settlement.complete().withReason(why), "reason");
        assertRefused(() -> Settlement.cancel().withReason(why), "reason");
        assertRefused(() -> FailureReason.of((String) null), "message");
        assertRefused(() -> FailureReason.of((Throwable) null), "error");
    }

    private static void assertRefused(ThrowingCallable build, String argument) {
        assertThatThrownBy(build)
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.argument()).isEqualTo(argument));
    }
}

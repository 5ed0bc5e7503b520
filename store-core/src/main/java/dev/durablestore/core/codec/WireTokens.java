package dev.durablestore.core.codec;

import com.fasterxml.jackson.core.io.SerializedString;
import dev.durablestore.api.event.ActivityError;
import dev.durablestore.api.event.CatchUpPolicy;
import dev.durablestore.api.event.OverlapPolicy;
import dev.durablestore.api.event.TimerCancelCause;
import dev.durablestore.api.event.WithTimeoutOutcome;

/**
 * The stable PascalCase tokens of the model's enums. Spelled out per constant, so renaming or
 * reordering a Java constant can never change stored data. Decoders return {@code null} for an
 * unknown token.
 */
final class WireTokens {

    private static final SerializedString RETRYABLE = new SerializedString("Retryable");
    private static final SerializedString TERMINAL = new SerializedString("Terminal");
    private static final SerializedString WORKFLOW_INTENT = new SerializedString("WorkflowIntent");
    private static final SerializedString CANCEL_TEARDOWN = new SerializedString("CancelTeardown");
    private static final SerializedString OPERATION_COMPLETED = new SerializedString("OperationCompleted");
    private static final SerializedString TIMED_OUT = new SerializedString("TimedOut");
    private static final SerializedString SKIP = new SerializedString("Skip");
    private static final SerializedString BUFFER_ONE = new SerializedString("BufferOne");
    private static final SerializedString CANCEL_PREVIOUS = new SerializedString("CancelPrevious");
    private static final SerializedString ALLOW_ALL = new SerializedString("AllowAll");
    private static final SerializedString ALL = new SerializedString("All");
    private static final SerializedString ONE = new SerializedString("One");

    private WireTokens() {}

    static SerializedString of(ActivityError.Kind kind) {
        return switch (kind) {
            case RETRYABLE -> RETRYABLE;
            case TERMINAL -> TERMINAL;
        };
    }

    static ActivityError.Kind activityErrorKind(String token) {
        return switch (token) {
            case "Retryable" -> ActivityError.Kind.RETRYABLE;
            case "Terminal" -> ActivityError.Kind.TERMINAL;
            default -> null;
        };
    }

    static SerializedString of(TimerCancelCause cause) {
        return switch (cause) {
            case WORKFLOW_INTENT -> WORKFLOW_INTENT;
            case CANCEL_TEARDOWN -> CANCEL_TEARDOWN;
        };
    }

    static TimerCancelCause timerCancelCause(String token) {
        return switch (token) {
            case "WorkflowIntent" -> TimerCancelCause.WORKFLOW_INTENT;
            case "CancelTeardown" -> TimerCancelCause.CANCEL_TEARDOWN;
            default -> null;
        };
    }

    static SerializedString of(WithTimeoutOutcome outcome) {
        return switch (outcome) {
            case OPERATION_COMPLETED -> OPERATION_COMPLETED;
            case TIMED_OUT -> TIMED_OUT;
        };
    }

    static WithTimeoutOutcome withTimeoutOutcome(String token) {
        return switch (token) {
            case "OperationCompleted" -> WithTimeoutOutcome.OPERATION_COMPLETED;
            case "TimedOut" -> WithTimeoutOutcome.TIMED_OUT;
            default -> null;
        };
    }

    static SerializedString of(OverlapPolicy policy) {
        return switch (policy) {
            case SKIP -> SKIP;
            case BUFFER_ONE -> BUFFER_ONE;
            case CANCEL_PREVIOUS -> CANCEL_PREVIOUS;
            case ALLOW_ALL -> ALLOW_ALL;
        };
    }

    static OverlapPolicy overlapPolicy(String token) {
        return switch (token) {
            case "Skip" -> OverlapPolicy.SKIP;
            case "BufferOne" -> OverlapPolicy.BUFFER_ONE;
            case "CancelPrevious" -> OverlapPolicy.CANCEL_PREVIOUS;
            case "AllowAll" -> OverlapPolicy.ALLOW_ALL;
            default -> null;
        };
    }

    static SerializedString of(CatchUpPolicy policy) {
        return switch (policy) {
            case ALL -> ALL;
            case ONE -> ONE;
            case SKIP -> SKIP;
        };
    }

    static CatchUpPolicy catchUpPolicy(String token) {
        return switch (token) {
            case "All" -> CatchUpPolicy.ALL;
            case "One" -> CatchUpPolicy.ONE;
            case "Skip" -> CatchUpPolicy.SKIP;
            default -> null;
        };
    }
}

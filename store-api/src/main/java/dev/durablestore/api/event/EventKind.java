package dev.durablestore.api.event;

import dev.durablestore.api.WorkflowStatus;

/**
 * The 31 event kinds (M10) with the classification the projections use: lifecycle kinds and the
 * status they project (R10), terminal kinds and reset kinds (M12), and the upstream "queryable"
 * flag (M13).
 */
public enum EventKind {
    /** {@link WorkflowStarted}. */
    WORKFLOW_STARTED("WorkflowStarted", WorkflowStarted.class, Group.WORKFLOW, WorkflowStatus.RUNNING, false, true),
    /** {@link WorkflowCompleted}. */
    WORKFLOW_COMPLETED(
            "WorkflowCompleted", WorkflowCompleted.class, Group.WORKFLOW, WorkflowStatus.COMPLETED, true, false),
    /** {@link WorkflowFailed}. */
    WORKFLOW_FAILED("WorkflowFailed", WorkflowFailed.class, Group.WORKFLOW, WorkflowStatus.FAILED, true, false),
    /** {@link WorkflowCancelled}. */
    WORKFLOW_CANCELLED(
            "WorkflowCancelled", WorkflowCancelled.class, Group.WORKFLOW, WorkflowStatus.CANCELLED, true, false),
    /** {@link WorkflowTimedOut}. */
    WORKFLOW_TIMED_OUT(
            "WorkflowTimedOut", WorkflowTimedOut.class, Group.WORKFLOW, WorkflowStatus.TIMED_OUT, true, false),
    /** {@link WorkflowContinuedAsNew}. */
    WORKFLOW_CONTINUED_AS_NEW(
            "WorkflowContinuedAsNew",
            WorkflowContinuedAsNew.class,
            Group.WORKFLOW,
            WorkflowStatus.CONTINUED_AS_NEW,
            true,
            false),
    /** {@link WorkflowReopened}. */
    WORKFLOW_REOPENED("WorkflowReopened", WorkflowReopened.class, Group.WORKFLOW, WorkflowStatus.RUNNING, false, true),
    /** {@link WorkflowPaused}. */
    WORKFLOW_PAUSED("WorkflowPaused", WorkflowPaused.class, Group.WORKFLOW, WorkflowStatus.PAUSED, false, false),
    /** {@link WorkflowResumed}. */
    WORKFLOW_RESUMED("WorkflowResumed", WorkflowResumed.class, Group.WORKFLOW, WorkflowStatus.RUNNING, false, false),
    /** {@link SearchAttributesUpdated}. */
    SEARCH_ATTRIBUTES_UPDATED(
            "SearchAttributesUpdated", SearchAttributesUpdated.class, Group.SEARCH, null, false, false),
    /** {@link ActivityScheduled}. */
    ACTIVITY_SCHEDULED("ActivityScheduled", ActivityScheduled.class, Group.ACTIVITY, null, false, false),
    /** {@link ActivityStarted}. */
    ACTIVITY_STARTED("ActivityStarted", ActivityStarted.class, Group.ACTIVITY, null, false, false),
    /** {@link ActivityCompleted}. */
    ACTIVITY_COMPLETED("ActivityCompleted", ActivityCompleted.class, Group.ACTIVITY, null, false, false),
    /** {@link ActivityFailed}. */
    ACTIVITY_FAILED("ActivityFailed", ActivityFailed.class, Group.ACTIVITY, null, false, false),
    /** {@link ActivityCancelled}. */
    ACTIVITY_CANCELLED("ActivityCancelled", ActivityCancelled.class, Group.ACTIVITY, null, false, false),
    /** {@link TimerStarted}. */
    TIMER_STARTED("TimerStarted", TimerStarted.class, Group.TIMER, null, false, false),
    /** {@link TimerFired}. */
    TIMER_FIRED("TimerFired", TimerFired.class, Group.TIMER, null, false, false),
    /** {@link TimerCancelled}. */
    TIMER_CANCELLED("TimerCancelled", TimerCancelled.class, Group.TIMER, null, false, false),
    /** {@link WithTimeoutCompleted}. */
    WITH_TIMEOUT_COMPLETED("WithTimeoutCompleted", WithTimeoutCompleted.class, Group.TIMER, null, false, false),
    /** {@link SignalReceived}. */
    SIGNAL_RECEIVED("SignalReceived", SignalReceived.class, Group.SIGNAL, null, false, false),
    /** {@link SignalSent}. */
    SIGNAL_SENT("SignalSent", SignalSent.class, Group.SIGNAL, null, false, false),
    /** {@link ChildWorkflowStarted}. */
    CHILD_WORKFLOW_STARTED("ChildWorkflowStarted", ChildWorkflowStarted.class, Group.CHILD, null, false, false),
    /** {@link ChildWorkflowCompleted}. */
    CHILD_WORKFLOW_COMPLETED("ChildWorkflowCompleted", ChildWorkflowCompleted.class, Group.CHILD, null, false, false),
    /** {@link ChildWorkflowFailed}. */
    CHILD_WORKFLOW_FAILED("ChildWorkflowFailed", ChildWorkflowFailed.class, Group.CHILD, null, false, false),
    /** {@link ChildWorkflowCancelled}. */
    CHILD_WORKFLOW_CANCELLED("ChildWorkflowCancelled", ChildWorkflowCancelled.class, Group.CHILD, null, false, false),
    /** {@link ScheduleCreated}. */
    SCHEDULE_CREATED("ScheduleCreated", ScheduleCreated.class, Group.SCHEDULE, null, false, false),
    /** {@link ScheduleUpdated}. */
    SCHEDULE_UPDATED("ScheduleUpdated", ScheduleUpdated.class, Group.SCHEDULE, null, false, false),
    /** {@link SchedulePaused}. */
    SCHEDULE_PAUSED("SchedulePaused", SchedulePaused.class, Group.SCHEDULE, null, false, false),
    /** {@link ScheduleResumed}. */
    SCHEDULE_RESUMED("ScheduleResumed", ScheduleResumed.class, Group.SCHEDULE, null, false, false),
    /** {@link ScheduleDeleted}. */
    SCHEDULE_DELETED("ScheduleDeleted", ScheduleDeleted.class, Group.SCHEDULE, null, false, false),
    /** {@link ScheduleTriggered}. */
    SCHEDULE_TRIGGERED("ScheduleTriggered", ScheduleTriggered.class, Group.SCHEDULE, null, false, false);

    /** The families of event kinds in the contract's tables. */
    public enum Group {
        /** The nine workflow lifecycle kinds. */
        WORKFLOW,
        /** Search attribute updates. */
        SEARCH,
        /** Activity kinds. */
        ACTIVITY,
        /** Timer kinds. */
        TIMER,
        /** Signal kinds. */
        SIGNAL,
        /** Child workflow kinds. */
        CHILD,
        /** Schedule kinds. */
        SCHEDULE
    }

    private final String typeName;
    private final Class<? extends Event> type;
    private final Group group;
    private final WorkflowStatus projectedStatus;
    private final boolean terminal;
    private final boolean reset;

    EventKind(
            String typeName,
            Class<? extends Event> type,
            Group group,
            WorkflowStatus projectedStatus,
            boolean terminal,
            boolean reset) {
        this.typeName = typeName;
        this.type = type;
        this.group = group;
        this.projectedStatus = projectedStatus;
        this.terminal = terminal;
        this.reset = reset;
    }

    /** @return the stable name used in storage, equal to the record's simple name */
    public String typeName() {
        return typeName;
    }

    /** @return the record class of this kind */
    public Class<? extends Event> type() {
        return type;
    }

    /** @return the family of this kind */
    public Group group() {
        return group;
    }

    /** @return true for the nine workflow lifecycle kinds (M11) */
    public boolean isLifecycle() {
        return projectedStatus != null;
    }

    /**
     * @return the status this kind projects when it is the last lifecycle event (R10), or
     *     {@code null} for non-lifecycle kinds
     */
    public WorkflowStatus projectedStatus() {
        return projectedStatus;
    }

    /** @return true for the five terminal kinds (M12) */
    public boolean isTerminal() {
        return terminal;
    }

    /** @return true for the reset kinds {@code WorkflowStarted} and {@code WorkflowReopened} (M12) */
    public boolean isReset() {
        return reset;
    }

    /** @return true for the ten kinds upstream flags as queryable: lifecycle plus {@code ChildWorkflowStarted} (M13) */
    public boolean isQueryable() {
        return isLifecycle() || this == CHILD_WORKFLOW_STARTED;
    }

    /**
     * @param typeName a stored kind name
     * @return the kind, or {@code null} when the name is unknown
     */
    public static EventKind fromTypeName(String typeName) {
        for (EventKind k : values()) {
            if (k.typeName.equals(typeName)) {
                return k;
            }
        }
        return null;
    }
}

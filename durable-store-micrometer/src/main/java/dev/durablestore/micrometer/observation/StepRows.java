package dev.durablestore.micrometer.observation;

import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.WorkflowStep;
import java.util.List;

/** Rebuilds a workflow step with other staged rows (their trace contexts set), every other part kept. */
final class StepRows {

    private StepRows() {}

    /**
     * @param step a built step
     * @param rows its rows, each with a trace context
     * @return the same step staging {@code rows}
     */
    static WorkflowStep replace(WorkflowStep step, List<OutboxRow> rows) {
        WorkflowStep.Builder b = WorkflowStep.builder(step.workflowId(), step.expectedSeq())
                .append(step.events())
                .stage(rows);
        for (WorkflowStep.Settle s : step.settles()) {
            b.settle(s.row(), s.settlement());
        }
        for (WorkflowStep.TimerChange t : step.timers()) {
            if (t.cancels()) {
                b.cancelTimer(t.timerId());
            } else {
                b.scheduleTimer(t.timerId(), t.fireAt());
            }
        }
        return b.build();
    }
}

package dev.durablestore.api.event;

import dev.durablestore.api.InvalidArgumentException;
import java.time.Duration;

/** When a schedule fires: a cron expression or a fixed interval. */
public sealed interface ScheduleTrigger permits ScheduleTrigger.Cron, ScheduleTrigger.Interval {

    /**
     * A cron expression, stored verbatim.
     *
     * @param expression the expression
     */
    record Cron(String expression) implements ScheduleTrigger {
        public Cron {
            InvalidArgumentException.requireNonNull(expression, "expression");
        }
    }

    /**
     * A fixed period between triggers.
     *
     * @param period the period, not negative
     */
    record Interval(Duration period) implements ScheduleTrigger {
        public Interval {
            InvalidArgumentException.requireNonNull(period, "period");
            if (period.isNegative()) {
                throw new InvalidArgumentException("period", "must not be negative, was " + period);
            }
        }
    }
}

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
        /**
         * Validates the components (see the record's description).
         *
         * @param expression the expression
         */
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
        /**
         * Validates the components (see the record's description).
         *
         * @param period the period, not negative
         */
        public Interval {
            InvalidArgumentException.requireNonNull(period, "period");
            if (period.isNegative()) {
                throw new InvalidArgumentException("period", "must not be negative, was " + period);
            }
        }
    }
}

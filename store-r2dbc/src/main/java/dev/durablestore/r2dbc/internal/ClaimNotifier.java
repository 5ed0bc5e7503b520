package dev.durablestore.r2dbc.internal;

import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code NOTIFY} that wakes claim streams on other nodes, sent after commits instead of inside
 * them: {@code pg_notify} in a write transaction takes a cluster-wide lock held through the commit's
 * WAL flush, so notifying commits would run one at a time across every node (issue 17).
 *
 * <p>{@link #request()} is called after every commit that made rows claimable (or, for the
 * {@link PgNotifications#SETTLED} notifier, freed rows under a dispatch policy). It sends one
 * {@code SELECT pg_notify(channel, payload)} on its own (autocommit) statement when none is in flight;
 * otherwise it marks one more to send when the one in flight returns. So at most one notify is in
 * flight and one pending per store, however many commits ask, and every commit is followed by a
 * notify that started after it. There is no timer: the wake-up of another node waits for at most
 * the notify in flight and its own, two round trips, plus the delivery to the listener.
 */
final class ClaimNotifier implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ClaimNotifier.class);
    private static final String NOTIFY = "SELECT pg_notify($1, $2)";

    private static final int IDLE = 0;
    private static final int SENDING = 1;
    private static final int SENDING_ONE_MORE = 2;

    private final Db db;
    private final String channel;
    private final String payload;
    private final AtomicInteger state = new AtomicInteger(IDLE);

    /**
     * @param db database access
     * @param channel the channel the other nodes listen on
     * @param payload what the listeners receive: {@link PgNotifications#STAGED} or
     *     {@link PgNotifications#SETTLED}
     */
    ClaimNotifier(Db db, String channel, String payload) {
        this.db = db;
        this.channel = channel;
        this.payload = payload;
    }

    /** Same as {@link #request()}. */
    @Override
    public void run() {
        request();
    }

    /** Asks for a notify that starts after this call. */
    void request() {
        while (true) {
            int s = state.get();
            if (s == IDLE) {
                if (state.compareAndSet(IDLE, SENDING)) {
                    send();
                    return;
                }
            } else if (s == SENDING) {
                if (state.compareAndSet(SENDING, SENDING_ONE_MORE)) {
                    return;
                }
            } else {
                return; // one more is already due after the one in flight
            }
        }
    }

    private void send() {
        if (db.isClosed()) {
            state.set(IDLE);
            return;
        }
        db.autocommit(
                        "notify",
                        1,
                        c -> Sql.query(c, NOTIFY, row -> Boolean.TRUE, channel, payload)
                                .then())
                .subscribe(
                        null,
                        e -> {
                            log.debug("NOTIFY {} failed; other nodes fall back to polling", channel, e);
                            sent();
                        },
                        this::sent);
    }

    private void sent() {
        while (true) {
            int s = state.get();
            if (s == SENDING_ONE_MORE) {
                if (state.compareAndSet(SENDING_ONE_MORE, SENDING)) {
                    send();
                    return;
                }
            } else if (state.compareAndSet(s, IDLE)) {
                return;
            }
        }
    }
}

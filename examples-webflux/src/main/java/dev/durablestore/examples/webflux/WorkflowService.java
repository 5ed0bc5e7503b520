package dev.durablestore.examples.webflux;

import dev.durablestore.api.ActivityId;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.PackageVersion;
import dev.durablestore.api.Payload;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.RunId;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.EventEnvelope;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.core.projection.HistoryProjection;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.StringNode;

/**
 * What the endpoints do, in store calls. Every method returns a cold publisher; nothing blocks.
 *
 * <p>Conventions of this service: an activity's id is the {@code seq} of the
 * {@code ActivityScheduled} event that scheduled it, and its outbox row has that number as
 * ordinal, so its dispatch key is {@code <workflowId>:<seq>}.
 */
@Service
public class WorkflowService implements ApplicationListener<ContextClosedEvent> {

    private final ReactiveStore store;
    private final ObjectMapper json;
    private final Clock clock;
    private final PackageVersion packageVersion;
    private final Sinks.Empty<Void> closing = Sinks.empty();

    /**
     * @param store the store
     * @param json Spring Boot's JSON mapper (Jackson 3), to turn request JSON into payload bytes and back
     * @param clock the store's clock
     * @param properties the package version to record
     */
    public WorkflowService(ReactiveStore store, ObjectMapper json, Clock clock, ExampleProperties properties) {
        this.store = store;
        this.json = json;
        this.clock = clock;
        this.packageVersion = new PackageVersion(properties.packageVersion());
    }

    /**
     * Validates the request, then appends {@code WorkflowStarted} and one {@code ActivityScheduled}
     * per activity, and stages one outbox row per activity, in one transaction.
     *
     * @param request the request
     * @return the started workflow once durable; fails with {@link InvalidRequestException} for an
     *     invalid request and {@link dev.durablestore.api.SequenceConflictException} when the id is
     *     already taken
     */
    public Mono<StartedWorkflow> start(StartWorkflowRequest request) {
        return Mono.defer(() -> {
            validate(request);
            WorkflowId workflowId = request.id() == null ? WorkflowId.random() : WorkflowId.parse(request.id());
            Instant now = clock.instant();
            List<Event> events = new ArrayList<>();
            events.add(new WorkflowStarted(
                    new EventEnvelope(1, now, workflowId),
                    request.type(),
                    payload(request.input()),
                    RunId.random(),
                    null,
                    packageVersion));
            List<OutboxRow> rows = new ArrayList<>();
            for (StartWorkflowRequest.Activity activity : activities(request)) {
                long seq = events.size() + 1;
                String taskQueue = activity.taskQueue() == null ? OutboxRow.DEFAULT_ROUTE : activity.taskQueue();
                Payload input = payload(activity.input());
                events.add(new ActivityScheduled(
                        new EventEnvelope(seq, now, workflowId),
                        new ActivityId(seq),
                        activity.type(),
                        input,
                        taskQueue,
                        null));
                rows.add(OutboxRow.pending(workflowId, seq, activity.type(), input, now)
                        .withRoute(OutboxRow.DEFAULT_ROUTE, taskQueue, null));
            }
            List<String> keys = rows.stream().map(OutboxRow::dispatchKey).toList();
            return store.appendWithOutbox(workflowId, events, 0, rows)
                    .thenReturn(new StartedWorkflow(workflowId.toString(), keys));
        });
    }

    /**
     * @param workflowId the workflow
     * @return its events in {@code seq} order; an empty list for an unknown workflow
     */
    public Mono<List<Event>> history(WorkflowId workflowId) {
        return store.readHistory(workflowId).collectList();
    }

    /**
     * Projects the summary from the history (the store's {@code query} selects by type, status and
     * start time, not by id) and reads the state of each activity's outbox row.
     *
     * @param workflowId the workflow
     * @return the view; empty for an unknown workflow or one without a start event
     */
    public Mono<WorkflowView> summary(WorkflowId workflowId) {
        return history(workflowId)
                .flatMap(events -> Mono.justOrEmpty(HistoryProjection.summarize(workflowId, events, null))
                        .flatMap(summary -> Flux.fromIterable(events)
                                .ofType(ActivityScheduled.class)
                                .concatMap(scheduled -> activityView(workflowId, scheduled))
                                .collectList()
                                .map(activities -> new WorkflowView(
                                        workflowId.toString(),
                                        summary.workflowType(),
                                        summary.status(),
                                        summary.startedAt(),
                                        summary.endedAt(),
                                        summary.failedStep(),
                                        summary.failureReason(),
                                        events.size(),
                                        activities))));
    }

    private Mono<WorkflowView.Activity> activityView(WorkflowId workflowId, ActivityScheduled scheduled) {
        long position = scheduled.activityId().position();
        String key = OutboxRow.dispatchKey(workflowId, position);
        return store.rowState(key)
                .map(state -> new WorkflowView.Activity(
                        position,
                        scheduled.activityType(),
                        scheduled.taskQueue(),
                        key,
                        state.status(),
                        state.attempt()))
                .defaultIfEmpty(new WorkflowView.Activity(
                        position, scheduled.activityType(), scheduled.taskQueue(), key, null, null));
    }

    /**
     * An endless stream of dispatches for one subscriber, one row at a time: a row is claimed only
     * when the previous one has been emitted and completed, so a slow subscriber never holds more
     * than one claimed row. Each row is emitted, then completed before the next claim, with the
     * fenced {@code complete(row)}: it marks the row done only while the claim that returned it is
     * current. If the lease reaper re-armed the row meanwhile (the client held it longer than the
     * lease) and another stream claimed it again, the complete fails with
     * {@link StaleClaimException} and changes nothing: the row is the other stream's now, and this
     * stream goes on with its next claim. When the subscriber cancels (the client disconnects) while a row's completion is still
     * queued, that row stays claimed and the lease reaper re-arms it after the lease: delivery is
     * at-least-once, and a client may see a row again. When the application shuts down, every
     * stream ends (so graceful shutdown need not wait for them).
     *
     * @param scope the route to claim from, or {@code null} for every route
     * @return the claimed rows, as views
     */
    public Flux<DispatchView> dispatches(ClaimScope scope) {
        ClaimStreamOptions options =
                ClaimStreamOptions.defaults().withScope(scope).withMaxBatch(1);
        return store.claimStream(options)
                .concatMap(
                        row -> Mono.just(dispatchView(row))
                                .concatWith(store.complete(row)
                                        .onErrorResume(StaleClaimException.class, e -> Mono.empty())
                                        .then(Mono.empty())),
                        0)
                .takeUntilOther(closing.asMono());
    }

    /** Ends every dispatch stream: the application is shutting down (this comes before the web server stops). */
    @Override
    public void onApplicationEvent(ContextClosedEvent event) {
        closing.tryEmitEmpty();
    }

    private DispatchView dispatchView(OutboxRow row) {
        JsonNode input;
        try {
            input = json.readTree(row.input().bytes());
        } catch (JacksonException e) {
            input = StringNode.valueOf(row.input().asString()); // not ours: staged by another writer
        }
        return new DispatchView(
                row.dispatchKey(),
                row.workflowId().toString(),
                row.ordinal(),
                row.activityType(),
                row.taskQueue(),
                input,
                row.attempt(),
                row.claimedAt());
    }

    private static void validate(StartWorkflowRequest request) {
        if (request.type() == null || request.type().isBlank()) {
            throw new InvalidRequestException("'type' is required and must not be blank");
        }
        List<StartWorkflowRequest.Activity> activities = activities(request);
        for (int i = 0; i < activities.size(); i++) {
            StartWorkflowRequest.Activity activity = activities.get(i);
            if (activity == null || activity.type() == null || activity.type().isBlank()) {
                throw new InvalidRequestException("'activities[" + i + "].type' is required and must not be blank");
            }
            if (activity.taskQueue() != null && activity.taskQueue().isBlank()) {
                throw new InvalidRequestException("'activities[" + i + "].taskQueue' must not be blank");
            }
        }
    }

    private static List<StartWorkflowRequest.Activity> activities(StartWorkflowRequest request) {
        return request.activities() == null ? List.of() : request.activities();
    }

    private Payload payload(JsonNode value) {
        if (value == null) {
            return Payload.json("{}");
        }
        try {
            return Payload.json(json.writeValueAsBytes(value));
        } catch (JacksonException e) {
            throw new InvalidRequestException("cannot write the input as JSON: " + e.getOriginalMessage());
        }
    }
}

package dev.durablestore.examples.webflux;

import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.InvalidArgumentException;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.SequenceConflictException;
import dev.durablestore.api.WorkflowId;
import dev.durablestore.core.codec.EventCodec;
import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The HTTP endpoints. Errors are RFC 9457 problem details: 400 for an invalid body or id, 404 for
 * an unknown workflow, 409 when a posted id is already taken.
 */
@RestController
public class WorkflowController {

    private final WorkflowService workflows;
    private final EventCodec codec = EventCodec.create();

    /** @param workflows what the endpoints do */
    public WorkflowController(WorkflowService workflows) {
        this.workflows = workflows;
    }

    /**
     * {@code POST /workflows}: starts a workflow.
     *
     * @param request type, input and activities
     * @return 201 with {@code Location: /workflows/{id}} and the id and dispatch keys
     */
    @PostMapping(
            path = "/workflows",
            consumes = MediaType.APPLICATION_JSON_VALUE,
            produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<ResponseEntity<StartedWorkflow>> start(@RequestBody StartWorkflowRequest request) {
        return workflows
                .start(request)
                .map(started -> ResponseEntity.created(URI.create("/workflows/" + started.workflowId()))
                        .body(started));
    }

    /**
     * {@code GET /workflows/{id}/history}: the events in the store's JSON wire format
     * ({@link EventCodec#encodeHistory}), so a Java client can decode them with
     * {@link EventCodec#decodeHistory}. Payloads appear as base64 there.
     *
     * @param id the workflow id
     * @return 200 with a JSON array of events, or 404 when the workflow has no events
     */
    @GetMapping(path = "/workflows/{id}/history", produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<ResponseEntity<byte[]>> history(@PathVariable("id") String id) {
        return workflows
                .history(WorkflowId.parse(id))
                .filter(events -> !events.isEmpty())
                .map(events -> ResponseEntity.ok()
                        .contentType(MediaType.APPLICATION_JSON)
                        .body(codec.encodeHistory(events)))
                .switchIfEmpty(Mono.error(() -> notFound(id)));
    }

    /**
     * {@code GET /workflows/{id}}: the summary.
     *
     * @param id the workflow id
     * @return 200 with the summary, or 404 when the workflow is unknown
     */
    @GetMapping(path = "/workflows/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    public Mono<ResponseEntity<WorkflowView>> summary(@PathVariable("id") String id) {
        return workflows
                .summary(WorkflowId.parse(id))
                .map(ResponseEntity::ok)
                .switchIfEmpty(Mono.error(() -> notFound(id)));
    }

    /**
     * {@code GET /dispatches}: each client is a dispatcher. Rows are claimed as the client reads
     * (one at a time), sent as {@code dispatch} events whose id is the dispatch key, and completed
     * once sent; see {@link WorkflowService#dispatches} for what a disconnect means.
     *
     * @param namespace the namespace to claim from; {@code default} when absent
     * @param taskQueue the task queue to claim from; every route when absent
     * @return the endless event stream
     */
    @GetMapping(path = "/dispatches", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public Flux<ServerSentEvent<DispatchView>> dispatches(
            @RequestParam(name = "namespace", required = false) String namespace,
            @RequestParam(name = "taskQueue", required = false) String taskQueue) {
        ClaimScope scope = taskQueue == null
                ? null
                : ClaimScope.of(namespace == null ? OutboxRow.DEFAULT_ROUTE : namespace, taskQueue);
        return workflows
                .dispatches(scope)
                .map(dispatch -> ServerSentEvent.builder(dispatch)
                        .id(dispatch.dispatchKey())
                        .event("dispatch")
                        .build());
    }

    /**
     * @param e an invalid request, or an argument the store rejected (such as an id that is not a UUID)
     * @return 400
     */
    @ExceptionHandler({InvalidRequestException.class, InvalidArgumentException.class})
    public ProblemDetail badRequest(RuntimeException e) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
    }

    /**
     * @param e the append found the workflow already started
     * @return 409
     */
    @ExceptionHandler(SequenceConflictException.class)
    public ProblemDetail conflict(SequenceConflictException e) {
        return ProblemDetail.forStatusAndDetail(
                HttpStatus.CONFLICT, "the workflow already exists (" + e.getMessage() + ")");
    }

    private static ResponseStatusException notFound(String id) {
        return new ResponseStatusException(HttpStatus.NOT_FOUND, "no workflow " + id);
    }
}

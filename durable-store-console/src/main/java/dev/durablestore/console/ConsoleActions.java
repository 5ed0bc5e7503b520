package dev.durablestore.console;

import dev.durablestore.api.OutboxQuery;
import dev.durablestore.api.OutboxRow;
import dev.durablestore.api.OutboxStatus;
import dev.durablestore.api.ReactiveStore;
import dev.durablestore.api.Settlement;
import dev.durablestore.api.StaleClaimException;
import dev.durablestore.api.WorkflowId;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The console's actions ({@code POST actions/{action}}): refused on a read-only console, without
 * the CSRF token ({@link ConsoleSession#checkCsrf}), with a body that does not parse
 * ({@link ActionRequest}) or when the host's {@link ConsoleAuthorizer} says no; otherwise run on the
 * rows the body selects, answering which changed and which were skipped.
 */
final class ConsoleActions {

    private static final Logger log = LoggerFactory.getLogger(ConsoleActions.class);

    private final ReactiveStore store;
    private final ConsoleOptions options;
    private final ConsoleAuthorizer authorizer;
    private final Clock clock;
    private final ConsoleSession session;
    private final ConsoleViews views;

    /**
     * @param store the store acted on
     * @param options the console's options
     * @param authorizer the host's decision on each action; null only on a read-only console
     * @param clock the clock a release's due time is taken from
     * @param session the CSRF check
     * @param views what a filter selects, as {@code GET rows} and {@code rows/count} read and count it
     */
    ConsoleActions(
            ReactiveStore store,
            ConsoleOptions options,
            ConsoleAuthorizer authorizer,
            Clock clock,
            ConsoleSession session,
            ConsoleViews views) {
        this.store = store;
        this.options = options;
        this.authorizer = authorizer;
        this.clock = clock;
        this.session = session;
        this.views = views;
    }

    /** {@code POST actions/{action}}. */
    Mono<ServerResponse> action(ServerRequest request) {
        return Mono.defer(() -> {
            if (options.readOnly()) {
                throw ConsoleException.forbidden("read-only", "the console is read-only: it takes no action");
            }
            ConsoleAction action = ActionRequest.action(request.pathVariable("action"));
            session.checkCsrf(request);
            ActionRequest.requireJson(request);
            return request.bodyToMono(Map.class)
                    .switchIfEmpty(Mono.error(ConsoleException.badRequest("the body must be a JSON object")))
                    .map(body -> ActionRequest.parse(body, options.maxBulk(), views::query))
                    .flatMap(parsed -> authorizer
                            .authorize(action, request)
                            .onErrorReturn(false)
                            .defaultIfEmpty(false)
                            .flatMap(allowed -> {
                                if (!allowed) {
                                    return Mono.error(ConsoleException.forbidden(
                                            "not-allowed", "the host's authorizer refused " + action.token()));
                                }
                                return run(action, parsed);
                            }))
                    .flatMap(ConsoleHandlers::ok);
        });
    }

    private Mono<Map<String, Object>> run(ConsoleAction action, ActionRequest a) {
        if (a.workflowId() != null) {
            return workflowAction(action, a);
        }
        Mono<List<OutboxRow>> targets;
        if (a.keys() != null) {
            targets = Flux.fromIterable(a.keys())
                    .concatMap(k -> store.listOutbox(OutboxQuery.all(1).withDispatchKey(k))
                            .next()
                            .map(r -> Map.entry(k, List.of(r)))
                            .defaultIfEmpty(Map.entry(k, List.of())))
                    .collectList()
                    .map(found -> {
                        List<String> unknown = new ArrayList<>();
                        List<OutboxRow> rows = new ArrayList<>();
                        for (Map.Entry<String, List<OutboxRow>> e : found) {
                            if (e.getValue().isEmpty()) {
                                unknown.add(e.getKey());
                            } else {
                                rows.add(e.getValue().get(0));
                            }
                        }
                        if (!unknown.isEmpty()) {
                            throw ConsoleException.notFound("unknown dispatch keys, nothing was changed: "
                                    + Filters.abbreviate(String.join(", ", unknown)));
                        }
                        return rows;
                    });
        } else {
            OutboxQuery q = a.filter();
            OutboxStatus required = switch (action) {
                case REDRIVE -> OutboxStatus.FAILED;
                case RELEASE -> OutboxStatus.CLAIMED;
                case CANCEL -> q.status();
            };
            if (action == ConsoleAction.CANCEL && (required == null || !required.isLive())) {
                throw ConsoleException.badRequest("cancel by filter needs status pending or claimed");
            }
            if (q.status() != null && q.status() != required) {
                throw ConsoleException.badRequest(action.token() + " by filter applies to " + required.token()
                        + " rows, the filter asks for " + q.status().token());
            }
            targets = views.collect(q.withStatus(required), options.maxBulk());
        }
        return targets.flatMap(rows -> apply(action, a.resetAttempt(), rows));
    }

    private Mono<Map<String, Object>> apply(ConsoleAction action, boolean reset, List<OutboxRow> rows) {
        Instant now = clock.instant();
        Flux<Map.Entry<String, Boolean>> results = switch (action) {
            case REDRIVE ->
                Flux.fromIterable(rows)
                        .flatMapSequential(
                                r -> store.redrive(r.dispatchKey(), reset).map(b -> Map.entry(r.dispatchKey(), b)), 16);
            case RELEASE ->
                Flux.fromIterable(rows)
                        .flatMapSequential(
                                r -> r.status() != OutboxStatus.CLAIMED
                                        ? Mono.just(Map.entry(r.dispatchKey(), false))
                                        : store.settle(r, Settlement.retryAt(r.attempt(), now))
                                                .thenReturn(Map.entry(r.dispatchKey(), true))
                                                .onErrorResume(
                                                        StaleClaimException.class,
                                                        e -> Mono.just(Map.entry(r.dispatchKey(), false))),
                                16);
            case CANCEL -> {
                List<String> live = rows.stream()
                        .filter(OutboxRow::isLive)
                        .map(OutboxRow::dispatchKey)
                        .toList();
                yield store.settleKeys(live, Settlement.cancel())
                        .thenMany(Flux.fromIterable(rows).map(r -> Map.entry(r.dispatchKey(), r.isLive())));
            }
        };
        return results.collectList().map(list -> {
            List<String> changed = new ArrayList<>();
            List<String> skipped = new ArrayList<>();
            for (Map.Entry<String, Boolean> e : list) {
                (e.getValue() ? changed : skipped).add(e.getKey());
            }
            log.info("console {}: {} rows changed, {} skipped", action.token(), changed.size(), skipped.size());
            return result(action, changed, skipped);
        });
    }

    private Mono<Map<String, Object>> workflowAction(ConsoleAction action, ActionRequest a) {
        WorkflowId id = a.workflowId();
        return store.readHead(id)
                .zipWith(store.listOutbox(OutboxQuery.all(1).withWorkflowId(id)).hasElements())
                .flatMap(t -> {
                    if (t.getT1() == 0 && !t.getT2()) {
                        return Mono.error(ConsoleException.notFound("no workflow " + id + " in this store"));
                    }
                    return switch (action) {
                        case REDRIVE ->
                            store.redriveWorkflow(id, a.resetAttempt()).map(keys -> result(action, keys, List.of()));
                        case CANCEL -> store.cancelWorkflowRows(id).map(keys -> result(action, keys, List.of()));
                        case RELEASE ->
                            store.listOutbox(OutboxQuery.all(OutboxQuery.MAX_LIMIT)
                                            .withWorkflowId(id)
                                            .withStatus(OutboxStatus.CLAIMED))
                                    .collectList()
                                    .flatMap(rows -> apply(action, false, rows));
                    };
                });
    }

    private static Map<String, Object> result(ConsoleAction action, List<String> changed, List<String> skipped) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("action", action.token());
        body.put("changed", changed.size());
        body.put("skipped", skipped.size());
        body.put("changedKeys", changed);
        body.put("skippedKeys", skipped);
        return body;
    }
}

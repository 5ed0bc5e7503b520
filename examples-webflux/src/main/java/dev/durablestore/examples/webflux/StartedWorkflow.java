package dev.durablestore.examples.webflux;

import java.util.List;

/**
 * The body of a {@code 201 Created} answer to {@code POST /workflows}.
 *
 * @param workflowId the workflow's id
 * @param dispatchKeys the dispatch key of each scheduled activity's outbox row, in request order
 */
public record StartedWorkflow(String workflowId, List<String> dispatchKeys) {}

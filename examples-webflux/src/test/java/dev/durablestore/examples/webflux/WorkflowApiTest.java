package dev.durablestore.examples.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.durablestore.api.WorkflowId;
import dev.durablestore.api.event.ActivityScheduled;
import dev.durablestore.api.event.Event;
import dev.durablestore.api.event.WorkflowStarted;
import dev.durablestore.core.codec.EventCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The service over HTTP: a real server on a random port, the store on a file in a temporary
 * folder, {@link WebTestClient} as the client. Each test reads as given / when / then.
 */
@AutoConfigureWebTestClient
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WorkflowApiTest {

    @TempDir
    static Path dir;

    @DynamicPropertySource
    static void storeOnATemporaryFile(DynamicPropertyRegistry registry) {
        registry.add(
                "durablestore.sqlite.path", () -> dir.resolve("webflux-test.db").toString());
    }

    @Autowired
    WebTestClient client;

    // ------------------------------------------------------------------ the starter's health

    @Test
    void theStoreReportsItsHealthThroughActuator() {
        // given the running service; when its store's health is read, then it is UP on SQLite
        client.get()
                .uri("/actuator/health/durableStore")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("UP")
                .jsonPath("$.details.backend")
                .isEqualTo("SqliteReactiveStore");
    }

    // ------------------------------------------------------------------ POST, then GET

    @Test
    void aStartedWorkflowHasItsHistoryAndSummary() {
        // given nothing; when a workflow with two activities is posted
        StartedWorkflow started = client.post()
                .uri("/workflows")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("""
                        {"type": "checkout", "input": {"order": 42},
                         "activities": [{"type": "charge-card", "input": {"amount": 10}},
                                        {"type": "send-email"}]}""")
                .exchange()
                // then it is created, with its location and the dispatch keys of its rows
                .expectStatus()
                .isCreated()
                .expectHeader()
                .value("Location", location -> assertThat(location).startsWith("/workflows/"))
                .expectBody(StartedWorkflow.class)
                .returnResult()
                .getResponseBody();
        assertThat(started).isNotNull();
        String id = started.workflowId();
        assertThat(started.dispatchKeys()).containsExactly(id + ":2", id + ":3");

        // and its history holds the start and the two schedulings, in the store's wire format
        byte[] history = client.get()
                .uri("/workflows/{id}/history", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectHeader()
                .contentType(MediaType.APPLICATION_JSON)
                .expectBody()
                .jsonPath("$.length()")
                .isEqualTo(3)
                .jsonPath("$[0].type")
                .isEqualTo("WorkflowStarted")
                .jsonPath("$[1].data.activity_type")
                .isEqualTo("charge-card")
                .returnResult()
                .getResponseBody();
        List<Event> events = EventCodec.create().decodeHistory(history);
        assertThat(events).extracting(Event::seq).containsExactly(1L, 2L, 3L);
        assertThat(events.get(0)).isInstanceOfSatisfying(WorkflowStarted.class, e -> {
            assertThat(e.workflowType()).isEqualTo("checkout");
            assertThat(e.input().asString()).isEqualTo("{\"order\":42}");
        });
        assertThat(events.get(2))
                .isInstanceOfSatisfying(
                        ActivityScheduled.class,
                        e -> assertThat(e.activityType()).isEqualTo("send-email"));

        // and its summary: running, two pending dispatches
        client.get()
                .uri("/workflows/{id}", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.workflowId")
                .isEqualTo(id)
                .jsonPath("$.workflowType")
                .isEqualTo("checkout")
                .jsonPath("$.status")
                .isEqualTo("RUNNING")
                .jsonPath("$.head")
                .isEqualTo(3)
                .jsonPath("$.endedAt")
                .doesNotExist()
                .jsonPath("$.activities[0].activityType")
                .isEqualTo("charge-card")
                .jsonPath("$.activities[0].dispatchKey")
                .isEqualTo(id + ":2")
                .jsonPath("$.activities[0].dispatchStatus")
                .isEqualTo("PENDING")
                .jsonPath("$.activities[1].taskQueue")
                .isEqualTo("default");
    }

    @Test
    void postingTheSameIdTwiceIsAConflict() {
        // given a workflow started with a chosen id
        String id = WorkflowId.random().toString();
        String body = "{\"id\": \"" + id + "\", \"type\": \"once\"}";
        client.post()
                .uri("/workflows")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isCreated();

        // when it is posted again, then: 409, and the history is unchanged
        client.post()
                .uri("/workflows")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isEqualTo(409);
        client.get()
                .uri("/workflows/{id}/history", id)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.length()")
                .isEqualTo(1);
    }

    // ------------------------------------------------------------------ unknown ids, bad requests

    @Test
    void anUnknownWorkflowIsNotFound() {
        // given an id nobody used
        String id = WorkflowId.random().toString();

        // when its history or summary is read, then: 404 with a problem detail
        client.get()
                .uri("/workflows/{id}/history", id)
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectHeader()
                .contentType(MediaType.APPLICATION_PROBLEM_JSON);
        client.get()
                .uri("/workflows/{id}", id)
                .exchange()
                .expectStatus()
                .isNotFound()
                .expectBody()
                .jsonPath("$.detail")
                .isEqualTo("no workflow " + id);
    }

    @Test
    void anIdThatIsNotAUuidIsABadRequest() {
        client.get()
                .uri("/workflows/{id}", "not-a-uuid")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.detail")
                .value(detail -> assertThat((String) detail).contains("workflowId"));
        client.get()
                .uri("/workflows/{id}/history", "not-a-uuid")
                .exchange()
                .expectStatus()
                .isBadRequest();
    }

    @Test
    void invalidBodiesAreBadRequests() {
        Map<String, String> bodies = Map.of(
                "no type", "{\"activities\": []}",
                "blank type", "{\"type\": \"  \"}",
                "an activity without type", "{\"type\": \"t\", \"activities\": [{\"input\": {}}]}",
                "a null activity", "{\"type\": \"t\", \"activities\": [null]}",
                "a blank task queue", "{\"type\": \"t\", \"activities\": [{\"type\": \"a\", \"taskQueue\": \"\"}]}",
                "an id that is not a UUID", "{\"id\": \"42\", \"type\": \"t\"}",
                "malformed JSON", "{\"type\": ",
                "not an object", "[1, 2]");
        bodies.forEach((why, body) -> client.post()
                .uri("/workflows")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .value(status -> assertThat(status).as(why).isEqualTo(400)));

        // and an empty body
        client.post()
                .uri("/workflows")
                .contentType(MediaType.APPLICATION_JSON)
                .exchange()
                .expectStatus()
                .isBadRequest();
    }

    // ------------------------------------------------------------------ server-sent dispatches

    @Test
    void theDispatchStreamDeliversStagedRowsAndCompletesThem() {
        // given a workflow whose two activities are routed to a task queue of this test only
        String queue = "sse-" + WorkflowId.random();
        StartedWorkflow started = client.post()
                .uri("/workflows")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("""
                        {"type": "notify", "activities": [
                            {"type": "email", "input": {"to": "a@example.com"}, "taskQueue": "%s"},
                            {"type": "sms", "taskQueue": "%s"}]}""".formatted(queue, queue))
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(StartedWorkflow.class)
                .returnResult()
                .getResponseBody();
        assertThat(started).isNotNull();

        // when a client reads the dispatch stream of that queue
        Flux<ServerSentEvent<DispatchView>> stream = client.get()
                .uri("/dispatches?taskQueue={q}", queue)
                .accept(MediaType.TEXT_EVENT_STREAM)
                .exchange()
                .expectStatus()
                .isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<DispatchView>>() {})
                .getResponseBody();

        // then both rows arrive, in order, as "dispatch" events named by their dispatch key
        StepVerifier.create(stream.take(2))
                .assertNext(event -> {
                    assertThat(event.event()).isEqualTo("dispatch");
                    assertThat(event.id()).isEqualTo(started.dispatchKeys().get(0));
                    DispatchView dispatch = event.data();
                    assertThat(dispatch).isNotNull();
                    assertThat(dispatch.activityType()).isEqualTo("email");
                    assertThat(dispatch.input().get("to").asText()).isEqualTo("a@example.com");
                    assertThat(dispatch.attempt()).isZero();
                    assertThat(dispatch.claimedAt()).isNotNull();
                })
                .assertNext(event ->
                        assertThat(event.id()).isEqualTo(started.dispatchKeys().get(1)))
                .expectComplete()
                .verify(Duration.ofSeconds(10));

        // and the first row was completed before the second was claimed
        client.get()
                .uri("/workflows/{id}", started.workflowId())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.activities[0].dispatchStatus")
                .isEqualTo("DONE")
                .jsonPath("$.activities[1].dispatchStatus")
                .value(status -> assertThat((String) status).isIn("CLAIMED", "DONE"));
    }
}

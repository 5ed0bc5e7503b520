package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.durablestore.api.ClaimScope;
import dev.durablestore.api.ClaimStreamOptions;
import dev.durablestore.console.ConsoleOptions;
import dev.durablestore.sqlite.SqliteStoreConfig;
import dev.durablestore.sqlite.SqliteSynchronous;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;
import org.springframework.validation.BeanPropertyBindingResult;
import org.springframework.validation.Errors;

/**
 * Each setting is written once: a property of a library type takes its default from that type and
 * is checked by it, and a refusal names the property; the configuration metadata (what an IDE
 * completes) shows every default as it is bound.
 */
class DurableStorePropertiesTest {

    @TempDir
    Path dir;

    @Test
    @DisplayName("every durablestore property's default in the configuration metadata is the default it binds to")
    void metadataDefaultsAreTheBoundDefaults() throws Exception {
        // given the metadata the configuration processor wrote, additional defaults merged in
        Map<String, JsonNode> properties = durableStoreMetadata();
        assertThat(properties).containsKey("durablestore.sqlite.reader-pool-size");
        BeanWrapperImpl fresh = new BeanWrapperImpl(new DurableStoreProperties());
        SoftAssertions softly = new SoftAssertions();
        for (Map.Entry<String, JsonNode> property : properties.entrySet()) {
            String name = property.getKey();
            Object bound = fresh.getPropertyValue(field(name));
            JsonNode shown = property.getValue().get("defaultValue");
            if (shown == null) {
                // then a property without a default shown has none
                softly.assertThat(bound)
                        .as(name + " has a default the metadata does not show: add it to "
                                + "additional-spring-configuration-metadata.json")
                        .isNull();
            } else {
                // then the default shown is the one bound, once converted as Spring Boot converts it
                Class<?> type =
                        ClassUtils.forName(property.getValue().get("type").asText(), null);
                Object parsed = new Binder(new MapConfigurationPropertySource(Map.of(name, shown.asText())))
                        .bind(name, Bindable.of(type))
                        .get();
                softly.assertThat(parsed)
                        .as(name + " is shown with a default it does not have")
                        .isEqualTo(bound);
            }
        }
        softly.assertAll();
    }

    @Test
    @DisplayName("the library-typed properties start as the library's own defaults")
    void libraryDefaults() {
        DurableStoreProperties properties = new DurableStoreProperties();
        Path file = dir.resolve("store.db");
        properties.getSqlite().setPath(file);

        assertThat(properties.getSqlite().config(null))
                .isEqualTo(SqliteStoreConfig.of(file).withSynchronous(SqliteSynchronous.FULL));
        assertThat(properties.getConsole().options(null)).isEqualTo(ConsoleOptions.defaults());
        ClaimStreamOptions options = properties.getDispatcher().claimStreamOptions(null);
        assertThat(options.maxBatch()).isEqualTo(ClaimStreamOptions.defaults().maxBatch());
        assertThat(options.pollInterval())
                .isEqualTo(ClaimStreamOptions.defaults().pollInterval());
        assertThat(options.scope()).isNull();
    }

    @Test
    @DisplayName("a route's names are checked by ClaimScope and a refusal names the property, not the argument")
    void routeCheckedByTheLibrary() {
        DurableStoreProperties properties = new DurableStoreProperties();
        properties.getDispatcher().setNamespace("orders");
        properties.getDispatcher().setTaskQueue("");
        Errors errors = new BeanPropertyBindingResult(properties, DurableStoreProperties.PREFIX);

        properties.validate(properties, errors);

        assertThat(errors.getFieldErrors()).singleElement().satisfies(e -> {
            assertThat(e.getField()).isEqualTo("dispatcher.taskQueue");
            assertThat(e.getDefaultMessage()).isEqualTo("durablestore.dispatcher.task-queue must not be empty");
        });
        properties.getDispatcher().setTaskQueue("payments");
        assertThat(properties.getDispatcher().claimStreamOptions(null).scope())
                .isEqualTo(ClaimScope.of("orders", "payments"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @DisplayName("given one bad property, start-up fails naming it in the words of the type that checks it")
    @CsvSource(
            delimiter = '|',
            value = {
                // the library's checks
                "sqlite.busy-timeout       | -1ms    | must be between 0 and 2147483647 ms, was PT-0.001S",
                "sqlite.reader-pool-size   | 0       | must be between 1 and 64, was 0",
                "sqlite.max-batch-commands | 100001  | must be between 1 and 100000, was 100001",
                "r2dbc.notify-channel      | Bad     | must be a lower-case identifier of 1 to 63 letters",
                "r2dbc.operation-timeout   | 0s      | must be positive, was PT0S",
                "reaper.lease              | 0s      | must be positive, was PT0S",
                "reaper.interval           | -1s     | must be positive, was PT-1S",
                "reaper.batch-size         | 0       | must be at least 1, was 0",
                "retention.closed-for      | 0s      | must be positive, was PT0S",
                "retention.interval        | -1s     | must be positive, was PT-1S",
                "retention.batch-size      | 0       | must be at least 1, was 0",
                "dispatcher.max-batch      | 0       | must be between 1 and 10000, was 0",
                "dispatcher.poll-interval  | 0s      | must be positive, was PT0S",
                "console.path              | ops/    | must look like /ops/console (no trailing slash), was 'ops/'",
                "console.preview-bytes     | 15      | must be between 16 and 65536, was 15",
                "console.count-cap         | 0       | must be between 1 and 10000000, was 0",
                "console.count-ttl         | -1s     | must not be negative, was PT-1S",
                "console.max-bulk          | 10001   | must be between 1 and 10000, was 10001",
                // the starter's own
                "dispatcher.concurrency    | 10001   | must be between 1 and 10000, was 10001",
                "dispatcher.max-attempts   | 0       | must be between 1 and 1000000, was 0",
                "dispatcher.initial-backoff | -1s    | must not be negative, was PT-1S",
                "dispatcher.max-backoff    | 100ms   | must not be shorter than durablestore.dispatcher.initial-backoff",
                "dispatcher.drain-timeout  | -1s     | must not be negative, was PT-1S",
                "metrics.store-name        | ' '     | must not be blank",
            })
    void oneBadProperty(String property, String value, String problem) {
        new ApplicationContextRunner()
                .withConfiguration(LineFixtures.starter())
                .withPropertyValues(
                        "durablestore.sqlite.path=" + dir.resolve("store.db"), "durablestore." + property + "=" + value)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .rootCause()
                            .hasMessageContaining("durablestore." + property + " " + problem);
                    assertThat(dir.resolve("store.db")).doesNotExist();
                });
    }

    /** @return the durablestore properties of every configuration metadata file, by name */
    private static Map<String, JsonNode> durableStoreMetadata() throws IOException {
        Map<String, JsonNode> found = new LinkedHashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (URL file : Collections.list(DurableStorePropertiesTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = file.openStream()) {
                for (JsonNode property : json.readTree(in).path("properties")) {
                    String name = property.get("name").asText();
                    if (name.startsWith(DurableStoreProperties.PREFIX + ".")) {
                        found.put(name, property);
                    }
                }
            }
        }
        return found;
    }

    /** @return {@code sqlite.readerPoolSize} for {@code durablestore.sqlite.reader-pool-size} */
    private static String field(String property) {
        String kebab = property.substring(DurableStoreProperties.PREFIX.length() + 1);
        StringBuilder camel = new StringBuilder();
        for (int i = 0; i < kebab.length(); i++) {
            char c = kebab.charAt(i);
            camel.append(c == '-' ? Character.toUpperCase(kebab.charAt(++i)) : c);
        }
        return camel.toString();
    }
}

package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring Boot 4 application that depends on the Boot 3.5 starter instead of the Boot 4 one: it
 * must not start partly working, but stop before the store opens, naming the artifact to use. Runs
 * in its own Surefire execution, whose class path has the Boot 3 starter and not the Boot 4 one.
 */
class WrongStarterTest {

    @TempDir
    Path dir;

    /** An application as the README shows it. */
    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}

    @Test
    @DisplayName(
            "given Spring Boot 4 with the Boot 3 starter, start-up fails naming the Boot 4 starter and opens nothing")
    void boot3StarterOnBoot4() {
        Path file = dir.resolve("app.db");

        assertThatThrownBy(() -> new SpringApplicationBuilder(App.class)
                        .web(WebApplicationType.NONE)
                        .properties("durablestore.backend=sqlite", "durablestore.sqlite.path=" + file)
                        .run()
                        .close())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("durable-store: this application runs Spring Boot 4.0.7, but its durable-store "
                        + "starter is dev.durablestore:durable-store-spring-boot-3-starter")
                .hasMessageEndingWith("replace it with dev.durablestore:durable-store-spring-boot-4-starter");
        assertThat(file).doesNotExist();
    }
}

package dev.durablestore.spring;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Boot line check: the starter on the class path must be the running Spring Boot line's. */
class BootLineTest {

    private static final String THREE = "dev.durablestore.spring.boot3.DurableStoreBoot3AutoConfiguration";
    private static final String FOUR = "dev.durablestore.spring.boot4.DurableStoreBoot4AutoConfiguration";

    @Test
    @DisplayName("given each line with its own starter, the check passes")
    void rightStarterPasses() {
        assertThatCode(() -> BootLine.check("3.5.7", Set.of(THREE)::contains)).doesNotThrowAnyException();
        assertThatCode(() -> BootLine.check("4.0.7", Set.of(FOUR)::contains)).doesNotThrowAnyException();
        assertThatCode(() -> BootLine.check("4.1.2", Set.of(FOUR)::contains)).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("given Spring Boot 4 with the Boot 3 starter, start-up fails naming the artifact to use")
    void boot3StarterOnBoot4() {
        assertThatThrownBy(() -> BootLine.check("4.1.2", Set.of(THREE)::contains))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("durable-store: this application runs Spring Boot 4.1.2, but its durable-store starter is "
                        + "dev.durablestore:durable-store-spring-boot-3-starter, which is for Spring Boot 3.5: replace it "
                        + "with dev.durablestore:durable-store-spring-boot-4-starter");
    }

    @Test
    @DisplayName("given Spring Boot 3.5 with the Boot 4 starter, start-up fails naming the artifact to use")
    void boot4StarterOnBoot3() {
        assertThatThrownBy(() -> BootLine.check("3.5.7", Set.of(FOUR)::contains))
                .hasMessageContaining("runs Spring Boot 3.5.7, but its durable-store starter is "
                        + "dev.durablestore:durable-store-spring-boot-4-starter")
                .hasMessageEndingWith("replace it with dev.durablestore:durable-store-spring-boot-3-starter");
    }

    @Test
    @DisplayName("given both starters, start-up fails naming the one to keep")
    void bothStarters() {
        assertThatThrownBy(() -> BootLine.check("4.0.7", Set.of(THREE, FOUR)::contains))
                .hasMessageContaining("has both durable-store starters")
                .hasMessageEndingWith("keep only dev.durablestore:durable-store-spring-boot-4-starter");
    }

    @Test
    @DisplayName("given a line no starter supports, start-up fails naming the supported lines")
    void unsupportedLines() {
        assertThatThrownBy(() -> BootLine.check("3.4.10", Set.of(THREE)::contains))
                .hasMessageContaining("runs Spring Boot 3.4.10, which no durable-store starter supports")
                .hasMessageContaining("durable-store-spring-boot-3-starter for Spring Boot 3.5");
        assertThatThrownBy(() -> BootLine.check("5.0.0", Set.of(FOUR)::contains))
                .hasMessageContaining("runs Spring Boot 5.0.0, which no durable-store starter supports")
                .hasMessageContaining("durable-store-spring-boot-4-starter is for Spring Boot 4.0 and 4.1");
    }
}

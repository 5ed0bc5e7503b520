package dev.durablestore.spring;

import java.util.function.Predicate;
import org.springframework.boot.SpringBootVersion;
import org.springframework.util.ClassUtils;

/**
 * Which starter goes with which Spring Boot line, and the check that the running application has the
 * right one. Each starter compiles against its own line's packages (Boot 4 moved health, R2DBC and
 * metrics to new ones), so a starter on the other line would start with its conditions silently
 * failing: no health, no meters, or the wrong database. The check stops start-up instead, naming the
 * artifact to use.
 */
enum BootLine {
    /** Spring Boot 3.5. */
    BOOT_3(
            "3.5",
            "durable-store-spring-boot-3-starter",
            "dev.durablestore.spring.boot3.DurableStoreBoot3AutoConfiguration"),
    /** Spring Boot 4.0 and 4.1. */
    BOOT_4(
            "4.0 and 4.1",
            "durable-store-spring-boot-4-starter",
            "dev.durablestore.spring.boot4.DurableStoreBoot4AutoConfiguration");

    private static final String GROUP = "dev.durablestore:";

    /** In Spring Boot 3's spring-boot-autoconfigure; Spring Boot 4 moved it to spring-boot-r2dbc. */
    private static final String BOOT_3_ONLY_CLASS =
            "org.springframework.boot.autoconfigure.r2dbc.R2dbcAutoConfiguration";

    private final String versions;
    private final String artifact;
    private final String marker;

    BootLine(String versions, String artifact, String marker) {
        this.versions = versions;
        this.artifact = artifact;
        this.marker = marker;
    }

    /**
     * Checks the application's class path against its Spring Boot version.
     *
     * @param classLoader where the starters are looked for
     * @throws IllegalStateException naming the artifact to use when the running Boot line is not
     *     supported, or its starter is missing, or the other line's starter is present
     */
    static void check(ClassLoader classLoader) {
        Predicate<String> present = name -> ClassUtils.isPresent(name, classLoader);
        String version = SpringBootVersion.getVersion();
        if (version == null) {
            // no manifest (a repackaged jar without one): tell the lines apart by a class only Boot 3 has
            version = present.test(BOOT_3_ONLY_CLASS) ? "3.5 (from its classes)" : "4 (from its classes)";
        }
        check(version, present);
    }

    /**
     * @param bootVersion the running Spring Boot version
     * @param present whether a class is on the class path
     */
    static void check(String bootVersion, Predicate<String> present) {
        BootLine running = of(bootVersion);
        boolean three = present.test(BOOT_3.marker);
        boolean four = present.test(BOOT_4.marker);
        if (running != null && (running == BOOT_3 ? three && !four : four && !three)) {
            return;
        }
        StringBuilder problem = new StringBuilder("durable-store: this application runs Spring Boot " + bootVersion);
        if (running == null) {
            problem.append(", which no durable-store starter supports: ")
                    .append(GROUP + BOOT_4.artifact + " is for Spring Boot " + BOOT_4.versions + ", ")
                    .append(GROUP + BOOT_3.artifact + " for Spring Boot " + BOOT_3.versions);
        } else if (three && four) {
            problem.append(
                    " and has both durable-store starters on its class path: keep only " + GROUP + running.artifact);
        } else if (three || four) {
            BootLine other = three ? BOOT_3 : BOOT_4;
            problem.append(", but its durable-store starter is " + GROUP + other.artifact
                    + ", which is for Spring Boot " + other.versions + ": replace it with " + GROUP + running.artifact);
        } else {
            problem.append(" without a durable-store starter (durable-store-spring-boot-core is not used on its own): "
                    + "depend on " + GROUP + running.artifact);
        }
        throw new IllegalStateException(problem.toString());
    }

    /** @return the line of that version, or null when no starter supports it */
    private static BootLine of(String bootVersion) {
        if (bootVersion.startsWith("3.5")) {
            return BOOT_3;
        }
        if (bootVersion.startsWith("4.")) {
            return BOOT_4;
        }
        return null;
    }
}

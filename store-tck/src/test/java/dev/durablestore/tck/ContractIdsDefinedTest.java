package dev.durablestore.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ObjIntConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every contract rule id cited in the repository's Java code is defined in {@code docs/contract.md}.
 *
 * <p>The contract itself is kept outside the repository, so {@code docs/contract.md} is the only
 * place in it that says what a cited id means. This test scans every {@code src/main/java} and
 * {@code src/test/java} tree under the repository root for rule ids and fails naming each id that
 * the page does not define with a {@code - **ID**} list entry.
 *
 * <p>An id is a contract group letter ({@code E M O R S T V W X C}) or {@code OQ} / {@code OQ-}
 * followed by a number from 1, touching no ASCII letter or digit on either side (an underscore
 * separates ids in test names, e.g. {@code E25_S24_…}); {@code OQ4}, the spelling a method name
 * allows, is {@code OQ-4}. Other letters are not contract groups: {@code P1}–{@code P6} are
 * benchmark targets, {@code H2} a database; numbers start at 1, so {@code T0} (a test instant) is
 * not an id either.
 */
class ContractIdsDefinedTest {

    /** The group letters of the contract; {@code O} also starts {@code OQ}. */
    private static final String GROUPS = "DEMORSTVWXC";

    /** A definition in docs/contract.md: a list item that starts with the bold id. */
    private static final Pattern DEFINED = Pattern.compile("(?m)^- \\*\\*(OQ-[1-9][0-9]*|[A-Z][1-9][0-9]*)\\*\\*");

    @Test
    void every_rule_id_cited_in_code_is_defined_in_docs_contract_md() throws IOException {
        Path root = repositoryRoot();
        Set<String> defined = new TreeSet<>();
        Matcher d = DEFINED.matcher(Files.readString(root.resolve("docs/contract.md"), StandardCharsets.UTF_8));
        while (d.find()) {
            defined.add(d.group(1));
        }

        Map<String, String> firstCitation = new TreeMap<>();
        List<Path> sources = javaSources(root);
        for (Path file : sources) {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            scan(
                    text,
                    (id, offset) ->
                            firstCitation.computeIfAbsent(id, k -> root.relativize(file) + ":" + lineOf(text, offset)));
        }

        assertTrue(defined.size() > 100, "only " + defined.size() + " ids defined in docs/contract.md");
        assertTrue(
                firstCitation.size() > 100,
                "only " + firstCitation.size() + " ids cited in " + sources.size() + " Java files under " + root);
        List<String> undefined = new ArrayList<>();
        firstCitation.forEach((id, where) -> {
            if (!defined.contains(id)) {
                undefined.add(id + " (first cited at " + where + ")");
            }
        });
        if (!undefined.isEmpty()) {
            fail("rule ids cited in code but not defined in docs/contract.md (add a '- **ID** meaning' entry): "
                    + String.join(", ", undefined));
        }
    }

    @Test
    void the_scan_finds_ids_in_prose_and_test_names_and_skips_look_alikes() {
        List<String> found = new ArrayList<>();
        scan(
                "(E13, O52, OQ-2) E25_S24_x OQ4_y S1–S6 {@code R10}. "
                        + "P1 H2 T0 0xE5 \\uD83D E2E aS3 S3b $X9 M03 W7_W11_x (W12) W0 W3C",
                (id, offset) -> found.add(id));
        assertEquals(List.of("E13", "O52", "OQ-2", "E25", "S24", "OQ-4", "S1", "S6", "R10", "W7", "W11", "W12"), found);
    }

    /**
     * Reports every rule id in {@code text} with its offset. Written by hand rather than as a
     * regular expression with look-around: that took most of a second over the repository's 2 MB of
     * sources on a loaded machine, this takes milliseconds.
     */
    static void scan(String text, ObjIntConsumer<String> sink) {
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (GROUPS.indexOf(c) < 0 || (i > 0 && (isAsciiAlnum(text.charAt(i - 1)) || text.charAt(i - 1) == '$'))) {
                continue;
            }
            int j = i + 1;
            String prefix = String.valueOf(c);
            if (c == 'O' && j < n && text.charAt(j) == 'Q') {
                j++;
                if (j < n && text.charAt(j) == '-') {
                    j++;
                }
                prefix = "OQ-";
            }
            if (j >= n || text.charAt(j) < '1' || text.charAt(j) > '9') {
                continue;
            }
            int k = j;
            while (k < n && text.charAt(k) >= '0' && text.charAt(k) <= '9') {
                k++;
            }
            if (k == n || !isAsciiAlnum(text.charAt(k))) {
                sink.accept(prefix + text.substring(j, k), i);
            }
            i = k - 1;
        }
    }

    private static boolean isAsciiAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** The 1-based line of a character offset. */
    private static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    /** The nearest directory at or above the working directory that holds docs/contract.md and a pom. */
    private static Path repositoryRoot() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/contract.md")) && Files.isRegularFile(p.resolve("pom.xml"))) {
                return p;
            }
        }
        throw new AssertionError(
                "no docs/contract.md at or above " + Path.of("").toAbsolutePath());
    }

    /** Every .java file under a src/main/java or src/test/java directory, skipping build output and dot dirs. */
    private static List<Path> javaSources(Path root) throws IOException {
        List<Path> out = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                boolean skip = !dir.equals(root)
                        && (name.startsWith(".") || name.startsWith("target") || name.equals("node_modules"));
                return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String path = root.relativize(file).toString().replace('\\', '/');
                if (path.endsWith(".java") && (path.contains("src/main/java/") || path.contains("src/test/java/"))) {
                    out.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return out;
    }
}

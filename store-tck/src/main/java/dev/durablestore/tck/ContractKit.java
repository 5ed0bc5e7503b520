package dev.durablestore.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The contracts of the kit, and the check that a backend runs every one of them.
 *
 * <p>A contract is a public abstract class of this package that extends {@link ContractTestSupport}
 * ({@link AppendContract}, {@link ClaimContract} …). A backend runs it by extending it, in one
 * package of its test tree, with a concrete class named after the backend and the contract:
 * {@code class SqliteAppendContractTest extends AppendContract}, whose only method returns the
 * backend's {@link StoreHarnessFactory}. JUnit does not notice a contract that has no such class,
 * so each backend also runs one test that calls {@link #assertEveryContractRuns}: it lists the
 * contracts this module holds and fails naming each one the backend does not run. A contract added
 * to the kit then fails the build of every backend until each runs it, or says why it cannot.
 *
 * <p>The name is part of the check because the build selects the runs by it (the backends' Surefire
 * executions run {@code Sqlite*ContractTest} and {@code Postgres*ContractTest} under BlockHound).
 */
public final class ContractKit {

    private static final String PACKAGE = ContractKit.class.getPackageName();

    private ContractKit() {}

    /**
     * Lists the contracts of the kit by reading this module's classes, from its jar or its class
     * directory, so the list cannot fall behind the kit.
     *
     * @return every public abstract subclass of {@link ContractTestSupport} in this package, ordered
     *     by simple name
     * @throws IllegalStateException if the module's classes cannot be read or hold no contract
     */
    public static List<Class<? extends ContractTestSupport>> contracts() {
        Path location = codeLocation();
        List<Class<? extends ContractTestSupport>> contracts = new ArrayList<>();
        for (String name : classNames(location)) {
            Class<?> type;
            try {
                type = Class.forName(name, false, ContractKit.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("cannot load " + name + " listed at " + location, e);
            }
            if (isContract(type)) {
                contracts.add(type.asSubclass(ContractTestSupport.class));
            }
        }
        if (contracts.isEmpty()) {
            throw new IllegalStateException("no contract class found in package " + PACKAGE + " of " + location);
        }
        contracts.sort(Comparator.comparing(Class::getSimpleName));
        return List.copyOf(contracts);
    }

    /**
     * Fails unless the backend runs every contract of the kit: for each contract {@code C} not in
     * {@code withoutRun}, the package of {@code checkClass} must hold a concrete class named
     * {@code backend + C.getSimpleName() + "Test"} that extends {@code C}.
     *
     * @param backend the backend's name as its contract classes begin, e.g. {@code "Sqlite"}
     * @param checkClass a class in the package of the backend's contract classes, usually the test
     *     that calls this method; its class loader finds them
     * @param withoutRun the contracts the backend deliberately does not run, each with the reason
     *     (empty when it runs the whole kit); listed here so that the exception stays visible and is
     *     checked: a listed contract that has a run, is not a contract, or has a blank reason fails too
     * @throws AssertionError naming each contract without a run and each stale entry of
     *     {@code withoutRun}, and saying how to fix it
     */
    public static void assertEveryContractRuns(
            String backend, Class<?> checkClass, Map<Class<? extends ContractTestSupport>, String> withoutRun) {
        String pkg = checkClass.getPackageName();
        List<String> problems =
                problems(backend, pkg, contracts(), withoutRun, name -> load(name, checkClass.getClassLoader()));
        if (!problems.isEmpty()) {
            throw new AssertionError("the contract kit does not run whole on " + backend + ": for each contract C, add"
                    + " 'class " + backend + "<C>Test extends <C>' to package " + pkg
                    + ", or put C with the reason it cannot run there in the map that "
                    + checkClass.getSimpleName() + " gives ContractKit.assertEveryContractRuns\n  - "
                    + String.join("\n  - ", problems));
        }
    }

    /**
     * The check of {@link #assertEveryContractRuns}, over a given list of contracts and a given
     * lookup of classes by binary name ({@code null} when there is none).
     *
     * @return one line per problem, empty when the backend runs every contract
     */
    static List<String> problems(
            String backend,
            String pkg,
            List<Class<? extends ContractTestSupport>> contracts,
            Map<Class<? extends ContractTestSupport>, String> withoutRun,
            Function<String, Class<?>> find) {
        List<String> problems = new ArrayList<>();
        for (Class<? extends ContractTestSupport> contract : contracts) {
            String name = pkg + "." + backend + contract.getSimpleName() + "Test";
            Class<?> run = find.apply(name);
            String reason = withoutRun.get(contract);
            if (reason != null) {
                if (reason.isBlank()) {
                    problems.add(contract.getSimpleName() + " is listed as not run on " + backend + " with no reason");
                }
                if (run != null) {
                    problems.add(contract.getSimpleName() + " is listed as not run on " + backend + " (" + reason
                            + ") but " + name + " exists: take it off the list");
                }
            } else if (run == null) {
                problems.add(contract.getSimpleName() + ": no class " + name);
            } else if (!contract.isAssignableFrom(run)) {
                problems.add(contract.getSimpleName() + ": " + name + " does not extend it");
            } else if (Modifier.isAbstract(run.getModifiers())) {
                problems.add(contract.getSimpleName() + ": " + name + " is abstract, so it runs nothing");
            }
        }
        for (Class<? extends ContractTestSupport> listed : withoutRun.keySet()) {
            if (!contracts.contains(listed)) {
                problems.add(listed.getName() + " is listed as not run on " + backend
                        + " but is not a contract of the kit: take it off the list");
            }
        }
        return problems;
    }

    private static boolean isContract(Class<?> type) {
        int modifiers = type.getModifiers();
        return type != ContractTestSupport.class
                && ContractTestSupport.class.isAssignableFrom(type)
                && Modifier.isPublic(modifiers)
                && Modifier.isAbstract(modifiers);
    }

    /** The jar or class directory this class was loaded from. */
    private static Path codeLocation() {
        CodeSource source = ContractKit.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            throw new IllegalStateException("the class loader of " + ContractKit.class.getName()
                    + " does not say where the class was loaded from, so the contracts cannot be listed");
        }
        try {
            return Path.of(source.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot read the classes at " + source.getLocation(), e);
        }
    }

    /** The binary names of the top-level classes of this package at {@code location}. */
    private static List<String> classNames(Path location) {
        try {
            if (Files.isDirectory(location)) {
                return classNamesUnder(location);
            }
            try (FileSystem jar = FileSystems.newFileSystem(location)) {
                return classNamesUnder(jar.getPath("/"));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the classes at " + location, e);
        }
    }

    private static List<String> classNamesUnder(Path root) throws IOException {
        Path dir = root.resolve(PACKAGE.replace('.', '/'));
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(f -> f.endsWith(".class") && f.indexOf('$') < 0)
                    .map(f -> PACKAGE + "." + f.substring(0, f.length() - ".class".length()))
                    .toList();
        }
    }

    /** The class of that name, not initialised, or {@code null} when the loader has none. */
    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }
}

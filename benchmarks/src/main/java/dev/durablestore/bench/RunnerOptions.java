package dev.durablestore.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The runner's command line.
 *
 * @param quick smaller sizes
 * @param runs measured runs per figure (at least 1; 3 or more for figures that count)
 * @param only the target groups to run (e.g. {@code P1}); empty for all
 * @param out where to write the markdown report
 * @param dataDir where the temporary database files go
 * @param jmhArgs arguments for JMH when {@code --jmh} was given, else {@code null}
 * @param help whether usage was asked for
 */
public record RunnerOptions(
        boolean quick, int runs, Set<String> only, Path out, Path dataDir, List<String> jmhArgs, boolean help) {

    /** The usage text. */
    public static final String USAGE = """
            usage: ./bench.sh [--quick] [--runs N] [--only P1,P2,...] [--out FILE] [--dir DIR]
                   ./bench.sh --jmh [JMH options...]

              --quick        smaller sizes (three runs of everything in about three minutes on a quiet machine)
              --runs N       measured runs per figure; every figure is the median over them (default 3)
              --only LIST    run only these target groups (P1 … P6, P8, P9, OBS, POL, PG, POLPG, PGSTAGE, PGCLIENT, BACKUP, SOAK, SOAKPG), e.g.
                             --only P1,P3 (the report then holds only them)
              --out FILE     the markdown report (default BENCHMARKS.md in the current folder)
              --dir DIR      where the temporary database files go (default: java.io.tmpdir); its file
                             system matters for synchronous=FULL
              --jmh ...      run the JMH micro-benchmarks instead, passing the rest of the line to JMH
                             (e.g. --jmh EventCodec -f 1 -wi 2 -i 3)

            Prints a table and one line per target:
              RESULT <id> value=<number> target=<number> met=<true|false>
            Exit status: 0 when every target is met, 1 when one is not, 2 for a bad command line.
            """;

    /**
     * @param args the command line
     * @return the options
     * @throws IllegalArgumentException for an unknown or malformed option
     */
    public static RunnerOptions parse(String[] args) {
        boolean quick = false;
        boolean help = false;
        int runs = 3;
        Set<String> only = new LinkedHashSet<>();
        Path out = Path.of("BENCHMARKS.md");
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        List<String> jmh = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quick" -> quick = true;
                case "--help", "-h" -> help = true;
                case "--runs" -> {
                    runs = Integer.parseInt(value(args, ++i, a));
                    if (runs < 1) {
                        throw new IllegalArgumentException("--runs must be at least 1");
                    }
                }
                case "--only" -> {
                    for (String id : value(args, ++i, a).split(",")) {
                        only.add(id.trim().toUpperCase(Locale.ROOT));
                    }
                }
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--dir" -> dir = Path.of(value(args, ++i, a));
                case "--jmh" -> {
                    jmh = new ArrayList<>();
                    for (int j = i + 1; j < args.length; j++) {
                        jmh.add(args[j]);
                    }
                    i = args.length;
                }
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return new RunnerOptions(quick, runs, only, out, dir, jmh, help);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** @return the sizes these options select */
    public Sizes sizes() {
        return quick ? Sizes.quick() : Sizes.full();
    }

    /**
     * @param id a target group id
     * @return whether it is selected
     */
    public boolean selects(String id) {
        return only.isEmpty() || only.contains(id);
    }
}

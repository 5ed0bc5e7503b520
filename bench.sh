#!/usr/bin/env bash
# The benchmarks of issue 5: builds what they need (quietly), then runs
# dev.durablestore.bench.BenchmarkRunner with the arguments given here. It measures every target
# against a raw-JDBC baseline in the same run, prints a table and one line per target
# (RESULT <id> value=<n> target=<n> met=<true|false>), and writes BENCHMARKS.md here.
#
#   ./bench.sh                 full sizes, every figure the median of 3 runs
#   ./bench.sh --quick         smaller sizes (about three minutes on a quiet 2-core machine)
#   ./bench.sh --quick --runs 1 --only P1,P3
#   ./bench.sh --jmh           the JMH micro-benchmarks (or: java -jar benchmarks/target/benchmarks.jar)
#   ./bench.sh --help          every option
#
# Environment: BENCH_BUILD_DIRNAME  build output folder of every module (default: target)
#              BENCH_JAVA_OPTS      extra JVM options for the runner (e.g. -XX:+FlightRecorder ...)
# Exit status: 0 every target met, 1 a target missed or a workload failed, 2 bad command line.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$root"

for tool in mvn java; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "bench.sh: '$tool' is not on the PATH; the benchmarks need a JDK 17+ and Maven 3.8+" >&2
    exit 1
  fi
done

build_dir="${BENCH_BUILD_DIRNAME:-target}"
classes="$root/benchmarks/$build_dir/classes"
classpath_file="$root/benchmarks/$build_dir/bench.classpath"

# One Maven run: package the benchmarks and the modules they need (tests neither compiled nor run,
# no shaded jar), and write the benchmarks' runtime classpath (the benchmarks module comes last in
# the reactor, so the file ends up holding its classpath). Build output goes to stderr.
echo "bench.sh: building (mvn -q package -pl benchmarks -am) ..." >&2
mvn -q -B -ntp -f "$root/pom.xml" -Dbuild.dirname="$build_dir" -Dmaven.test.skip=true -Dbench.skipShade=true \
    -pl benchmarks -am package dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile="$classpath_file" >&2

command_line="./bench.sh"
for arg in "$@"; do
  command_line+=" $(printf '%q' "$arg")"
done
export BENCH_COMMAND="$command_line"

# A fixed heap so runs compare; P6 starts its own child JVM with a small -Xmx.
# shellcheck disable=SC2086
exec java -Xms2g -Xmx2g ${BENCH_JAVA_OPTS:-} -cp "$classes:$(cat "$classpath_file")" \
    dev.durablestore.bench.BenchmarkRunner "$@"

#!/usr/bin/env bash
# The demo: builds what it needs (quietly), then runs dev.durablestore.examples.demo.Demo with the
# arguments given here, from the current directory (so --db paths are relative to where you are).
#
#   ./demo.sh                    2,000 workflows x 5 activities on ./durable-store-demo.db
#   ./demo.sh --workflows 200    a smaller run; run it again on the same file to see it resume
#   ./demo.sh --help             every option
#
# Exit status: 0 verified, 1 verification failed or the run broke, 2 bad command line.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

for tool in mvn java; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "demo.sh: '$tool' is not on the PATH; the demo needs a JDK 17+ and Maven 3.8+" >&2
    exit 1
  fi
done

classes="$root/examples/target/classes"
classpath_file="$root/examples/target/demo.classpath"

# One Maven run: package the examples module and the modules it needs (tests not compiled), and
# write the examples' runtime classpath. build-classpath runs for each module of the reactor and
# the examples module comes last, so the file ends up holding its classpath (reactor jars under
# target/, third-party jars from the local repository). Build output goes to stderr.
echo "demo.sh: building the demo (mvn -q package -pl examples -am) ..." >&2
mvn -q -B -ntp -f "$root/pom.xml" -Dmaven.test.skip=true -pl examples -am \
    package dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile="$classpath_file" >&2

# JAVA_OPTS, if set, goes to the JVM (e.g. JAVA_OPTS=-Xmx1g) instead of the demo's own flags. A
# run at the defaults lasts a few seconds, most of it spent while the JIT's optimising compiler
# competes with the store's writer for the cores: with the quick compiler alone and the serial
# collector a default run took 2.9 s of CPU instead of 6.1 s and settled faster, and a run of
# 50,000 rows 14 s instead of 19 s, as fast.
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC} -cp "$classes:$(cat "$classpath_file")" dev.durablestore.examples.demo.Demo "$@"

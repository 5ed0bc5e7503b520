#!/usr/bin/env bash
# Runs one example of the examples module: builds what it needs (quietly), then runs the class
# dev.durablestore.examples.NAME (or a fully-qualified class name) with the remaining arguments,
# from the current directory (so file arguments are relative to where you are).
#
#   ./examples/run.sh MinimalDispatcher                  on ./minimal-dispatcher.db
#   ./examples/run.sh MinimalDispatcher /tmp/my.db       on another file
#
# DURABLESTORE_BUILD_DIR names the build output folder of every module (default: target).
set -euo pipefail

if [[ $# -lt 1 || "$1" == "-h" || "$1" == "--help" ]]; then
  echo "usage: examples/run.sh NAME [ARGS...]   e.g. examples/run.sh MinimalDispatcher" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${DURABLESTORE_BUILD_DIR:-target}"

for tool in mvn java; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run.sh: '$tool' is not on the PATH; the examples need a JDK 17+ and Maven 3.8+" >&2
    exit 1
  fi
done

main="$1"
shift
if [[ "$main" != *.* ]]; then
  main="dev.durablestore.examples.$main"
fi

classes="$root/examples/$build_dir/classes"
classpath_file="$root/examples/$build_dir/examples.classpath"

# One Maven run, as in demo.sh: package the examples module and the modules it needs (tests not
# compiled), and write its runtime classpath (the examples module is last in the reactor, so the
# file ends up holding its classpath). Build output goes to stderr.
echo "run.sh: building the examples (mvn -q package -pl examples -am) ..." >&2
mvn -q -B -ntp -f "$root/pom.xml" -Dbuild.dirname="$build_dir" -Dmaven.test.skip=true -pl examples -am \
    package dependency:build-classpath \
    -DincludeScope=runtime -Dmdep.outputFile="$classpath_file" >&2

# JAVA_OPTS, if set, goes to the JVM.
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} -cp "$classes:$(cat "$classpath_file")" "$main" "$@"

#!/usr/bin/env bash
# Runs the Spring WebFlux example service (module examples-webflux): builds it and the modules it
# needs (quietly, tests skipped), then starts it from the current directory, so the database
# file ./durable-store-webflux.db is created where you are. Arguments go to Spring Boot:
#
#   ./examples/run-webflux.sh                                   port 8080, ./durable-store-webflux.db
#   ./examples/run-webflux.sh --server.port=9090 --durablestore.sqlite.path=/tmp/w.db
#
# Then, in another terminal:
#   curl -i -H 'Content-Type: application/json' localhost:8080/workflows \
#        -d '{"type":"checkout","input":{"order":42},"activities":[{"type":"charge-card"},{"type":"send-email"}]}'
#   curl localhost:8080/workflows/<id>            the summary
#   curl localhost:8080/workflows/<id>/history    the events
#   curl -N localhost:8080/dispatches             claims rows as server-sent events (Ctrl-C to stop)
#   http://localhost:8080/ops/durable-store/       the operator console (read-only)
#
# It runs with demo traffic (example.traffic.enabled=true): a few checkout workflows a second, their
# rows worked by the starter's dispatcher, some retried, a few into dead letters, so the console has
# something to show. EXAMPLE_TRAFFIC_ENABLED=false (or --example.traffic.enabled=false) turns it off;
# --example.traffic.workflows-per-second=10 and the other example.traffic.* properties tune it.
#
# DURABLESTORE_BUILD_DIR names the build output folder of every module (default: target).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${DURABLESTORE_BUILD_DIR:-target}"

for tool in mvn java; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "run-webflux.sh: '$tool' is not on the PATH; the examples need a JDK 17+ and Maven 3.8+" >&2
    exit 1
  fi
done

echo "run-webflux.sh: building the service (mvn -q package -pl examples-webflux -am) ..." >&2
mvn -q -B -ntp -f "$root/pom.xml" -Dbuild.dirname="$build_dir" -Dmaven.test.skip=true -pl examples-webflux -am \
    package >&2

# the demo traffic, unless the caller says otherwise (a command-line argument also wins over this)
export EXAMPLE_TRAFFIC_ENABLED="${EXAMPLE_TRAFFIC_ENABLED:-true}"

# spring-boot-maven-plugin's repackage made an executable jar. JAVA_OPTS, if set, goes to the JVM.
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} -jar "$root/examples-webflux/$build_dir/examples-webflux-1.0.0-SNAPSHOT.jar" "$@"

#!/usr/bin/env bash
# Runs every test of every module (the README's second command; .ci/run calls it).
set -euo pipefail
cd "$(dirname "$0")"
exec mvn -B -ntp verify "$@"

#!/usr/bin/env bash
# The main demo: set up the machine, build, and start two ranks with lapirun
# that print Amsend and Put latency and bandwidth, polling and interrupt
# mode, beside raw UCX measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
exec bash benchmarks/demo.sh "$@"

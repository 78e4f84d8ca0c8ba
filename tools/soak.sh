#!/usr/bin/env bash
# The soak (not in CI): 8 ranks of mixed point-to-point traffic -- random
# sizes from 0 B to 4 MiB, wildcards, probes, matched probes, cancels, all
# four send modes -- with every byte checked, in four phases of equal length:
# polling, interrupt, and both again with LAPIS_CHECKSUM=crc32c where the
# core offers it. Per phase it prints messages, bytes, errors (must be 0),
# RSS growth per rank after warm-up and open file descriptors.
#
#   bash tools/soak.sh [--minutes M] [--ranks N] [--json]   # default 10 minutes, 8 ranks
#
# Exit status: non-zero if any phase saw an error or a rank's RSS grew by
# more than LAPIS_SOAK_MAX_GROWTH_MIB (default 64) after warm-up.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=10
ranks=8
json=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --json) json=--json; shift ;;
    *) echo "usage: bash tools/soak.sh [--minutes M] [--ranks N] [--json]" >&2; exit 2 ;;
  esac
done
max_growth_kib=$(( ${LAPIS_SOAK_MAX_GROWTH_MIB:-64} * 1024 ))

bash tools/setup.sh
bazel build --config=lto //benchmarks:mpi_soak //runtime:lapirun
lapirun=bazel-bin/runtime/lapirun
soak=bazel-bin/benchmarks/mpi_soak

phases=("LAPIS_MODE=polling" "LAPIS_MODE=interrupt")
# Checksum phases only where the core knows LAPIS_CHECKSUM (a start-up error otherwise).
if LAPIS_CHECKSUM=crc32c "$lapirun" -n 1 "$soak" --seconds 0.1 > /dev/null 2>&1; then
  phases+=("LAPIS_MODE=polling LAPIS_CHECKSUM=crc32c" "LAPIS_MODE=interrupt LAPIS_CHECKSUM=crc32c")
fi
seconds=$(( minutes * 60 / ${#phases[@]} ))
status=0
for phase in "${phases[@]}"; do
  echo "=== soak phase: $phase, $ranks ranks, $seconds s"
  xs=()
  for setting in $phase; do xs+=(-x "$setting"); done
  out=$(mktemp)
  if ! "$lapirun" -n "$ranks" --timeout $(( seconds + 300 )) "${xs[@]}" "$soak" --seconds "$seconds" $json | tee "$out"; then
    status=1
  fi
  # Growth after warm-up, per rank (the table's "growth N KiB" or the JSON field).
  while read -r growth; do
    if [ "$growth" -gt "$max_growth_kib" ]; then
      echo "soak: RSS growth $growth KiB after warm-up exceeds $max_growth_kib KiB"
      status=1
    fi
  done < <(grep -oE '(growth |"rss_growth_kib":)-?[0-9]+' "$out" | grep -oE '[-0-9]+$')
  rm -f "$out"
done
exit $status

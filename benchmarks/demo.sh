#!/usr/bin/env bash
# Quick look at Lapis beside raw UCX: ping-pong latency and streaming
# bandwidth of Amsend and Put at 8 B, 4 KiB, 64 KiB and 1 MiB, polling and
# interrupt mode, inline completion policy. Two ranks under the bazel-built
# lapirun. Takes well under a minute.
#
#   benchmarks/demo.sh            (builds what it needs first)
#   bazel run //benchmarks:demo
#
# Extra arguments go to both benchmarks (e.g. --reps 7). Latency on these
# small VMs varies between runs by up to 5x; read the lapis/ucx ratio, which
# is measured interleaved within one run.
set -euo pipefail

if [[ -n "${RUNFILES_DIR:-}" || -d "$0.runfiles" ]]; then
  # Started by `bazel run`: the binaries are runfiles.
  runfiles="${RUNFILES_DIR:-$0.runfiles}/lapis"
  lapirun="$runfiles/runtime/lapirun"
  bench_dir="$runfiles/benchmarks"
else
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  cd "$repo"
  echo "demo: building benchmarks and lapirun..." >&2
  if ! log="$(bazel build --config=lto //benchmarks:lapi_latency //benchmarks:lapi_bandwidth \
      //runtime:lapirun 2>&1)"; then
    grep -v "linux-sandbox" <<<"$log" | tail -25 >&2
    exit 1
  fi
  bin="$(bazel info --config=lto bazel-bin 2>/dev/null)"
  lapirun="$bin/runtime/lapirun"
  bench_dir="$bin/benchmarks"
fi

for f in "$lapirun" "$bench_dir/lapi_latency" "$bench_dir/lapi_bandwidth"; do
  [[ -x "$f" ]] || { echo "demo: missing $f (build failed?)" >&2; exit 1; }
done

common=(--sizes 8,4K,64K,1M --op amsend,put --mode polling,interrupt --policy inline --reps 3)

echo "== Latency (lapirun -n 2 lapi_latency) =="
"$lapirun" -n 2 --timeout 60 "$bench_dir/lapi_latency" "${common[@]}" "$@"
echo
echo "== Bandwidth (lapirun -n 2 lapi_bandwidth) =="
"$lapirun" -n 2 --timeout 60 "$bench_dir/lapi_bandwidth" "${common[@]}" "$@"

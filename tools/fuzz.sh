#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (--config=fuzz, in
# an output base of its own) and runs each on its checked-in corpus. Fails on
# any crash, leak, timeout or sanitizer report; the input that caused it is
# kept under the artifact folder it names.
#
#   tools/fuzz.sh --seconds 10              # every harness, 10 s each (CI)
#   tools/fuzz.sh --runs 10000000 NAME...   # these harnesses, so many inputs
#   FUZZ_WORK=DIR tools/fuzz.sh --seconds 60 NAME  # a run that keeps its new inputs in DIR
#   FUZZ_WORK=DIR tools/fuzz.sh --merge NAME...     # then: add their new coverage to corpus/NAME
#
# Prints one "//tests/fuzz:NAME  PASSED|FAILED in Ts (fuzz)" line per harness
# (tools/test.sh counts them) with libFuzzer's figures: executions, cov, ft.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=""
runs=""
merge=0
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ -n "$seconds$runs" ] || [ $merge -eq 1 ] || seconds=20

all=$(cd tests/fuzz && ls -1 *_fuzzer.cc | sed 's/\.cc$//')
[ ${#names[@]} -gt 0 ] || mapfile -t names <<<"$all"

compiler=${FUZZ_CC:-clang-14}
command -v "$compiler" >/dev/null || { echo "fuzz.sh: $compiler not found (tools/setup.sh installs it)"; exit 1; }
out_base=${FUZZ_OUTPUT_BASE:-$HOME/.cache/lapis-fuzz}
targets=()
for n in "${names[@]}"; do targets+=("//tests/fuzz:$n"); done
echo "=== fuzz: building ${names[*]} with $compiler"
build_log=$(mktemp)
if ! bazel --output_base="$out_base" build --repo_env=CC="$compiler" --config=fuzz "${targets[@]}" \
    >"$build_log" 2>&1; then
  grep -E 'error|ERROR' "$build_log" | head -n 20
fi
rm -f "$build_log"
bin=$(bazel --output_base="$out_base" info --config=fuzz bazel-bin 2>/dev/null)/tests/fuzz
for n in "${names[@]}"; do
  [ -x "$bin/$n" ] || { echo "ERROR: fuzz build failed ($n missing)"; echo "//tests/fuzz:$n  FAILED in 0s (fuzz)"; exit 1; }
done

work=${FUZZ_WORK:-$(mktemp -d /tmp/lapis-fuzz.XXXXXX)}
mkdir -p "$work"
failed=0
# The sanitizers' settings for every run of a harness, merges included (UCX's
# own allocations at exit are suppressed: tests/fuzz/lsan.supp).
sanitizer_env=(
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
  UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
  LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/tests/fuzz/lsan.supp:print_suppressions=0}"
)
for n in "${names[@]}"; do
  corpus=tests/fuzz/corpus/$n
  mkdir -p "$work/$n/new" "$work/$n/artifacts"
  if [ $merge -eq 1 ]; then
    # Keeps only inputs that add coverage to what the corpus already has.
    env "${sanitizer_env[@]}" "$bin/$n" -merge=1 -artifact_prefix="$work/$n/artifacts/" \
      "$corpus" "$work/$n/new" >"$work/$n/merge.log" 2>&1
    echo "fuzz: $n: $(grep -c '' <(ls "$corpus")) inputs in $corpus after merge"
    continue
  fi
  limit=()
  # Per-harness libFuzzer flags, one per line, '#' comments (tests/fuzz/NAME.flags).
  [ -f "tests/fuzz/$n.flags" ] && mapfile -t limit < <(grep -v '^#' "tests/fuzz/$n.flags" | grep .)
  [ -n "$seconds" ] && limit+=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit+=(-runs="$runs")
  start=$(date +%s)
  # New inputs go to the work folder; the checked-in corpus is only read.
  env "${sanitizer_env[@]}" \
    nice -n "${FUZZ_NICE:-10}" "$bin/$n" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$work/$n/artifacts/" \
      "$work/$n/new" "$corpus" >"$work/$n/log" 2>&1
  rc=$?
  took=$(( $(date +%s) - start ))
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$work/$n/log" | grep -oE '[0-9]+$')
  last=$(grep -E '^#[0-9]+' "$work/$n/log" | tail -n 1)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | head -1)
  ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | head -1)
  if [ $rc -eq 0 ]; then
    echo "//tests/fuzz:$n  PASSED in ${took}s (fuzz: ${execs:-?} executions, ${cov:-cov: ?}, ${ft:-ft: ?})"
  else
    failed=$((failed + 1))
    echo "//tests/fuzz:$n  FAILED in ${took}s (fuzz: exit $rc; log $work/$n/log)"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$work/$n/log" | head -n 5
  fi
done
# A passing run leaves nothing behind; a failing one keeps its logs and
# artifacts (named above) to look at.
[ $failed -eq 0 ] && [ -z "${FUZZ_WORK:-}" ] && rm -rf "$work"
[ $failed -eq 0 ]

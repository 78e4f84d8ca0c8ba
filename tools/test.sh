#!/usr/bin/env bash
# Sets up the machine, builds everything and runs every test: the default
# build (every test), the link-time-optimised build the benchmarks and the
# installation use (everything shipped built; the tests of what it ships:
# benchmarks, installation, MPICH-built programs), the suite (less the
# tests in asan_skipped) under AddressSanitizer+UndefinedBehaviorSanitizer,
# ThreadSanitizer on the core, runtime and mpcpi tests (less those in
# tsan_skipped) and on the MPI tests where threads, fibers or progress
# threads meet (the rest of the MPI tests exercise no thread the core tests
# do not), and each fuzzing harness for 10 s (tools/fuzz.sh).
# Ends with "N passed, N failed".
#
#   bash tools/test.sh            # everything
#   bash tools/test.sh --quick    # default build only
set -uo pipefail
cd "$(dirname "$0")/.."

bash tools/setup.sh || { echo "setup failed"; exit 1; }

quick=0
[ "${1:-}" = "--quick" ] && quick=1

log_dir=$(mktemp -d)
started=$SECONDS
stage() { echo "=== [$(((SECONDS - started) / 60))m$(((SECONDS - started) % 60))s] $*"; }
trap 'rm -rf "$log_dir"' EXIT

# Bazel's own summary lines ("//pkg:target  PASSED in 1.2s") are the truth.
run_build() {  # name, bazel args...: a build error counts as a failure below
  local name=$1
  shift
  stage "$name: bazel build $*"
  bazel build "$@" 2>&1 | tee "$log_dir/$name.log" | grep -E '^ERROR' || true
}

run_suite() {  # name, bazel args...
  local name=$1
  shift
  stage "$name: bazel test $*"
  bazel test "$@" 2>&1 | tee "$log_dir/$name.log" | grep -E '^//|Executed|ERROR' || true
}

# What tools/install.sh ships, the demo and the benchmarks: every binary,
# shared library and generated file of these packages, but not the
# cc_library rules' own .so files, which nothing installed or measured
# uses (under LTO each is a whole-program link: 85 s of a slow machine).
shipped_packages="//:all + //lapi/... + //counters/... + //handlers/... + //mpcpi/... + //mpi/...
                  + //runtime/... + //benchmarks/... + //tools/..."
# What the optimised build ships and is measured with.
lto_tests=(//tests/benchmarks/... //tests/mpi:install_test //tests/mpi:mpich_abi_test
           //tests/mpi:p2p_ranks_test //tests/mpi:coll_ranks_test)
# MPI tests with threads, fibers (nonblocking collectives, idup) or the
# interrupt-mode progress thread.
tsan_mpi_tests=(//tests/mpi:api_call_test //tests/mpi:threads_test //tests/mpi:fatal_test
                //tests/mpi:p2p_ranks_test //tests/mpi:coll_nb_ranks_test
                //tests/mpi:thread_multiple_test //tests/mpi:context_slots_test
                //tests/mpi:rma_ranks_test //tests/mpi:intercomm_ranks_test //tests/mpi:connect_test
                //tests/mpi:spawn_test //tests/mpi:sessions_ranks_test
                //tests/mpi:partitioned_ranks_test //tests/mpi:bsend_buffers_ranks_test)

# CI's machines are shared and sometimes slow (a full run took 84-88 min on
# one where another took 31): each sanitizer runs a chosen subset.
# Left out under AddressSanitizer: the benchmarks' smoke tests (below), the
# fuzzing harnesses' corpus runs (tools/fuzz.sh runs them under clang's
# AddressSanitizer), tests of packaging and the launcher's reports that run
# no library code the others do not (user programs built by build systems,
# the installed tree, the MPICH-built programs, Fortran programs over the C
# bindings, the hang report, tool and profiling queries), the choice of
# paths across test hosts (100 s; hosts_links_test keeps a job across test
# hosts), and jobs that connect, spawn or start sessions (ThreadSanitizer
# runs those).
asan_skipped=(-//tests/benchmarks/... -//tests/fuzz/... -//tests/mpi:build_systems_test
              -//tests/mpi:install_test -//tests/mpi:mpich_abi_test -//tests/mpi:fortran_ranks_test
              -//tests/mpi:hang_report_test -//tests/mpi:tool_info_ranks_test
              -//tests/mpi:profiling_test -//tests/mpi:unfreed_ranks_test
              -//tests/runtime:hosts_paths_test -//tests/mpi:spawn_test -//tests/mpi:connect_test
              -//tests/mpi:intercomm_ranks_test -//tests/mpi:sessions_ranks_test)
# Left out under ThreadSanitizer: jobs across test hosts (network
# namespaces; their ranks start the same threads as on one host), and the
# flood (AddressSanitizer runs it; 156 s under this one).
tsan_skipped=(-//tests/runtime:hosts_paths_test -//tests/runtime:hosts_links_test
              -//tests/runtime:lapirun_hosts_test -//tests/mpcpi:flood_test)

# As root (CI) the tests across test hosts (network namespaces) must run, not skip.
hosts_env=()
[ "$(id -u)" = 0 ] && hosts_env=(--test_env=LAPIS_REQUIRE_TEST_HOSTS=1)

# The default build, its objects fat (.bazelrc's lto_objects: the tests
# link their ordinary code), so that the LTO stage below only links.
run_suite default --config=lto_objects "${hosts_env[@]}" //...
if [ $quick -eq 0 ]; then
  # The build that benchmarks, the demo and tools/install.sh use (.bazelrc).
  # Everything shipped is built so; the test binaries themselves are not
  # (an LTO link per test costs minutes and ships nothing).
  mapfile -t shipped < <(bazel query "kind('cc_binary|genrule|sh_binary|filegroup',
                                            $shipped_packages)" 2>/dev/null)
  [ ${#shipped[@]} -gt 0 ] || echo "ERROR: bazel query found nothing shipped" | tee "$log_dir/lto_query.log"
  run_build lto_build --config=lto "${shipped[@]}"
  run_suite lto --config=lto "${lto_tests[@]}"
  # The benchmarks' smoke tests run in the default and LTO builds; under
  # ASan they would add minutes and no code the other suites do not cover.
  # Only what the tests run is built: the stage's time is mostly building
  # (on a slow machine 15 of its 20 minutes), and the benchmarks are built
  # and run in the two builds above.
  run_suite asan --config=asan --build_tests_only -- //... "${asan_skipped[@]}"
  run_suite tsan --config=tsan -- //tests/core/... //tests/runtime/... //tests/mpcpi/... "${tsan_mpi_tests[@]}" \
    "${tsan_skipped[@]}"
  # Each libFuzzer harness for 10 s on its corpus (clang, own output base);
  # one "//tests/fuzz:NAME  PASSED|FAILED" line each, counted below.
  stage "fuzz: tools/fuzz.sh --seconds 10"
  bash tools/fuzz.sh --seconds 10 2>&1 | tee "$log_dir/fuzz.log" | grep -E '^//|ERROR' || true
fi

# Why each failure failed: the end of the test's own output, which Bazel
# prints between "FAIL: //target" and a line of 80 '=' (doctest's own
# separators inside it are 79 long). Bazel's sandbox adds its own debug
# lines after the test's (linux-sandbox*.cc): they would fill the 40 lines.
for log in "$log_dir"/*.log; do
  awk -v suite="$(basename "$log" .log)" '
    /^FAIL: \/\// { block = 1; n = 0; print "=== " suite " " $0; next }
    block && /^=+$/ && length($0) >= 80 { for (i = (n > 40 ? n - 40 : 0); i < n; i++) print "  " line[i % 40]; block = 0; next }
    block && !/linux-sandbox/ { line[n++ % 40] = $0 }' "$log"
done

passed=$(cat "$log_dir"/*.log | grep -cE '^//[^ ]+ +(\(cached\) )?PASSED')
failed=$(cat "$log_dir"/*.log | grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)')
# A build or loading error leaves no per-target line: count it as a failure. Any "ERROR:" line
# of Bazel's does (a package that cannot load ends with "Couldn't start the build", and the
# suite then runs nothing: a green run must not hide that).
build_errors=$(cat "$log_dir"/*.log | grep -cE '^ERROR:')
[ "$build_errors" -gt 0 ] && failed=$((failed + 1))
stage "done"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]

"""compare_mpi's multi-threaded step: MPI_THREAD_MULTIPLE under Lapis, Open MPI and MPICH.

Runs benchmarks/mpi/mpi_mt.c with 1 and 2 threads per rank, built with each
MPI, alternately: the osu_latency_mt pattern (thread t of rank 0 ping-pongs
with thread t of rank 1 on tag t, all pairs at once) and a per-thread
message rate (windows of MPI_Isend per thread pair). Reports medians,
ratios to the better peer, and the windows issue's multi-threaded targets
(2 threads per rank: latency <= 1.0x, per-thread rate >= 1.0x the better
peer).
"""

from compare_series import Series, table

PROG = "mpi_mt"
PROGRAMS = [PROG]  # built with every MPI
THREADS = (1, 2)
LATENCY, RATE = "mpi_latency_mt", "mpi_msgrate_mt"
METRIC = {LATENCY: "us", RATE: "msgs_per_s_per_thread"}


def sizes_for(args):
    if args.sizes is not None:
        return list(args.sizes)
    return [8, 1024] if args.quick else [8, 1024, 16384]


def measure(args, impls, runner, rotate, size_list):
    """One mpi_mt job per implementation and repetition, the starting one rotating."""
    res = Series()
    # No --bind, and lapirun's own binding off: pinning a rank would put the
    # threads it starts on one core, while Open MPI and MPICH run unbound.
    cmd_args = ["--threads", ",".join(str(t) for t in THREADS),
                "--sizes", ",".join(str(s) for s in size_list), "--json"]
    for rep in range(args.reps):
        for name in rotate(list(impls), rep):
            cmd = impls[name].command(PROG, 2, cmd_args, 900, unbound=True)
            _, rows = runner.run(f"rep {rep + 1}: {PROG} {name}", name, cmd, 960)
            for row in rows:
                bench = row.get("bench")
                if bench in METRIC:
                    res.add((bench, row.get("threads")), name, row.get("size"), row.get(METRIC[bench]))
    return res


def report(rep, res, size_list):
    """Tables and JSON rows through compare_mpi's Report (say/emit)."""
    others = [n for n in rep.impls if n != "lapis"]
    rep.say(f"\n== multi-threaded (MPI_THREAD_MULTIPLE, 2 ranks); median of {rep.args.reps} "
            f"interleaved reps ==")
    for bench, threads in sorted(res.values):
        key = (bench, threads)
        unit = METRIC[bench]
        curves = [c for c in rep.impls if c in res.values[key]]
        rep.say(f"-- {bench}, {threads} thread(s) per rank ({'one-way us' if bench == LATENCY else 'messages/s per thread'})")
        table(rep, res, key, curves, others, size_list, {"bench": bench, "threads": threads}, unit,
              ".3f" if bench == LATENCY else ".0f", width=12)


def targets(res, others):
    """(name, value, limit, higher is better): 8 B with 2 threads per rank."""
    checks = []
    for bench, higher, name in ((LATENCY, False, "mt2_8B_latency_over_best_other"),
                                (RATE, True, "mt2_8B_rate_per_thread_over_best_other")):
        key = (bench, 2)
        lap = res.med(key, "lapis", 8)
        values = [v for v in (res.med(key, o, 8) for o in others) if v]
        if lap and values:
            checks.append((name, lap / (max(values) if higher else min(values)), 1.0, higher))
    return checks

"""compare_mpi's one-sided step: MPI windows under Lapis, Open MPI and MPICH.

Runs benchmarks/mpi/mpi_rma_latency.c (Put, Get, Accumulate, Fetch_and_op,
Compare_and_swap with MPI_Win_flush in a lock_all epoch, and with
MPI_Win_fence; on MPI_Win_allocate windows, and without --quick on
MPI_Win_create ones too) and mpi_rma_bw.c (a window of Put or Get, then
MPI_Win_flush), built with each MPI, alternately, plus the Lapis core's own
Put + flush_rma and Get (lapi_rma_latency) beside them; reports medians,
ratios to the better peer, and the one-sided targets of the windows issue.
"""

from compare_series import Series, table

LATENCY = "mpi_rma_latency"
BANDWIDTH = "mpi_rma_bw"
CORE = "lapi_rma_latency"
PROGRAMS = [LATENCY, BANDWIDTH]  # built with every MPI
LAPIS_ONLY = [CORE]
CORE_OPS = {"put": "put", "get": "get", "fetch_and_op": "fetch_and_add",
            "compare_and_swap": "compare_and_swap"}


def sizes_for(args):
    if args.sizes is not None:
        return list(args.sizes)
    return [8, 1024, 65536, 1 << 20] if args.quick else [8, 64, 512, 4096, 32768, 262144, 1 << 20]


def measure(args, impls, ref, runner, rotate, size_list):
    """Every implementation's two programs per repetition, the starting one rotating."""
    res = Series()
    sizes = ",".join(str(s) for s in size_list)
    bind = [] if args.no_bind else ["--bind"]
    for rep in range(args.reps):
        for name in rotate(list(impls) + ["lapis-core"], rep):
            if name == "lapis-core":
                cmd = ref.command(CORE, 2, ["--sizes", sizes, "--json"], 600)
                _, rows = runner.run(f"rep {rep + 1}: {CORE}", "lapis", cmd, 660, CORE)
                for row in rows:
                    for mpi_op, core_op in CORE_OPS.items():
                        if row.get("op") == core_op:
                            res.add((LATENCY, mpi_op, "flush"), "lapis-core", row["size"],
                                    row.get("us"))
                continue
            runs = [(LATENCY, "us", []), (BANDWIDTH, "MBps", [])]
            if not args.quick:  # windows on the program's own memory too
                runs.append((LATENCY, "us", ["--win", "create"]))
            for prog, metric, win in runs:
                cmd = impls[name].command(prog, 2, ["--sizes", sizes, "--json"] + bind + win, 900)
                _, rows = runner.run(f"rep {rep + 1}: {prog} {' '.join(win)} {name}", name, cmd,
                                     960, prog)
                for row in rows:
                    sync = row.get("sync", "flush")
                    if row.get("win") == "create":
                        sync += ", MPI_Win_create"
                    res.add((prog, row.get("op"), sync), name, row["size"], row.get(metric))
    return res


def report(rep, res, size_list):
    """Tables and JSON rows through compare_mpi's Report (say/emit)."""
    others = [n for n in rep.impls if n != "lapis"]
    rep.say(f"\n== one-sided (MPI windows, 2 ranks); median of {rep.args.reps} interleaved reps; "
            f"lapis-core = the core's Put + flush_rma / Get / Rmw ==")
    for key in sorted(res.values, key=lambda k: (k[0] != LATENCY, k[2], k[1])):
        bench, op, sync = key
        unit = "us" if bench == LATENCY else "MBps"
        curves = [c for c in rep.impls + ["lapis-core"] if c in res.values[key]]
        title = f"{op} {'+ ' + sync if bench == LATENCY else 'window 64 + flush'} ({unit})"
        rep.say(f"-- {bench}: {title}")
        ratio_to = others + (["lapis-core"] if "lapis-core" in curves else [])
        table(rep, res, key, curves, ratio_to, size_list, {"bench": bench, "op": op, "sync": sync},
              unit, ".3f" if unit == "us" else ".0f")


def targets(res, others):
    """(name, value, limit, higher is better) for the windows issue's one-sided targets."""
    checks = []

    def best_other(key, size, higher):
        values = [v for v in (res.med(key, o, size) for o in others) if v]
        return (max(values) if higher else min(values)) if values else None

    for op in ("put", "get"):
        key = (LATENCY, op, "flush")
        lap = res.med(key, "lapis", 8)
        other = best_other(key, 8, False)
        if lap and other:
            checks.append((f"rma_{op}_8B_flush_over_best_other", lap / other, 1.0, False))
        core = res.med(key, "lapis-core", 8)
        if lap and core:
            checks.append((f"rma_{op}_8B_flush_over_core", lap / core, 1.3, False))
    for op in ("fetch_and_op", "compare_and_swap"):
        key = (LATENCY, op, "flush")
        lap, other = res.med(key, "lapis", 8), best_other(key, 8, False)
        if lap and other:
            checks.append((f"rma_{op}_8B_over_best_other", lap / other, 1.0, False))
    key = (BANDWIDTH, "put", "flush")
    lap, other = res.med(key, "lapis", 1 << 20), best_other(key, 1 << 20, True)
    if lap and other:
        checks.append(("rma_put_bw_1M_over_best_other", lap / other, 1.0, True))
    return checks

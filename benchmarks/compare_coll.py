"""compare_mpi's collectives step: Lapis, Open MPI and MPICH at 2, 4 and 8 ranks.

Runs benchmarks/mpi/mpi_coll.c (barrier, bcast, reduce, allreduce,
allgather, alltoall; mean time per call averaged over ranks) built with each
MPI, alternately, at each rank count (4 and 8 oversubscribe a 2-core
machine); reports medians, ratios to the better peer and the collectives
issue's targets: every row at 2 and 4 ranks <= 1.0x the better peer (aim
0.7x up to 4 KiB), at 8 ranks <= 1.0x Open MPI (MPICH busy-polls there:
reported, not aimed at), and Allreduce of 8 B at 2 ranks <= 1.5x Lapis' own
8 B point-to-point round trip (2 x mpi_latency's one-way figure).
"""

import os

from compare_series import Series, table

PROG = "mpi_coll"
PROGRAMS = [PROG]  # built with every MPI
COLLS = "barrier,bcast,reduce,allreduce,allgather,alltoall"


def sizes_for(args):
    if args.sizes is not None:
        return list(args.sizes)
    return [8, 4096] if args.quick else [8, 4096, 65536, 1 << 20]


def ranks_for(args):
    return [2, 4] if args.quick else [2, 4, 8]


def iters_for(name, ranks):
    """Explicit --iters where the default would take too long: MPICH busy-polls
    when ranks outnumber cores (about 1000x slower: each call is scheduler
    time slices), so a few calls tell its figure."""
    if ranks <= (os.cpu_count() or 1):
        return []
    return ["--iters", "10" if name == "mpich" else "500"]


def measure(args, impls, runner, rotate, size_list):
    """One mpi_coll job per implementation, rank count and repetition, alternated."""
    res = Series()
    bind = [] if args.no_bind else ["--bind"]
    base = ["--colls", COLLS, "--sizes", ",".join(str(s) for s in size_list), "--json"] + bind
    for ranks in ranks_for(args):
        for rep in range(args.reps):
            for name in rotate(list(impls), rep):
                cmd = impls[name].command(PROG, ranks, base + iters_for(name, ranks), 900)
                _, rows = runner.run(f"rep {rep + 1}: {PROG} {name} -n {ranks}", name, cmd, 960, PROG)
                for row in rows:
                    res.add((row.get("coll"), row.get("ranks")), name, row.get("size"), row.get("us"))
    return res


def report(rep, res, size_list):
    """Tables and JSON rows through compare_mpi's Report (say/emit)."""
    others = [n for n in rep.impls if n != "lapis"]
    rep.say(f"\n== collectives (MPI_COMM_WORLD; us per call, mean over ranks); median of "
            f"{rep.args.reps} interleaved reps ==")
    order = COLLS.split(",")
    for coll, ranks in sorted(res.values, key=lambda k: (k[1], order.index(k[0]))):
        key = (coll, ranks)
        curves = [c for c in rep.impls if c in res.values[key]]
        rep.say(f"-- {coll}, {ranks} ranks")
        table(rep, res, key, curves, others, [0] + list(size_list),
              {"bench": PROG, "coll": coll, "ranks": ranks}, "us", ".3f")


def targets(res, others, p2p_one_way_8b):
    """(name, value, limit, higher is better) for the collectives issue's targets."""
    checks = []
    worst = {}
    for (coll, ranks), curves in res.values.items():
        for size in curves.get("lapis", {}):
            lap = res.med((coll, ranks), "lapis", size)
            peers = ["openmpi"] if ranks >= 8 else others
            values = [v for v in (res.med((coll, ranks), o, size) for o in peers) if v]
            if lap and values:
                r = lap / min(values)
                worst[ranks] = max(worst.get(ranks, 0.0), r)
    for ranks, r in sorted(worst.items()):
        peer = "openmpi" if ranks >= 8 else "best_other"
        checks.append((f"coll_{ranks}ranks_worst_over_{peer}", r, 1.0, False))
    lap = res.med(("allreduce", 2), "lapis", 8)
    if lap and p2p_one_way_8b:
        checks.append(("allreduce_8B_2ranks_over_p2p_round_trip", lap / (2 * p2p_one_way_8b), 1.5, False))
    return checks

"""compare_mpi's step across hosts (--hosts): one rank on each of two test hosts.

The hosts are network namespaces on this machine joined through a bridge
(tests/support/test_hosts.hpp); compare_mpi --hosts runs itself under
tests/support:with_test_hosts, which makes them and hands over their names,
addresses and launch agent (TEST_HOST_NAMES, TEST_HOST_ADDRS,
TEST_HOST_AGENT). Needs root.

Each implementation starts its job from the first host and reaches the second
through the agent, as an rsh would: lapirun -H, Open MPI's mpirun with the
agent as plm_rsh_agent, MPICH's mpiexec with it as its rsh launcher. All three
go over TCP on the hosts' link: Lapis and MPICH (ch4:ucx) through UCX's tcp
transport, UCX_TLS=tcp,self (the namespaces share this machine's boot id, so
UCX would otherwise take its shared memory between them), Open MPI through
its default path there (ob1 and the tcp BTL). Measures mpi_latency at 8 B and
mpi_bw at 1 MiB, the issue's targets, alternated repetition by repetition.
"""

import os

from compare_series import Series, table

PROGRAMS = ["mpi_latency", "mpi_bw"]  # built with every MPI
CASES = (("mpi_latency", 8, "us"), ("mpi_bw", 1 << 20, "MBps"))
UCX_TCP = ["UCX_TLS=tcp,self", "UCX_NET_DEVICES=lapis0"]


class Hosts:
    """The two test hosts with_test_hosts made (None when not under it)."""

    def __init__(self, env):
        self.names = env["TEST_HOST_NAMES"].split(",")
        self.addrs = env["TEST_HOST_ADDRS"].split(",")
        self.agent = env["TEST_HOST_AGENT"]
        self.map = env["TEST_HOSTS_MAP"]

    @staticmethod
    def from_env():
        keys = ("TEST_HOST_NAMES", "TEST_HOST_ADDRS", "TEST_HOST_AGENT", "TEST_HOSTS_MAP")
        return Hosts(os.environ) if all(k in os.environ for k in keys) else None


def command(impl, lapirun, prog_path, args, hosts, timeout):
    """(argv, extra environment) running prog with one rank on each host."""
    h0, h1 = hosts.names[0], hosts.names[1]
    start = [hosts.agent, h0]  # the job starts on the first host
    if impl == "lapis":
        argv = start + [lapirun, "--timeout", str(int(timeout)), "-H", f"{h0}:1,{h1}:1"]
        for v in UCX_TCP:
            argv += ["-x", v]
        env = {"LAPIS_LAUNCH_AGENT": hosts.agent, "LAPIS_RENDEZVOUS_ADDR": hosts.addrs[0]}
        return argv + [prog_path] + args, env
    if impl == "openmpi":
        argv = start + ["mpirun.openmpi", "--allow-run-as-root", "--bind-to", "none", "-n", "2",
                        "-H", f"{h0}:1,{h1}:1", "--mca", "plm_rsh_agent", hosts.agent,
                        "--mca", "oob_tcp_if_include", "lapis0", "--mca", "btl_tcp_if_include", "lapis0"]
        for v in UCX_TCP:
            argv += ["-x", v]
        return argv + [prog_path] + args, {"TEST_HOSTS_SHELL": "1"}
    argv = start + ["mpiexec.mpich", "-launcher", "rsh", "-launcher-exec", hosts.agent,
                    "-hosts", f"{h0},{h1}", "-n", "2", "-ppn", "1", "-iface", "lapis0", "-bind-to", "none"]
    for v in UCX_TCP:
        name, value = v.split("=", 1)
        argv += ["-genv", name, value]
    return argv + [prog_path] + args, {"TEST_HOSTS_SHELL": "1"}


def measure(args, impls, runner, rotate, lapirun, hosts):
    """Both cases for every implementation, the starting one rotating each repetition."""
    res = Series()
    for rep in range(args.reps):
        for name in rotate(list(impls), rep):
            for prog, size, unit in CASES:
                path = os.path.join(impls[name].bindir, prog)
                argv, env = command(name, lapirun, path, ["--sizes", str(size), "--json"], hosts, 120)
                _, rows = runner.run(f"rep {rep + 1}: {prog} across hosts {name}", name, argv, 180,
                                     bench=prog, env=dict(os.environ, TEST_HOSTS_MAP=hosts.map, **env))
                for row in rows:
                    res.add(prog, name, row.get("size"), row.get(unit))
    return res


def report(rep, res):
    others = [n for n in rep.impls if n != "lapis"]
    rep.say(f"\n== across two test hosts (TCP, one rank on each); median of {rep.args.reps} "
            f"interleaved reps ==")
    for prog, size, unit in CASES:
        curves = [c for c in rep.impls if c in res.values.get(prog, {})]
        rep.say(f"-- {prog} ({'one-way us' if unit == 'us' else 'MB/s'})")
        table(rep, res, prog, curves, others, [size], {"bench": prog + "_hosts"}, unit,
              ".3f" if unit == "us" else ".0f", width=12)


def targets(res, others):
    """(name, value, limit, higher is better): issue 13's, over the better peer."""
    checks = []
    for prog, size, unit in CASES:
        higher = unit != "us"
        lap = res.med(prog, "lapis", size)
        values = [v for v in (res.med(prog, o, size) for o in others) if v]
        if lap and values:
            name = f"hosts_{prog}_{size}B_over_best_other"
            checks.append((name, lap / (max(values) if higher else min(values)), 1.0, higher))
    return checks

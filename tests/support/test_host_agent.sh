#!/bin/sh
# Launch agent for the test hosts of tests/support/test_hosts.hpp, used as LAPIS_LAUNCH_AGENT:
#   test_host_agent.sh HOST COMMAND...
# enters HOST's network, UTS and mount namespaces (found in TEST_HOSTS_MAP=name=pid,...) and execs
# COMMAND there, so this very process becomes the rank: killing it ends the rank.
host=$1
shift
pid=
old_ifs=$IFS
IFS=,
for entry in $TEST_HOSTS_MAP; do
  case $entry in "$host="*) pid=${entry#*=} ;; esac
done
IFS=$old_ifs
if [ -z "$pid" ]; then
  echo "test_host_agent: no test host named '$host'" >&2
  exit 255
fi
# TEST_HOSTS_DETACH=1: like ssh, the rank is not this process, not in its process group, and
# outlives it when the launcher kills it.
if [ "${TEST_HOSTS_DETACH:-}" = 1 ]; then
  setsid nsenter -t "$pid" -n -u -m -- "$@" &
  wait $!
  exit $?
fi
# TEST_HOSTS_SHELL=1: like rsh/ssh, the words are one command for a shell (Open MPI's mpirun
# sends such commands to start its daemons).
if [ "${TEST_HOSTS_SHELL:-}" = 1 ]; then
  exec nsenter -t "$pid" -n -u -m -- sh -c "$*"
fi
exec nsenter -t "$pid" -n -u -m -- "$@"

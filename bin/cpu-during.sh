#!/usr/bin/env bash
# Prints the CPU every process of a running local cluster spent while a command ran, from /proc/<pid>/stat
# (user + system), plus PostgreSQL's backends, the command itself (its waited-for children: a benchmark's JVM) and
# the whole machine's busy time from /proc/stat. With --ops N each figure is also given in µs per operation.
#   bin/cpu-during.sh HOME [--ops N] -- COMMAND...
# e.g. bin/cpu-during.sh /tmp/h --ops 60000 -- ./cluster ycsb --home /tmp/h --workload c --records 20000 --ops 60000 --target wire --skip-load
set -euo pipefail
home=$1; shift
ops=0
if [ "$1" = "--ops" ]; then ops=$2; shift 2; fi
[ "$1" = "--" ] && shift
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bin/cluster-procs.sh"
components=$(components_of "$home")
children() { awk '{print $16+$17}' /proc/$$/stat; }
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }   # user nice system irq softirq steal
pm=$(postmaster_of "$home")
postgres() { ticks $(backends "$home") && [ -n "$pm" ] && awk '{print $16+$17}' "/proc/$pm/stat"; }
sum() { awk '{s+=$1} END{print s+0}'; }
declare -A before
for c in $components; do before[$c]=$(ticks "$(pid_of "$home" "$c")"); done
pg_before=$(postgres | sum) busy_before=$(busy)
status=0
self_before=$(children)
"$@" || status=$?
self_after=$(children)
pg_after=$(postgres | sum) busy_after=$(busy)
hz=$(getconf CLK_TCK)
line() {
  if [ "$ops" -gt 0 ]; then
    printf '%-22s %8.2f s %8.0f µs/op\n' "$1" "$(echo "$2 / $hz" | bc -l)" "$(echo "$2 * 1000000 / $hz / $ops" | bc -l)"
  else
    printf '%-22s %8.2f s\n' "$1" "$(echo "$2 / $hz" | bc -l)"
  fi
}
for c in $components; do line "$c" $(( $(ticks "$(pid_of "$home" "$c")") - ${before[$c]} )); done
line "postgres backends" $((pg_after - pg_before))
line "the command" $((self_after - self_before))
line "machine busy" $((busy_after - busy_before))
exit $status

#!/usr/bin/env bash
# Profiles services of a running local cluster with async-profiler while a command runs, and prints
# the CPU each of them (and PostgreSQL's backends) spent meanwhile, from /proc/<pid>/stat.
#   bin/profile-during.sh HOME OUTDIR NAME "COMPONENT..." -- COMMAND...
# e.g. bin/profile-during.sh .cluster docs/flamegraphs point-read-before "router1 shard1" -- ./cluster ycsb --workload c --skip-load
# writes OUTDIR/NAME-COMPONENT.html (async-profiler's flame graph, CPU samples) and the same samples as
# collapsed stacks in ${TMPDIR:-/tmp}/NAME-COMPONENT.collapsed (for grep and scripts). async-profiler's native
# library comes from Maven Central's tools.profiler:async-profiler jar (see docs/benchmarks.md).
set -euo pipefail
home=$1 outdir=$2 name=$3 components=$4; shift 4; [ "$1" = "--" ] && shift
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bin/java-env.sh"
ASYNC_PROFILER_VERSION=4.2
jar=~/.m2/repository/tools/profiler/async-profiler/$ASYNC_PROFILER_VERSION/async-profiler-$ASYNC_PROFILER_VERSION.jar
[ -f "$jar" ] || "$ROOT/mvnw" -q -B dependency:get -Dartifact=tools.profiler:async-profiler:$ASYNC_PROFILER_VERSION >&2
lib="${TMPDIR:-/tmp}/async-profiler-$(basename "$jar" .jar)/linux-x64/libasyncProfiler.so"
[ -f "$lib" ] || unzip -o -q "$jar" 'linux-x64/*' -d "$(dirname "$(dirname "$lib")")"
. "$ROOT/bin/cluster-procs.sh"
mkdir -p "$outdir"
# jcmd would read "a=b" in the agent options as one of its own name=value arguments: quote them
declare -A before
for c in $components; do
  pid=$(pid_of "$home" "$c"); before[$c]=$(ticks "$pid")
  "$JAVA_HOME/bin/jcmd" "$pid" JVMTI.agent_load "$lib" "\"start,event=cpu,interval=1ms,file=/dev/null\"" >/dev/null
done
pg_before=$(ticks $(backends "$home"))
start=$(date +%s.%N)
status=0
"$@" || status=$?   # a failing command must not leave the profilers running
end=$(date +%s.%N)
pg_after=$(ticks $(backends "$home"))
hz=$(getconf CLK_TCK)
for c in $components; do
  pid=$(pid_of "$home" "$c")
  "$JAVA_HOME/bin/jcmd" "$pid" JVMTI.agent_load "$lib" "\"collapsed,file=${TMPDIR:-/tmp}/$name-$c.collapsed\"" >/dev/null
  "$JAVA_HOME/bin/jcmd" "$pid" JVMTI.agent_load "$lib" "\"stop,file=$(realpath "$outdir")/$name-$c.html\"" >/dev/null
  echo "cpu $c: $(echo "scale=2; ($(ticks "$pid") - ${before[$c]}) / $hz" | bc) s"
done
echo "cpu postgres backends: $(echo "scale=2; ($pg_after - $pg_before) / $hz" | bc) s (connections that stayed open)"
echo "wall: $(echo "$end - $start" | bc) s"
exit $status

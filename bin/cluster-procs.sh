# Sourced by the measuring scripts in bin/: the processes of a running local cluster and their CPU.
#   pid_of HOME COMPONENT   the pid ./cluster recorded for a component (postgres is the holder JVM, not the postmaster)
#   ticks PID...            their user + system CPU so far, in clock ticks (getconf CLK_TCK per second); 0 for a gone pid
#   backends HOME           the postmaster's children: backends and PostgreSQL's own background processes
pid_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['processes'][sys.argv[2]]['pid'])" "$1/cluster.json" "$2"; }
components_of() { python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['processes']))" "$1/cluster.json"; }
ticks() { local t=0 p; for p in "$@"; do t=$((t + $(awk '{print $14+$15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo $t; }
postmaster_of() { pgrep -f "^[^ ]*postgres -D $1/postgres" | head -1 || true; }
backends() { local pm; pm=$(postmaster_of "$1"); [ -n "$pm" ] && pgrep -P "$pm" | tr '\n' ' '; }

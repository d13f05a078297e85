#!/bin/sh
# bench-nodes.sh measures completed PI/s of start → job → end over REST
# (gobpm-load's job scenario, closed loop) on SQLite with one node and on
# one PostgreSQL with 1, 2 and 3 gobpm-web nodes, in one run, and prints a
# markdown table.
#
# PostgreSQL runs durable (its defaults: fsync on, synchronous_commit on) in
# a throwaway directory, on a unix socket only, stopped and removed at the
# end; SQLite runs synchronous=FULL. Everything shares this machine's cores:
# the load tool, the nodes and PostgreSQL.
#
# Usage: cmd/gobpm-load/bench-nodes.sh [gobpm-web binary] [gobpm-load binary]
# (make loadtest-nodes builds both). Environment: DURATION (each phase,
# default 10s), CONCURRENCY (starting clients, default 32), PG_BIN (the
# PostgreSQL binaries, default the newest /usr/lib/postgresql/*/bin).
set -eu
SERVER=${1:-bin/gobpm-web}
LOAD=${2:-bin/gobpm-load}
DURATION=${DURATION:-10s}
CONCURRENCY=${CONCURRENCY:-32}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)}
if [ ! -x "$PG_BIN/initdb" ]; then
	echo "bench-nodes: no PostgreSQL binaries found (install postgresql or set PG_BIN)" >&2
	exit 2
fi

dir=$(mktemp -d /tmp/gobpm-bench-XXXXXX)
as=""
if [ "$(id -u)" = 0 ]; then
	# initdb and postgres refuse root: run them as the package's user.
	chown postgres "$dir"
	as="runuser -u postgres --"
fi
pg() {
	cmd=$1
	shift
	$as "$PG_BIN/$cmd" "$@"
}
cleanup() {
	pg pg_ctl stop -D "$dir/data" -m fast >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT INT TERM
pg initdb -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-instructions >/dev/null
pg pg_ctl start -D "$dir/data" -w -l "$dir/log" \
	-o "-c listen_addresses='' -c unix_socket_directories=$dir -c max_connections=200" >/dev/null

# run prints one row: the label and the closed loop's PI/s (the first
# phase of the job scenario in gobpm-load's JSON report).
run() {
	label=$1
	shift
	out=$("$LOAD" -spawn -server "$SERVER" -scenario job -duration "$DURATION" -concurrency "$CONCURRENCY" -quiet -json "$@")
	pis=$(printf '%s\n' "$out" | grep -m1 '"piPerSec"' | sed 's/[^0-9.]//g')
	printf '| %s | %.0f |\n' "$label" "$pis"
}

echo "| database | nodes | completed PI/s (start → job → end, closed loop) |"
echo "| --- | ---: | ---: |"
run "SQLite (synchronous=FULL) | 1" -sync FULL
for n in 1 2 3; do
	pg psql -h "$dir" -U postgres -qc "CREATE DATABASE gobpm_$n" postgres
	run "PostgreSQL | $n" -nodes "$n" -db "postgres://postgres@/gobpm_$n?host=$dir&sslmode=disable"
done

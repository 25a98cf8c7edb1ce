#!/usr/bin/env bash
# Start or stop a throw-away PostgreSQL 15 cluster for tests and benchmarks.
#
#   scripts/pg-scratch.sh start DIR PORT ['-c name=value' ...]
#   scripts/pg-scratch.sh stop DIR
#
# PostgreSQL refuses to run as root, so when called as root the server runs as
# the `postgres` OS user (created if missing). Clients connect through a Unix
# socket in DIR as database superuser `postgres`:
#   export PGHOST=DIR PGPORT=PORT PGUSER=postgres
set -euo pipefail

PGBIN=${PGBIN:-$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)}

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		id postgres >/dev/null 2>&1 || useradd -m -s /bin/bash postgres
		# from /: the caller's directory (say /root/gpuhash) is closed to postgres
		(cd / && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [PORT [server options]]" >&2; exit 2; }
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac	# the server runs from /

case "$cmd" in
start)
	port=${3:-5432}
	shift 3 || true
	mkdir -p "$dir"
	[ "$(id -u)" = 0 ] && { id postgres >/dev/null 2>&1 || useradd -m -s /bin/bash postgres; chown postgres: "$dir"; }
	if [ ! -f "$dir/data/PG_VERSION" ]; then
		as_pg "$PGBIN/initdb" -D "$dir/data" -A trust -U postgres --no-sync >"$dir/initdb.log" 2>&1 ||
			{ cat "$dir/initdb.log" >&2; exit 1; }
	fi
	opts="-p $port -k $dir -c listen_addresses=''"
	for o in "$@"; do opts="$opts $o"; done
	as_pg "$PGBIN/pg_ctl" -D "$dir/data" -o "$opts" -l "$dir/server.log" -w -t 120 start >/dev/null ||
		{ cat "$dir/server.log" >&2; exit 1; }
	echo "scratch cluster up: PGHOST=$dir PGPORT=$port PGUSER=postgres (log $dir/server.log)"
	;;
stop)
	[ -f "$dir/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
	;;
*)
	echo "usage: $0 start|stop DIR [PORT [server options]]" >&2
	exit 2
	;;
esac

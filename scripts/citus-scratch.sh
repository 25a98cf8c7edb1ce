#!/usr/bin/env bash
# Build Citus from source, or start and stop a throw-away Citus cluster (a
# coordinator and two workers on this machine) with gpuhash loaded after Citus.
#
#   scripts/citus-scratch.sh build SRC_DIR
#   scripts/citus-scratch.sh start DIR [BASEPORT ['-c name=value' ...]]
#   scripts/citus-scratch.sh stop DIR
#
# build: installs the Debian packages Citus needs when they are missing,
#   fixes Citus's PostgreSQL 15 compatibility header where the installed
#   server headers need it (see fix_pg15_compat), then runs
#   ./configure && make && make install in SRC_DIR (a Citus checkout, for
#   example the v13.2.2 tag; Citus 14 no longer supports PostgreSQL 15).
# start: three clusters DIR/coord, DIR/worker1, DIR/worker2 on ports BASEPORT,
#   BASEPORT+1, BASEPORT+2 (default 55600), each started by pg-scratch.sh with
#   shared_preload_libraries = 'citus,gpuhash' and listening on localhost
#   (trust authentication, as pg-scratch.sh sets up: the coordinator connects
#   to the workers over TCP). The options given after BASEPORT are passed to
#   all three servers and come last, so '-c shared_preload_libraries=gpuhash,citus'
#   overrides the load order. Database $CITUS_DB (default citus) is created
#   on all three with the citus and gpuhash extensions, and the workers are
#   registered on the coordinator. Clients use the coordinator:
#     export PGHOST=DIR/coord PGPORT=BASEPORT PGUSER=postgres PGDATABASE=$CITUS_DB
# stop: stops all three.
#
# Environment: PG_CONFIG (which PostgreSQL 15), CITUS_DB, MAKE_JOBS (build).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PG_CONFIG=${PG_CONFIG:-$(command -v pg_config || echo /usr/lib/postgresql/15/bin/pg_config)}
PGBIN=$("$PG_CONFIG" --bindir)
export PGBIN PG_CONFIG
db=${CITUS_DB:-citus}
nodes="coord worker1 worker2"

usage() { echo "usage: $0 build SRC_DIR | start DIR [BASEPORT [server options]] | stop DIR" >&2; exit 2; }
die() { echo "citus-scratch.sh: $*" >&2; exit 1; }

# Citus's pg_version_compat.h defines a static have_createdb_privilege() for
# PostgreSQL 15. Later 15.x minor releases (15.20 does) declare and export
# that function in commands/dbcommands.h, so the two clash and Citus does not
# compile. Where the installed header declares it, the static copy
# is replaced by an include of that header. Only that case is touched, and
# a source already fixed is left as it is.
fix_pg15_compat() {
	local src=$1 hdr compat
	hdr=$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h
	compat=$src/src/include/pg_version_compat.h
	[ -f "$compat" ] || die "$src is not a Citus source tree (no src/include/pg_version_compat.h)"
	if ! grep -q 'have_createdb_privilege' "$hdr" 2>/dev/null; then
		echo "citus-scratch.sh: $hdr does not declare have_createdb_privilege: Citus's header left as it is"
		return
	fi
	if ! grep -q '^have_createdb_privilege(void)' "$compat"; then
		echo "citus-scratch.sh: $compat has no static have_createdb_privilege(): nothing to fix"
		return
	fi
	echo "citus-scratch.sh: $hdr declares have_createdb_privilege(): using it in place of Citus's static copy"
	cp -n "$compat" "$compat.orig"
	# Drop "static inline bool" + "have_createdb_privilege(void)" and the body
	# up to its closing brace at the start of a line; put the include there.
	awk '
		pending != "" {
			if ($0 ~ /^have_createdb_privilege\(void\)/) { skip = 1; pending = ""; next }
			print pending; pending = ""
		}
		skip { if ($0 ~ /^}/) { skip = 0; print "#include \"commands/dbcommands.h\"	/* citus-scratch.sh: declared there in later PostgreSQL 15 releases */" } ; next }
		/^static inline bool$/ { pending = $0; next }
		{ print }
		END { if (pending != "") print pending }
	' "$compat.orig" >"$compat"
	grep -q '^have_createdb_privilege(void)' "$compat" && die "could not remove the static have_createdb_privilege() from $compat"
	grep -q '#include "commands/dbcommands.h"' "$compat" || die "fixing $compat failed"
}

build() {
	local src=$1 pkgs=() p sudo=
	[ -d "$src" ] || die "no directory $src"
	src=$(cd "$src" && pwd)
	[ "$(id -u)" = 0 ] || sudo=sudo
	# Citus links libcurl, lz4 and zstd (columnar) and GSSAPI; configure fails without their headers
	for p in libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || pkgs+=("$p")
	done
	if [ ${#pkgs[@]} -gt 0 ]; then
		echo "citus-scratch.sh: installing ${pkgs[*]}"
		$sudo apt-get update -qq
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
	fi
	fix_pg15_compat "$src"
	cd "$src"
	[ -f Makefile.global ] || ./configure PG_CONFIG="$PG_CONFIG" >configure.log 2>&1 ||
		{ tail -30 configure.log >&2; die "configure failed (log $src/configure.log)"; }
	make -j"${MAKE_JOBS:-$(nproc)}" >make.log 2>&1 || { grep -m 20 -i 'error' make.log >&2; die "make failed (log $src/make.log)"; }
	$sudo make install >install.log 2>&1 || { tail -20 install.log >&2; die "make install failed"; }
	echo "citus-scratch.sh: Citus $(sed -n "s/^default_version = '\(.*\)'/\1/p" src/backend/distributed/citus.control) installed in $("$PG_CONFIG" --pkglibdir)"
}

psql_node() {	# psql_node NODE SQL...: run SQL on one node of $dir as postgres
	local node=$1 port=$((baseport + $2))
	shift 2
	# quiet: with the wrong load order every join Citus plans here would warn
	PGOPTIONS="-c client_min_messages=error" psql -X -q -v ON_ERROR_STOP=1 -h "$dir/$node" -p "$port" -U postgres "$@"
}

start() {
	local i=0 node o preload=citus,gpuhash
	for o in "$@"; do
		case $o in shared_preload_libraries=*) preload=${o#*=} ;; esac
	done
	[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] || die "Citus is not installed (no citus.so in $("$PG_CONFIG" --pkglibdir)); see '$0 build'"
	mkdir -p "$dir"
	# a start that fails half-way leaves no server behind
	trap stop EXIT
	for node in $nodes; do
		# citus first: it replaces the join hook without calling the one it found
		"$root/scripts/pg-scratch.sh" start "$dir/$node" $((baseport + i)) \
			-c listen_addresses=localhost -c shared_preload_libraries=citus,gpuhash \
			-c max_connections=200 -c fsync=off "$@" >/dev/null
		i=$((i + 1))
	done
	i=0
	for node in $nodes; do
		[ -n "$(psql_node "$node" $i -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" ] ||
			psql_node "$node" $i -d postgres -c "CREATE DATABASE \"$db\""
		# once the workers are registered Citus refuses DDL on them, even
		# CREATE EXTENSION IF NOT EXISTS: a restarted cluster skips this
		if [ -z "$(psql_node "$node" $i -d "$db" -tAc "SELECT 1 FROM pg_extension WHERE extname = 'gpuhash'")" ]; then
			psql_node "$node" $i -d "$db" \
				-c "CREATE EXTENSION IF NOT EXISTS citus" -c "CREATE EXTENSION IF NOT EXISTS gpuhash"
		fi
		i=$((i + 1))
	done
	# the coordinator is a node too (it holds reference tables); the workers by
	# TCP. Both functions leave a node already registered as it is.
	psql_node coord 0 -d "$db" -tA \
		-c "SELECT citus_set_coordinator_host('localhost', $baseport)" \
		-c "SELECT citus_add_node('localhost', $((baseport + 1)))" \
		-c "SELECT citus_add_node('localhost', $((baseport + 2)))" >/dev/null
	trap - EXIT
	case ,$preload, in
	*,gpuhash,*citus*) echo "citus-scratch.sh: shared_preload_libraries = '$preload': the wrong order," \
		"gpuhash's join hook is not called and no GPU join is planned" ;;
	esac
	echo "Citus scratch cluster up: coordinator PGHOST=$dir/coord PGPORT=$baseport PGUSER=postgres" \
		"PGDATABASE=$db; workers on ports $((baseport + 1)), $((baseport + 2)) (logs $dir/*/server.log)"
}

stop() {
	local node
	for node in $nodes; do
		"$root/scripts/pg-scratch.sh" stop "$dir/$node" || true
	done
}

cmd=${1:-}
if [ -z "$cmd" ] || [ -z "${2:-}" ]; then usage; fi
case "$cmd" in
build)
	build "$2"
	;;
start)
	dir=$2
	case $dir in /*) ;; *) dir=$PWD/$dir ;; esac	# the servers run from /
	baseport=${3:-55600}
	shift 3 || shift $#
	start "$@"
	;;
stop)
	dir=$2
	case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
	stop
	;;
*)
	usage
	;;
esac

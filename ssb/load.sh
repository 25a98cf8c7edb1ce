#!/usr/bin/env bash
# Create the Star Schema Benchmark's tables and fill them from ssb/gen.py
# (one COPY stream per table, lineorder in JOBS parts, all in parallel); then
# primary keys, VACUUM (ANALYZE), and the foreign keys.
#
#   ssb/load.sh [-s SF] [-d DB] [-S SEED] [-j JOBS] [-F]
#
#   -s SF    scale factor (default 1)
#   -d DB    database, created if missing (default $PGDATABASE or ssb)
#   -S SEED  generator seed
#   -j JOBS  lineorder's parts, one process each (default: the CPUs); the rows
#            do not depend on it
#   -F       leave out the foreign keys
#
# Connection settings come from the usual PG* environment variables.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
sf=1
db=${PGDATABASE:-ssb}
seed=
foreign_keys=1
jobs=$(nproc)
while getopts "s:d:S:j:Fh" opt; do
	case $opt in
	s) sf=$OPTARG ;;
	d) db=$OPTARG ;;
	S) seed=$OPTARG ;;
	j) jobs=$OPTARG ;;
	F) foreign_keys= ;;
	h) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
psql_q() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
t0=$(date +%s)
if [ -z "$(psql_q -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
	psql_q -d postgres -c "CREATE DATABASE \"$db\""
fi
psql_q -d "$db" -f "$here/schema.sql"
export PGOPTIONS="${PGOPTIONS:-} -c synchronous_commit=off"
pids=()
for t in part customer supplier date; do
	python3 "$here/gen.py" -s "$sf" -T "$t" ${seed:+-S "$seed"} |
		psql_q -d "$db" -c "COPY $t FROM STDIN" &
	pids+=($!)
done
for i in $(seq 1 "$jobs"); do
	python3 "$here/gen.py" -s "$sf" -T lineorder -P "$i/$jobs" ${seed:+-S "$seed"} |
		psql_q -d "$db" -c "COPY lineorder FROM STDIN" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { echo "ssb/load.sh: loading a table failed" >&2; exit 1; }; done
t1=$(date +%s)
# each primary key on its own table: in parallel
pids=()
while read -r stmt; do
	psql_q -d "$db" -c "$stmt" &
	pids+=($!)
done < <(grep -v '^--' "$here/keys.sql")
for p in "${pids[@]}"; do wait "$p" || { echo "ssb/load.sh: a primary key failed" >&2; exit 1; }; done
# VACUUM as well as ANALYZE, each table on its own: a load left to
# autovacuum has its pages all-visible (and its hint bits set) only some
# time later, so the first runs after it would read another table state
pids=()
for t in part customer supplier date lineorder; do
	psql_q -d "$db" -c "VACUUM (ANALYZE) $t" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { echo "ssb/load.sh: VACUUM (ANALYZE) failed" >&2; exit 1; }; done
t2=$(date +%s)
# the foreign keys all check lineorder, whose lock each takes: one after the other
if [ -n "$foreign_keys" ]; then
	grep -v '^--' "$here/foreign_keys.sql" | while read -r stmt; do psql_q -d "$db" -c "$stmt"; done
fi
t3=$(date +%s)
echo "ssb/load.sh: database $db at SF $sf loaded in $(( t3 - t0 )) s (copy $(( t1 - t0 )) s," \
	"keys, vacuum and analyze $(( t2 - t1 )) s, foreign keys $(( t3 - t2 )) s;" \
	"$(psql_q -d "$db" -tAc 'SELECT count(*) FROM lineorder') lineorder rows)"

#!/usr/bin/env bash
# "snapshot too old" as PostgreSQL raises it, with the GPU join off, on by
# tuples and on by pages.  An absorbed scan decides an all-visible page's
# tuples without heapgetpage, so it must make heapgetpage's check of an old
# snapshot too (TestForOldSnapshot): with old_snapshot_threshold set, a page
# changed after the snapshot (here frozen by VACUUM, which keeps it
# all-visible) errors rather than being read.  The setting needs a server
# start: this script runs its own scratch cluster (PG_CONFIG's PostgreSQL,
# gpuhash installed; GPUHASH_TEST_PORT + 1, device $1: gpu or host).
set -euo pipefail
cd "$(dirname "$0")/.."
device=${1:-host}
port=$(( ${GPUHASH_TEST_PORT:-55434} + 1 ))
dir=$(mktemp -d /tmp/gpuhash-ost.XXXXXX)
trap 'scripts/pg-scratch.sh stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
scripts/pg-scratch.sh start "$dir" "$port" -c shared_preload_libraries=gpuhash \
	-c gpuhash.device="$device" -c fsync=off -c old_snapshot_threshold=0 >/dev/null
export PGHOST=$dir PGPORT=$port PGUSER=postgres
fail() { echo "old_snapshot_check: FAILED: $*" >&2; exit 1; }
psql -X -q -v ON_ERROR_STOP=1 postgres <<'SQL' >/dev/null
CREATE EXTENSION gpuhash;
CREATE EXTENSION dblink;
CREATE TABLE osi (k int PRIMARY KEY, w int) WITH (autovacuum_enabled = off);
INSERT INTO osi SELECT g, g FROM generate_series(0, 399) g;
VACUUM ANALYZE osi;
SQL
for mode in native tuples pages; do
	t=ost_$mode
	psql -X -q -v ON_ERROR_STOP=1 postgres >/dev/null <<SQL
CREATE TABLE $t (id int, k int, b int) WITH (autovacuum_enabled = off);
INSERT INTO $t SELECT g, g % 400, 1 FROM generate_series(1, 200000) g;
VACUUM ANALYZE $t;
SQL
	case $mode in
	native) sets="SET enable_gpuhashjoin = off;" ;;
	tuples) sets="SET gpuhash.page_scan = off;" ;;
	pages) sets="SET gpuhash.page_scan = on;" ;;
	esac
	# the snapshot older than the threshold's 5 s test window, then a
	# VACUUM FREEZE by another session under a later snapshot: every page
	# stays all-visible with an LSN past the first session's
	out=$(psql -X -q postgres 2>&1 <<SQL
SET enable_nestloop = off; SET max_parallel_workers_per_gather = 0;
SET enable_hashjoin = off; SET enable_mergejoin = off;
SET gpuhash.setup_cost = 0; SET gpuhash.min_gain = 0; SET gpuhash.gpu_aggregate_join = off;
$sets
\set con '''dbname=postgres port=$port host=$dir'''
EXPLAIN (COSTS OFF) SELECT count(*) FROM $t JOIN osi USING (k);
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT 'first: ' || count(*) FROM $t JOIN osi USING (k);
SELECT pg_sleep(6);
SELECT dblink_exec(:con, 'CREATE TABLE ${t}_a (a int)');
SELECT dblink_exec(:con, 'DO \$\$BEGIN PERFORM 1; END\$\$');
SELECT dblink_exec(:con, 'CREATE TABLE ${t}_b (a int)');
SELECT dblink_exec(:con, 'VACUUM (FREEZE) $t');
SELECT 'second: ' || count(*) FROM $t JOIN osi USING (k);
ROLLBACK;
SQL
)
	case $mode in
	native) ! grep -q 'GpuHashJoin' <<<"$out" || fail "$mode: a GPU join in the plan" ;;
	*) grep -q 'GpuHashJoin' <<<"$out" || fail "$mode: no GPU join in the plan: $out" ;;
	esac
	grep -q 'first: 200000' <<<"$out" || fail "$mode: the first count: $out"
	grep -q 'ERROR:  snapshot too old' <<<"$out" ||
		fail "$mode: no \"snapshot too old\" after the page changed: $(grep -E 'second|ERROR' <<<"$out")"
	echo "  $mode: snapshot too old, as PostgreSQL raises it"
done
echo "old_snapshot_check: all passed"

#!/usr/bin/env bash
# Checks of a GPU service with two or more GPUs, against a running cluster
# with gpuhash preloaded (PGHOST/PGPORT/PGUSER set) after `make installcheck`
# (contrib_regression and its gh_* helpers):
#   1. gpuhash_info() lists every GPU, each in use;
#   2. concurrent sessions and a parallel plan's participants are served on
#      every GPU (requests counted per GPU), results equal to PostgreSQL's;
#   3. a chain whose levels' tables were built on different GPUs runs fused
#      on one of them (the others' tables copied there);
#   4. a table too big for one GPU's budget (gpuhash.max_gpu_memory) is
#      partitioned over two GPUs, and joins right;
#   5. a GPU failing (gpuhash.debug_fail_gpu) moves the build to another GPU
#      with a NOTICE; all GPUs failing moves it to the host twin.  Last: a
#      failed GPU stays out for a minute.
set -euo pipefail
db=contrib_regression
q() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }
fail() { echo "multi_gpu_check: FAILED: $*" >&2; exit 1; }

n=$(q "SELECT count(*) FROM gpuhash_info() WHERE in_use")
[ "$n" -ge 2 ] || fail "gpuhash_info() shows $n GPU(s) in use"
q "SELECT gpu, name, in_use, gpu_state FROM gpuhash_info()"
g0=$(q "SELECT gpu FROM gpuhash_info() ORDER BY gpu LIMIT 1")
g1=$(q "SELECT gpu FROM gpuhash_info() ORDER BY gpu OFFSET 1 LIMIT 1")
requests() { q "SELECT string_agg(gpu_requests::text, ' ' ORDER BY gpu) FROM gpuhash_info()"; }

q "CREATE TABLE IF NOT EXISTS mg_o AS SELECT g AS id, g % 400000 AS k, g % 97 AS c FROM generate_series(1, 4000000) g;
   CREATE TABLE IF NOT EXISTS mg_i AS SELECT g AS id, g AS k, g % 50 AS c FROM generate_series(1, 400000) g;
   CREATE TABLE IF NOT EXISTS mg_c AS SELECT g AS c, 'c' || g AS name FROM generate_series(0, 96) g;
   CREATE TABLE IF NOT EXISTS mg_big AS SELECT g AS id, g AS k FROM generate_series(1, 4000000) g;
   ANALYZE mg_o; ANALYZE mg_i; ANALYZE mg_c; ANALYZE mg_big;" >/dev/null

# ---- 2. spread: 8 sessions, then a parallel plan
before=$(requests)
tmp=$(mktemp -d)
for c in $(seq 1 8); do
	q "SELECT same FROM gh_check('SELECT o.id, i.id FROM mg_o o JOIN mg_i i ON o.k = i.k AND (o.id + $c) % 5 = 0')" \
		>"$tmp/$c.out" 2>&1 &
done
wait
bad=$(cat "$tmp"/*.out | grep -cvx t || true)
rm -rf "$tmp"
[ "$bad" = 0 ] || fail "concurrent sessions: $bad results wrong or failed"
out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" <<'SQL'
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET max_parallel_workers_per_gather = 4;
SET gpuhash.batch_rows = 8192;
SELECT same FROM gh_check('SELECT o.id, i.id FROM mg_o o JOIN mg_i i ON o.k = i.k');
SQL
)
[ "$out" = t ] || fail "parallel join: $out"
after=$(requests)
echo "requests per GPU before: $before, after: $after"
python3 - "$before" "$after" <<'PY' || fail "some GPU served no request: $before -> $after"
import sys
b = [int(x) for x in sys.argv[1].split()]
a = [int(x) for x in sys.argv[2].split()]
sys.exit(0 if all(y > x for x, y in zip(b, a)) else 1)
PY
echo "8 sessions and a parallel plan: results equal, every GPU served requests"

# ---- 3. a chain over tables on different GPUs
out=$(q "SELECT same FROM gh_check('SELECT o.id, i.id, n.name FROM mg_o o JOIN mg_c n ON n.c = o.c JOIN mg_i i ON o.k = i.k')")
[ "$out" = t ] || fail "chain: $out"
fused=$(q "SELECT count(*) FROM jsonb_path_query(gh_node('SELECT count(*) FROM mg_o o JOIN mg_c n ON n.c = o.c JOIN mg_i i ON o.k = i.k'), 'strict \$.**') n WHERE n ? 'Chain Requests'")
unfused=$(q "SELECT gh_node('SELECT count(*) FROM mg_o o JOIN mg_c n ON n.c = o.c JOIN mg_i i ON o.k = i.k')->>'Chain Unfused'")
[ "$fused" -ge 1 ] || fail "the chain did not run fused: $unfused"
echo "a chain of two levels: results equal, fused"

# ---- 4. a table over one GPU's budget, partitioned over two
# one table, serial: work_mem holds it whole, and no nested loop stands in
one="SET work_mem = '1GB'; SET max_parallel_workers_per_gather = 0; SET enable_nestloop = off;"
kb=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" -c "$one" \
	-c "SELECT (gh_node('SELECT count(*) FROM mg_o o JOIN mg_big b ON o.k = b.k')->>'GPU Memory')")
echo "the table alone: $kb kB on one GPU"
parts=
for pct in 95 90 85 80 75 70 65 60 55 50; do
	mb=$((kb * pct / 100 / 1024))
	parts=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<SQL
$one
SET gpuhash.max_gpu_memory = '${mb}MB';
SELECT same FROM gh_check('SELECT o.id, b.id FROM mg_o o JOIN mg_big b ON o.k = b.k');
SELECT coalesce(n->>'Table Parts', '1') || ' ' || (n->>'Device') || ' ' || coalesce(n->>'GPU Fallbacks', '0')
FROM gh_node('SELECT count(*) FROM mg_o o JOIN mg_big b ON o.k = b.k') n;
SQL
	)
	echo "max_gpu_memory ${mb}MB: $(echo $parts | tr '\n' ' ')"
	echo "$parts" | head -1 | grep -qx t || fail "partitioned join at ${mb}MB: $parts"
	echo "$parts" | grep -q "^2 gpu 0$" && break
	parts=
done
[ -n "$parts" ] || fail "no budget made the table partitioned over two GPUs"
echo "a table over one GPU's budget: partitioned over 2 GPUs, results equal"

# ---- 5. failures (last: a failed GPU stays out for a minute)
# failing GPU WHAT NOTICE-PATTERN: a join with that GPU failing is right and says so.
# Device auto: with "gpu", a join with no GPU left is an ERROR, not a move to the host twin.
failing() {
	local out
	out=$(psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<SQL
SET gpuhash.device = auto;
SET gpuhash.debug_fail_gpu = $1;
SELECT same FROM gh_check('SELECT o.id, i.id FROM mg_o o JOIN mg_i i ON o.k = i.k');
SQL
	)
	echo "$out"
	echo "$out" | grep -qx t || fail "$2: results wrong"
	echo "$out" | grep -q "$3" || fail "$2: no NOTICE matching '$3'"
}
failing "$g0" "GPU $g0 failing" "NOTICE:  gpuhash: .*GPU $g0 failed"
state=$(q "SELECT gpu_state FROM gpuhash_info() WHERE gpu = $g0")
echo "$state" | grep -q "^failed: " || fail "gpuhash_info() does not show GPU $g0 failed: $state"
failing "$g1" "every GPU failing" "continues on the host"
echo "GPU failures: the build moved to the other GPU, then to the host twin; results equal"
q "DROP TABLE mg_o, mg_i, mg_c, mg_big" >/dev/null

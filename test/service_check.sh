#!/usr/bin/env bash
# Checks of the GPU service that need several sessions, against a running
# cluster with gpuhash preloaded (PGHOST/PGPORT/PGUSER set) after
# `make installcheck` (which leaves the contrib_regression database):
#   1. 8 concurrent sessions run GPU joins; every result equals PostgreSQL's;
#   2. a backend killed (SIGTERM) mid-join leaves no table or staging slot;
#   3. a query cancelled by statement_timeout mid-join frees its table;
#   4. the service stopped with SIGTERM: the postmaster restarts it alone
#      (a new pid), and joins work again.  kill -9 would instead take the
#      whole cluster through a crash restart (README), so it is not tried.
set -euo pipefail
db=contrib_regression
q() { psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "$1"; }
fail() { echo "service_check: FAILED: $*" >&2; exit 1; }
info() { q "SELECT $1 FROM gpuhash_info() LIMIT 1"; }
wait_for() {	# wait_for SQL-condition-on-gpuhash_info seconds
	for _ in $(seq 1 $(($2 * 10))); do
		[ "$(info "$1")" = t ] && return 0
		sleep 0.1
	done
	return 1
}

wait_for "service LIKE 'running%'" 30 || fail "the service is not running: $(info service)"
echo "service: $(info service)"

# ---- 1. concurrency
q "CREATE TABLE IF NOT EXISTS big_o AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 3000000) g;
   CREATE TABLE IF NOT EXISTS dup_i AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 100000) g;
   ANALYZE big_o; ANALYZE dup_i;" >/dev/null
tmp=$(mktemp -d)
for c in $(seq 1 8); do
	(
		for i in $(seq 1 6); do
			q "SELECT same AND gpu_nodes = 1 FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND (r.id + s.id + $c) % 7 = $i % 7')"
		done >"$tmp/$c.out" 2>&1
	) &
done
wait
bad=$(cat "$tmp"/*.out | grep -cvx t || true)
total=$(cat "$tmp"/*.out | wc -l)
rm -rf "$tmp"
[ "$bad" = 0 ] && [ "$total" = 48 ] || fail "concurrent joins: $bad of $total results wrong or failed"
echo "8 concurrent sessions: 48 GPU joins, all equal to PostgreSQL's"
wait_for "tables_alive = 0 AND staging_in_use_mb = 0" 10 || fail "tables left after the concurrent joins"

# ---- 2. a backend killed mid-join
psql -X -d "$db" -c "SELECT gh_force_on(); SELECT count(*) FROM big_o a JOIN dup_i b ON a.k = b.k" \
	>/dev/null 2>&1 &
bg=$!
wait_for "tables_alive >= 1" 30 || fail "the long join never built its table"
pid=$(q "SELECT pid FROM pg_stat_activity WHERE query LIKE '%big_o a JOIN dup_i%' AND pid <> pg_backend_pid() LIMIT 1")
[ -n "$pid" ] || fail "no backend to kill"
q "SELECT pg_terminate_backend($pid)" >/dev/null
wait $bg || true
wait_for "tables_alive = 0 AND staging_in_use_mb = 0" 10 || fail "a killed backend left its table: $(info tables_alive)"
echo "backend killed mid-join: no table or staging slot left"

# ---- 3. statement_timeout mid-join
out=$(psql -X -d "$db" -c "SELECT gh_force_on(); SET statement_timeout = '1s';
	SELECT count(*) FROM big_o a JOIN dup_i b ON a.k = b.k" 2>&1 || true)
echo "$out" | grep -q "canceling statement due to statement timeout" || fail "no timeout: $out"
wait_for "tables_alive = 0 AND staging_in_use_mb = 0" 10 || fail "a cancelled join left its table"
echo "statement_timeout mid-join: table freed, session error was clean"

# ---- 4. the service stopped with SIGTERM restarts on its own
# the service has no database connection, so pg_terminate_backend cannot
# reach it: signal it the way the postmaster would
old=$(info "substring(service from 'pid ([0-9]+)')")
kill -TERM "$old" 2>/dev/null || sudo -n kill -TERM "$old" || fail "cannot signal the service (pid $old)"
wait_for "service LIKE 'running%' AND substring(service from 'pid ([0-9]+)') <> '$old'" 30 ||
	fail "the service did not restart: $(info service)"
[ "$(q "SELECT same FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4')")" = t ] ||
	fail "joins after the service restart"
echo "service stopped with SIGTERM and restarted (pid $old -> $(info "substring(service from 'pid ([0-9]+)')")), joins work"
q "DROP TABLE big_o; DROP TABLE dup_i;" >/dev/null
echo "service_check: all passed"

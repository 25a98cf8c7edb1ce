#!/usr/bin/env bash
# Checks of the GPU service that need several sessions, against a running
# cluster with gpuhash preloaded (PGHOST/PGPORT/PGUSER set) after
# `make installcheck` (which leaves the contrib_regression database):
#   1. 8 concurrent sessions run GPU joins; every result equals PostgreSQL's;
#   2. a backend killed (SIGTERM) mid-join leaves no table or staging slot;
#   3. a query cancelled by statement_timeout mid-join frees its table;
#   4. FULL joins cancelled part-way (statement_timeout and pg_cancel_backend,
#      serial and parallel, every scheme) leave no table and no staging slot
#      in the service once the statement has returned;
#   5. the service gives back the memory of large host twin joins;
#   6. the service stopped with SIGTERM: the postmaster restarts it alone
#      (a new pid), and joins work again.  kill -9 would instead take the
#      whole cluster through a crash restart (README), so it is not tried.
#   7. a GPU context lost in the service (gpuhash.debug_lose_gpu: the
#      request fails as a sticky CUDA error would): the query gives
#      PostgreSQL's result or a clean ERROR, the service alone restarts (a
#      new pid; another session's backend and the postmaster stay), and
#      joins work again.
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

# ---- 4. FULL joins cancelled part-way leave nothing behind
q "CREATE TABLE IF NOT EXISTS cx AS SELECT g AS id, (g * 7) % 2500000 AS k FROM generate_series(1, 2000000) g;
   ANALYZE cx;" >/dev/null
# gh_force_on() sets its settings for the transaction: one query string each.
# work_mem for one table of 2M rows: a parallel-aware join needs it, and the
# serial join then builds one large table too, rather than hash batches
serial="SELECT gh_force_on(); SET work_mem = '256MB'; SET max_parallel_workers_per_gather = 0;"
parallel="SELECT gh_force_on(); SET work_mem = '256MB'; SET parallel_setup_cost = 0;
	SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
	SET max_parallel_workers_per_gather = 2;"
full="SELECT count(*) FROM cx a FULL JOIN cx b ON a.k = b.k"
outf=$(mktemp)
# nothing of the statement in the service right after it returned: polls
# for at most 0.2 s and says what it saw
left_nothing() {	# left_nothing WHAT
	local seen first
	for i in 0 1 2; do
		seen=$(info "tables_alive || ' tables, ' || staging_in_use_mb || ' MB staging'")
		first=${first:-$seen}
		[ "$seen" = "0 tables, 0 MB staging" ] && break
		sleep 0.1
	done
	echo "  $1: $first right after$([ "$seen" = "$first" ] || echo ", $seen at +$((i * 100)) ms")"
	[ "$seen" = "0 tables, 0 MB staging" ] || fail "$1 left $seen in the service"
}
for mode in serial parallel; do
	setup=${!mode}
	plan=$(psql -X -At -d "$db" -c "$setup EXPLAIN $full")
	want="Custom Scan (GpuHashJoin)"
	[ $mode = parallel ] && want="Parallel Custom Scan (GpuHashJoin)"
	echo "$plan" | grep -qF -- "$want" || fail "$mode: no $want in the plan: $plan"
	for scheme in gph fks linear; do
		set_scheme="SET gpuhash.scheme = $scheme;"
		# the join's own length, to cancel it part-way on any machine
		t0=$(date +%s%N)
		psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "$setup $set_scheme $full" >/dev/null
		ms=$((($(date +%s%N) - t0) / 1000000))
		echo "$mode $scheme FULL JOIN of 2M x 2M rows: $ms ms uncancelled"
		timeouts=0
		cancels=0
		for pct in 15 40 65; do
			at=$((ms * pct / 100))
			out=$(psql -X -d "$db" -c "$setup $set_scheme SET statement_timeout = $at; $full" 2>&1 || true)
			if echo "$out" | grep -q "canceling statement due to statement timeout"; then
				timeouts=$((timeouts + 1))
				left_nothing "$mode $scheme, statement_timeout at $at ms"
			else
				left_nothing "$mode $scheme, finished before its timeout at $at ms"
			fi

			PGAPPNAME=gh_cancel_me psql -X -d "$db" -c "$setup $set_scheme $full" >"$outf" 2>&1 &
			bg=$!
			sleep "$(printf '%d.%03d' $((at / 1000)) $((at % 1000)))"
			# again until it returns: the first may come before the query started
			while kill -0 $bg 2>/dev/null; do
				q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
				   WHERE application_name = 'gh_cancel_me' AND backend_type = 'client backend'" >/dev/null
				sleep 0.05
			done
			wait $bg || true
			if grep -q "canceling statement due to user request" "$outf"; then
				cancels=$((cancels + 1))
				left_nothing "$mode $scheme, pg_cancel_backend at $at ms"
			else
				left_nothing "$mode $scheme, finished before pg_cancel_backend at $at ms"
			fi
		done
		# a loaded machine may finish one early, but not every one
		[ $timeouts -ge 2 ] && [ $cancels -ge 2 ] ||
			fail "$mode $scheme: only $timeouts of 3 timeouts and $cancels of 3 cancels hit the join"
	done
done
rm -f "$outf"
echo "cancelled FULL joins: no table or staging slot left once the statement returned"

# ---- 5. the service gives memory back
# joins of growing size, each one table (work_mem for it): freed blocks of
# one size are where glibc would put the next ones, and keep them
svc_pid=$(info "substring(service from 'pid ([0-9]+)')")
rss_mb() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$svc_pid/status"; }
idle=$(rss_mb)
peak=$idle
for rows in 1000000 3000000 5000000; do
	for scheme in gph fks linear; do
		psql -X -At -v ON_ERROR_STOP=1 -d "$db" -c "SELECT gh_force_on(); SET max_parallel_workers_per_gather = 0;
			SET work_mem = '1GB';
			SET gpuhash.scheme = $scheme; SELECT count(*) FROM generate_series(1, $rows) o(k)
				JOIN (SELECT g AS k FROM generate_series(1, $rows) g) i ON o.k = i.k" >/dev/null &
		bg=$!
		while kill -0 $bg 2>/dev/null; do
			now=$(rss_mb)
			[ "$now" -gt "$peak" ] && peak=$now
			sleep 0.05
		done
		wait $bg || fail "the $rows-row $scheme join failed"
	done
done
after=$(rss_mb)
echo "service RSS: $idle MB idle, $peak MB at most during joins of 1M to 5M rows a side, $after MB after"
[ "$after" -le $((idle + 64)) ] || fail "the service kept $((after - idle)) MB after the large joins ended"

# ---- 6. the service stopped with SIGTERM restarts on its own
# the service has no database connection, so pg_terminate_backend cannot
# reach it: signal it the way the postmaster would
old=$(info "substring(service from 'pid ([0-9]+)')")
kill -TERM "$old" 2>/dev/null || sudo -n kill -TERM "$old" || fail "cannot signal the service (pid $old)"
wait_for "service LIKE 'running%' AND substring(service from 'pid ([0-9]+)') <> '$old'" 30 ||
	fail "the service did not restart: $(info service)"
[ "$(q "SELECT same FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4')")" = t ] ||
	fail "joins after the service restart"
echo "service stopped with SIGTERM and restarted (pid $old -> $(info "substring(service from 'pid ([0-9]+)')")), joins work"

# ---- 7. a lost GPU context restarts the service, nothing else
old=$(info "substring(service from 'pid ([0-9]+)')")
pm=$(q "SELECT pg_postmaster_start_time()")
psql -X -At -d "$db" -c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
bystander=$!
sleep 0.5
bpid=$(q "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' LIMIT 1")
[ -n "$bpid" ] || fail "no bystander session"
out=$(psql -X -At -d "$db" -c "SET gpuhash.debug_lose_gpu = on" \
	-c "SELECT same FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4')" 2>&1) || true
case "$out" in
	*t) ;;
	*ERROR:*) echo "the query on the lost context: $(echo "$out" | grep -m1 ERROR)" ;;
	*) fail "the query on a lost context: $out" ;;
esac
wait_for "service LIKE 'running%' AND substring(service from 'pid ([0-9]+)') <> '$old'" 30 ||
	fail "the service did not restart after its GPU context was lost: $(info service)"
[ "$(q "SELECT pg_postmaster_start_time()")" = "$pm" ] || fail "the cluster restarted"
[ "$(q "SELECT count(*) FROM pg_stat_activity WHERE pid = $bpid")" = 1 ] ||
	fail "another session's backend went with the lost context"
[ "$(q "SELECT same AND gpu_nodes = 1 FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4')")" = t ] ||
	fail "joins after the restart for a lost context"
q "SELECT pg_cancel_backend($bpid)" >/dev/null
wait $bystander 2>/dev/null || true
echo "a lost GPU context: the service restarted alone (pid $old -> $(info "substring(service from 'pid ([0-9]+)')")), the other session and the postmaster stayed, joins work"
q "DROP TABLE big_o; DROP TABLE dup_i; DROP TABLE cx;" >/dev/null
echo "service_check: all passed"

-- Resident groups (src/agg/agg_resident.c, agg_having.c): a GpuPreAgg's
-- groups kept in the GPU service, one set for all participants, read back
-- once at the end with the exact HAVING conjuncts applied on the device
-- (GPU Having).  Every query runs three ways and must give the same rows:
-- PostgreSQL's own aggregates, GpuPreAgg without resident groups, and with.
SET gpuhash.device = host;
SET extra_float_digits = 0;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
-- 150 000 groups of 2 rows, and a NULL group
CREATE TABLE rr (
	k int4, q numeric(12,2), n numeric(14,5), i4 int4, i8 int8,
	d date, ts timestamp, f8 float8, g int4);
INSERT INTO rr
SELECT i % 150000, (i % 97) * 1.25 + 0.01 * (i % 3),
	   CASE i % 4 WHEN 0 THEN (i % 89) / 8.0 WHEN 1 THEN i % 13
			WHEN 2 THEN round((i % 71) / 3.0, 5) ELSE NULL END,
	   (i % 1001) - 500, i::int8 * 1000003 - 150000000000,
	   date '1995-01-01' + i % 1500, timestamp '1995-01-01' + (i % 5000) * interval '1 hour',
	   (i % 7) * 0.5, i % 4
FROM generate_series(1, 300000) i;
INSERT INTO rr (k, q, n, i4, d) SELECT NULL, 100, 1.5, i, date '1990-01-01' FROM generate_series(1, 7) i;
VACUUM ANALYZE rr;

CREATE FUNCTION rr_digest(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT count(*) || '' '' || md5(coalesce(string_agg(t::text, ''|'' ORDER BY t::text), '''')) FROM (%s) t', q) INTO r;
	RETURN r;
END $$;
-- the rows native, without and with resident groups; whether the plan
-- keeps the groups resident and pushes a GPU Having
CREATE FUNCTION rr_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE native text; plain text; res text; plan text := '';
	l text;
BEGIN
	SET LOCAL gpuhash.gpu_aggregate = off;
	native := rr_digest(q);
	SET LOCAL gpuhash.gpu_aggregate = on;
	SET LOCAL gpuhash.resident_groups = off;
	plain := rr_digest(q);
	SET LOCAL gpuhash.resident_groups = on;
	res := rr_digest(q);
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%GpuPreAgg%' AND plan = '' THEN plan := ' (GpuPreAgg)'; END IF;
		IF l LIKE '%GPU Having%' THEN plan := plan || ' (GPU Having)'; END IF;
	END LOOP;
	RETURN CASE WHEN native = plain AND plain = res THEN 'same: ' || split_part(res, ' ', 1) || ' rows'
		   ELSE 'DIFFERENT: native ' || native || ', without ' || plain || ', resident ' || res END || plan;
END $$;

-- the resident set's lines of EXPLAIN ANALYZE (the others depend on timing)
CREATE FUNCTION rr_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ '(GPU Having|Resident Groups|Groups Returned)' THEN
			RETURN NEXT ltrim(l);
		END IF;
	END LOOP;
END $$;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;

-- the plans: GPU Having where a conjunct is exact
EXPLAIN (COSTS OFF)
SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300;
EXPLAIN (COSTS OFF)
SELECT k, count(*) FROM rr GROUP BY k HAVING 2 <= count(*) AND avg(q) > 10 AND min(d) < date '1996-01-01';
-- none pushed: avg, OR, a column, a float
EXPLAIN (COSTS OFF)
SELECT k, sum(q) FROM rr GROUP BY k HAVING avg(q) > 10 OR sum(q) > max(q) OR sum(f8) > 1;

-- parallel: HAVING forms pushed
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING 300 < sum(q)');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) >= 150.02');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 12.345');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) <= 12.345');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) = 100.02');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) <> 100.02 AND sum(q) < 50');
SELECT rr_same('SELECT k, sum(n), count(n) FROM rr GROUP BY k HAVING sum(n) > 7.123456789');
SELECT rr_same('SELECT k, sum(n) FROM rr GROUP BY k HAVING sum(n) = 12');
SELECT rr_same('SELECT k, sum(n) FROM rr GROUP BY k HAVING sum(n) < -0.5 OR sum(n) IS NULL');
-- numeric scales: a product (scale 7) against constants of other scales
SELECT rr_same('SELECT k, sum(q * n) FROM rr GROUP BY k HAVING sum(q * n) > 1000.5');
SELECT rr_same('SELECT k, sum(q * n) FROM rr GROUP BY k HAVING sum(q * n) <= 10.00000001 AND sum(q * n) > -1e3');
SELECT rr_same('SELECT k, count(*) FROM rr GROUP BY k HAVING count(*) <> 2');
SELECT rr_same('SELECT k, count(n) FROM rr GROUP BY k HAVING count(n) = 0');
SELECT rr_same('SELECT k, sum(i4) FROM rr GROUP BY k HAVING sum(i4) < -400');
-- integer arithmetic in the arguments
SELECT rr_same('SELECT k, sum(i4 * g), min(i8 - i4) FROM rr GROUP BY k HAVING sum(i4 * g) > 900');
SELECT rr_same('SELECT k, sum(i8) FROM rr GROUP BY k HAVING sum(i8) > 100000000000');
SELECT rr_same('SELECT k, min(i4), max(i4) FROM rr GROUP BY k HAVING min(i4) = 5 OR max(i4) = 5');
SELECT rr_same('SELECT k, min(i4) FROM rr GROUP BY k HAVING min(i4) >= 490');
SELECT rr_same('SELECT k, min(d) FROM rr GROUP BY k HAVING min(d) < date ''1995-01-09''');
SELECT rr_same('SELECT k, max(ts) FROM rr GROUP BY k HAVING max(ts) >= timestamp ''1995-07-27 05:00''');
SELECT rr_same('SELECT k, sum(q), count(*) FROM rr GROUP BY k HAVING count(*) >= 2 AND sum(q) > 200 AND min(d) < date ''1996-01-01''');
-- not pushed: avg, OR, a column, a float, a non-constant
SELECT rr_same('SELECT k, avg(q) FROM rr GROUP BY k HAVING avg(q) > 100');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300 OR count(*) > 2');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 60 * max(q) / 40');
SELECT rr_same('SELECT k, sum(f8) FROM rr GROUP BY k HAVING sum(f8) > 5');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > k');
-- no HAVING: every group once; two keys; NULL groups
SELECT rr_same('SELECT k, sum(q), count(*), max(d) FROM rr GROUP BY k');
SELECT rr_same('SELECT g, k % 7 AS m, sum(q), count(*) FROM rr GROUP BY g, k % 7');
SELECT rr_same('SELECT k, count(*), sum(q) FROM rr WHERE k IS NULL OR k < 10 GROUP BY k HAVING count(*) > 2');
-- empty input
SELECT rr_same('SELECT k, sum(q) FROM rr WHERE i4 > 100000 GROUP BY k HAVING sum(q) > 1');
SELECT rr_same('SELECT k, sum(q) FROM rr WHERE i4 > 100000 GROUP BY k');

-- the leader not walking: a worker reads the set, the leader frees it
SET parallel_leader_participation = off;
SELECT rr_same('SELECT k, sum(q), count(*) FROM rr GROUP BY k HAVING sum(q) > 150 AND count(*) = 2');
RESET parallel_leader_participation;
-- parallel figures: the leader shows the readers' (Groups Returned summed)
SELECT rr_explain('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 150');
-- no HAVING: every participant reads ranges of the finished set, each
-- group once over all of them (the digest counts duplicates)
SET gpuhash.resident_groups = on;
SELECT rr_explain('SELECT k, sum(q), count(*) FROM rr GROUP BY k');
SELECT count(*), count(DISTINCT k) FROM (SELECT k, sum(q) FROM rr GROUP BY k) s;
SET parallel_leader_participation = off;
SELECT rr_same('SELECT k, sum(q), count(*) FROM rr GROUP BY k');
SELECT rr_explain('SELECT k, sum(q), count(*) FROM rr GROUP BY k');
RESET parallel_leader_participation;
-- a Limit that stops reading early: the readers left end theirs
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k ORDER BY k LIMIT 5');
RESET gpuhash.resident_groups;
-- auto: the set only where it saves more than its finish costs; a serial
-- grouping of one request, each row its own group, no HAVING term: the
-- groups come back with the request; with a HAVING term the set filters
CREATE TABLE rr_few AS SELECT i AS k, i % 10 AS v FROM generate_series(1, 5000) i;
ANALYZE rr_few;
SET max_parallel_workers_per_gather = 0;
SELECT rr_explain('SELECT k, sum(v) FROM rr_few GROUP BY k');
SELECT rr_explain('SELECT k, sum(v) FROM rr_few GROUP BY k HAVING sum(v) = 3');
SET max_parallel_workers_per_gather = 2;

-- serial: the same, and the figures
SET max_parallel_workers_per_gather = 0;
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300');
SELECT rr_same('SELECT k, sum(n), count(*) FROM rr GROUP BY k HAVING sum(n) > 7.123456789 AND count(*) > 1');
SELECT rr_same('SELECT k, min(d) FROM rr GROUP BY k HAVING min(d) < date ''1995-01-09''');
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k');
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300;
-- more groups than work_mem: the set holds them all, nothing spills
SET work_mem = '64kB';
SELECT rr_same('SELECT k, sum(q), count(*) FROM rr GROUP BY k HAVING count(*) > 1');
RESET work_mem;

-- incomplete: the set past its cap keeps what it has, the rest comes back
-- as without it, and no HAVING is applied on the device
SET gpuhash.resident_groups_memory = 1;
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300');
SELECT l FROM rr_explain('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300') l
WHERE l !~ '^(Resident Groups|Groups Returned)';
SET max_parallel_workers_per_gather = 2;
SELECT rr_same('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300');
SELECT l FROM rr_explain('SELECT k, sum(q) FROM rr GROUP BY k HAVING sum(q) > 300') l
WHERE l !~ '^(Resident Groups|Groups Returned)';
RESET gpuhash.resident_groups_memory;

-- incomplete: a value past the exact accumulator (or compressed) sends its
-- request's pages to the CPU; the other requests' groups are in the set
CREATE TABLE rr_toast (k int4, n numeric(1000, 0), pad text);
ALTER TABLE rr_toast ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO rr_toast SELECT i % 5000, i % 50, 'p' FROM generate_series(1, 80000) i;
INSERT INTO rr_toast SELECT 7, ('1' || repeat('0', 900))::numeric, repeat('x', 3000);
VACUUM ANALYZE rr_toast;
SELECT rr_same('SELECT k, sum(n), count(*) FROM rr_toast GROUP BY k HAVING sum(n) > 1000');
SET max_parallel_workers_per_gather = 0;
SELECT rr_same('SELECT k, sum(n), count(*) FROM rr_toast GROUP BY k HAVING sum(n) > 1000');
SELECT rr_explain('SELECT k, sum(n) FROM rr_toast GROUP BY k HAVING sum(n) > 1000');
SET max_parallel_workers_per_gather = 2;

-- rescans: a set per scan (the sort above the node rescans it for each x;
-- the HAVING's outer reference keeps the plan serial)
SET enable_hashagg = off;
SELECT rr_same('SELECT x, (SELECT count(*) FROM (SELECT k FROM rr GROUP BY k HAVING sum(q) > 150 + 20 * x AND count(*) > 1) s) FROM generate_series(0, 3) x');
SET max_parallel_workers_per_gather = 0;
SELECT rr_same('SELECT x, (SELECT count(*) FROM (SELECT k FROM rr GROUP BY k HAVING sum(q) > 150 + 20 * x AND count(*) > 1) s) FROM generate_series(0, 3) x');
EXPLAIN (COSTS OFF)
SELECT x, (SELECT count(*) FROM (SELECT k FROM rr GROUP BY k HAVING sum(q) > 150 + 20 * x AND count(*) > 1) s) FROM generate_series(0, 3) x;
RESET enable_hashagg;
-- a parallel rescan: the Gather under the sort is run again for each x
-- (ReInitializeDSM: the set freed, a new one for all)
SET max_parallel_workers_per_gather = 2;
SET enable_hashagg = off;
SET enable_material = off;
SELECT rr_same('SELECT x, count(*), sum(s) FROM (VALUES (100), (150), (200)) v(x), LATERAL (SELECT * FROM (SELECT k, sum(q) s FROM rr GROUP BY k HAVING count(*) > 1 OFFSET 0) t WHERE t.s > x OFFSET 0) ss GROUP BY x');
EXPLAIN (COSTS OFF)
SELECT x, count(*), sum(s) FROM (VALUES (100), (150), (200)) v(x), LATERAL (SELECT * FROM (SELECT k, sum(q) s FROM rr GROUP BY k HAVING count(*) > 1 OFFSET 0) t WHERE t.s > x OFFSET 0) ss GROUP BY x;
RESET enable_material;
RESET enable_hashagg;

-- over a join (the joined GpuPreAgg, agg_join*.c): the requests name the
-- dimension and the set; HAVING terms are pushed over an inner join only
-- (an outer join's unmatched inner rows go up beside the set).  ri: a key for 2 of 3
-- of rr's groups, some twice, keys rr lacks, NULL keys.
CREATE TABLE ri (k int4, c int4, w numeric(10,2));
INSERT INTO ri SELECT i, i % 11, (i % 37) * 0.5 FROM generate_series(0, 159999) i WHERE i % 3 <> 0;
INSERT INTO ri SELECT i, 99, 1 FROM generate_series(1, 149999, 1000) i;
INSERT INTO ri SELECT NULL, i % 11, 2 FROM generate_series(1, 5) i;
VACUUM ANALYZE ri;
SET gpuhash.gpu_aggregate_join = on;
SET gpuhash.page_cpu_cost = -1;
SET gpuhash.match_row_cost = 10;
SET gpuhash.page_match_cost = 10;
SET enable_gpuhashjoin = on;
SET work_mem = '64MB';
-- the rows native (PostgreSQL's own joins), then with the joined GpuPreAgg
-- (PostgreSQL's joins disabled, so that it is the plan) without and with
-- resident groups; whether the plan joins in the GpuPreAgg (outer: the
-- inner side preserved) and its EXPLAIN ANALYZE shows a resident set
CREATE FUNCTION rj_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE native text; plain text; res text; l text; plan text := '';
BEGIN
	SET LOCAL gpuhash.gpu_aggregate = off;
	native := rr_digest(q);
	SET LOCAL gpuhash.gpu_aggregate = on;
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_mergejoin = off;
	SET LOCAL enable_nestloop = off;
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%GPU Join:%' THEN plan := plan || ' (joined)'; END IF;
		IF l LIKE '%GPU Join Type: Left%' THEN plan := plan || ' (outer)'; END IF;
		IF l LIKE '%GPU Having:%' THEN plan := plan || ' (GPU Having)'; END IF;
	END LOOP;
	-- not joined: a disabled join would be the plan (said, never run)
	IF plan NOT LIKE ' (joined)%' THEN
		RETURN 'NOT JOINED' || plan;
	END IF;
	SET LOCAL gpuhash.resident_groups = off;
	plain := rr_digest(q);
	SET LOCAL gpuhash.resident_groups = on;
	res := rr_digest(q);
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l LIKE '%Resident Groups:%' THEN plan := plan || ' (resident)'; END IF;
	END LOOP;
	RETURN CASE WHEN native = plain AND plain = res THEN 'same: ' || split_part(res, ' ', 1) || ' rows'
		   ELSE 'DIFFERENT: native ' || native || ', without ' || plain || ', resident ' || res END || plan;
END $$;
-- parallel (an outer join with the shared dimension)
SELECT rj_same('SELECT rr.k, sum(rr.q), count(*) FROM rr JOIN ri ON rr.k = ri.k GROUP BY rr.k');
SELECT rj_same('SELECT ri.c, sum(rr.q), count(*), sum(ri.w) FROM rr JOIN ri ON rr.k = ri.k GROUP BY ri.c');
SELECT rj_same('SELECT rr.k, sum(rr.q) FROM rr JOIN ri ON rr.k = ri.k GROUP BY rr.k HAVING sum(rr.q) > 150');
SELECT rj_same('SELECT ri.k, count(rr.q), sum(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k GROUP BY ri.k');
SELECT rj_same('SELECT ri.k, count(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k GROUP BY ri.k HAVING count(rr.q) = 0');
SELECT rj_same('SELECT ri.k, count(*) FROM rr RIGHT JOIN ri ON ri.k = rr.k AND rr.q > 50 GROUP BY ri.k HAVING count(*) > 1');
SELECT rj_same('SELECT cnt, count(*) FROM (SELECT ri.k, count(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k AND rr.i4 > 0 GROUP BY ri.k) s(k, cnt) GROUP BY cnt');
-- serial
SET max_parallel_workers_per_gather = 0;
SELECT rj_same('SELECT rr.k, sum(rr.q), count(*) FROM rr JOIN ri ON rr.k = ri.k GROUP BY rr.k');
SELECT rj_same('SELECT rr.k, sum(rr.q) FROM rr JOIN ri ON rr.k = ri.k GROUP BY rr.k HAVING sum(rr.q) > 150');
SELECT rj_same('SELECT ri.k, count(rr.q), sum(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k GROUP BY ri.k');
SELECT rj_same('SELECT ri.k, count(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k GROUP BY ri.k HAVING count(rr.q) = 0');
SELECT rj_same('SELECT cnt, count(*) FROM (SELECT ri.k, count(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k AND rr.i4 > 0 GROUP BY ri.k) s(k, cnt) GROUP BY cnt');
-- the outer join's figures beside the set's
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SELECT l FROM rr_explain('SELECT ri.k, count(rr.q) FROM ri LEFT JOIN rr ON ri.k = rr.k GROUP BY ri.k HAVING count(rr.q) = 0') l;
RESET enable_nestloop;
RESET enable_mergejoin;
RESET enable_hashjoin;
SET max_parallel_workers_per_gather = 2;
RESET work_mem;
RESET enable_gpuhashjoin;
RESET gpuhash.page_match_cost;
RESET gpuhash.match_row_cost;
RESET gpuhash.page_cpu_cost;
RESET gpuhash.gpu_aggregate_join;
DROP FUNCTION rj_same(text);
DROP TABLE ri;

-- nothing of a set outlives its query
SELECT tables_alive FROM gpuhash_info() LIMIT 1;

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
DROP TABLE rr, rr_toast, rr_few;
DROP FUNCTION rr_same(text), rr_digest(text), rr_explain(text);

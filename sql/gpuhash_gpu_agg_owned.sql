-- Groups with one owner each (agg_resident.c, agg_exchange.c,
-- agg_paths.c's offer_owned): a parallel GpuPreAgg of resident groups under
-- a Finalize Aggregate in every participant, below the Gather.  Each group
-- must reach one participant only: the set's groups are read once; a row
-- folded beside the set (past its cap, a refused page, no set at all) goes
-- through the exchange to the one participant that then reads the whole
-- set.  Every query runs with the GPU aggregate off (PostgreSQL's plan),
-- with owned groups off (the Finalize above the Gather) and on; the digest
-- counts every row, so a group handed up twice shows.
SET gpuhash.device = host;
SET extra_float_digits = 0;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET gpuhash.resident_groups = on;
CREATE TABLE og (k int4, q numeric(12,2), n numeric(14,5), i8 int8, d date, f8 float8, g int4)
  WITH (autovacuum_enabled = off);
INSERT INTO og
SELECT i % 150000, (i % 97) * 1.25 + 0.01 * (i % 3),
	   CASE i % 4 WHEN 0 THEN (i % 89) / 8.0 WHEN 1 THEN i % 13 ELSE NULL END,
	   i::int8 * 1000003 - 150000000000, date '1995-01-01' + i % 1500, (i % 7) * 0.5, i % 4
FROM generate_series(1, 300000) i;
INSERT INTO og (k, q, n, g) SELECT NULL, 100, 1.5, i FROM generate_series(1, 7) i;
-- statistics of every row, no autovacuum to sample them again (og is
-- created without it): the plans' costs the same at every run
SET default_statistics_target = 10000;
VACUUM ANALYZE og;

CREATE FUNCTION og_digest(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT count(*) || '' '' || md5(coalesce(string_agg(t::text, ''|'' ORDER BY t::text), '''')) FROM (%s) t', q) INTO r;
	RETURN r;
END $$;
-- the rows three ways, and whether the plan with owned groups has them
CREATE FUNCTION og_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE native text; above text; owned text; plan text := ' (one Finalize)';
	l text;
BEGIN
	SET LOCAL gpuhash.gpu_aggregate = off;
	native := og_digest(q);
	SET LOCAL gpuhash.gpu_aggregate = on;
	SET LOCAL gpuhash.owned_groups = off;
	above := og_digest(q);
	SET LOCAL gpuhash.owned_groups = on;
	owned := og_digest(q);
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%Group Owners%' THEN plan := ' (owned groups)'; END IF;
	END LOOP;
	RETURN CASE WHEN native = above AND above = owned THEN 'same: ' || split_part(owned, ' ', 1) || ' rows'
		   ELSE 'DIFFERENT: native ' || native || ', above ' || above || ', owned ' || owned END || plan;
END $$;
-- the exchange's and the set's lines of EXPLAIN ANALYZE
CREATE FUNCTION og_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		IF l ~ '(Gather|Finalize|GpuPreAgg|Group Owners|Rows Exchanged|GPU Having Skipped)' THEN
			-- a participant's share of the rows varies from run to run
			RETURN NEXT regexp_replace(ltrim(l), ' \(actual[^)]*\)', '');
		END IF;
	END LOOP;
END $$;

-- the plan: the Finalize Aggregate in every participant
EXPLAIN (COSTS OFF) SELECT k, sum(q), count(*) FROM og GROUP BY k;
-- complete sets: every participant reads a share, nothing exchanged
SELECT og_same('SELECT k, sum(q), count(*), max(i8), min(d) FROM og GROUP BY k');
SELECT og_same('SELECT g, k % 7 AS m, sum(q), avg(n), count(n) FROM og GROUP BY g, k % 7');
SELECT og_same('SELECT k, sum(q) FROM og GROUP BY k HAVING sum(q) > 150 AND count(*) = 2');
SELECT og_same('SELECT k, sum(f8), count(*) FROM og GROUP BY k HAVING sum(f8) > 5');
SELECT og_same('SELECT k, sum(q) FROM og WHERE k IS NULL OR k < 10 GROUP BY k');
SELECT og_same('SELECT k, sum(q) FROM og WHERE g > 100 GROUP BY k');
SELECT og_explain('SELECT k, sum(q), count(*) FROM og GROUP BY k');
-- a Finalize that spills in each participant
SET work_mem = '64kB';
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k');
RESET work_mem;
-- the leader not walking, and no worker launched (the leader alone)
SET parallel_leader_participation = off;
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k');
RESET parallel_leader_participation;
SET max_parallel_workers = 0;
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k');
RESET max_parallel_workers;
-- a Limit above: the Gather stops early
SELECT og_same('SELECT * FROM (SELECT k, sum(q) FROM og GROUP BY k) s ORDER BY k LIMIT 5');
SELECT count(*) FROM (SELECT k, sum(q) FROM og GROUP BY k LIMIT 10) s;
-- each participant's finished groups are a partial path of the grouped
-- relation: sorted in every participant below a Gather Merge, the LIMIT
-- bounding each sort (the ties of the sort key broken by the group key, so
-- that the rows are one answer), a partial DISTINCT; with the leader not
-- walking; a subquery's groups stay under their own Gather
EXPLAIN (COSTS OFF) SELECT k, sum(q) FROM og GROUP BY k ORDER BY sum(q) DESC, k LIMIT 7;
SELECT og_same('SELECT k, sum(q) FROM og GROUP BY k ORDER BY sum(q) DESC, k LIMIT 7');
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k HAVING count(*) > 1 ORDER BY 2, 1 LIMIT 20 OFFSET 3');
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k ORDER BY 3 DESC, 1');
SELECT og_same('SELECT DISTINCT sum(q) FROM og GROUP BY k');
SET parallel_leader_participation = off;
SELECT og_same('SELECT k, sum(q) FROM og GROUP BY k ORDER BY sum(q) DESC, k LIMIT 7');
RESET parallel_leader_participation;
EXPLAIN (COSTS OFF)
SELECT o.g, count(*), sum(x.s) FROM og o JOIN (SELECT k, sum(q) s FROM og GROUP BY k) x ON o.k = x.k
GROUP BY o.g ORDER BY o.g;
SELECT og_same('SELECT o.g, count(*), sum(x.s) FROM og o JOIN (SELECT k, sum(q) s FROM og GROUP BY k) x ON o.k = x.k GROUP BY o.g');

-- incomplete: the set past its cap; the rows beside it go to one reader,
-- which reads the whole set too
SET gpuhash.resident_groups_memory = 1;
SELECT og_same('SELECT k, sum(q), count(*), max(i8) FROM og GROUP BY k');
SELECT og_same('SELECT k, sum(q) FROM og GROUP BY k HAVING sum(q) > 150 AND count(*) = 2');
SELECT l FROM og_explain('SELECT k, sum(q) FROM og GROUP BY k') l
WHERE l !~ '^Rows Exchanged';
SELECT (regexp_match(l, '\d+'))[1]::int > 0 AS exchanged
FROM og_explain('SELECT k, sum(q) FROM og GROUP BY k') l WHERE l LIKE 'Rows Exchanged%';
RESET gpuhash.resident_groups_memory;

-- incomplete: a value past the exact accumulator (or compressed) sends its
-- request's pages to the CPU, whose rows are exchanged
CREATE TABLE og_toast (k int4, n numeric(1000, 0), pad text);
ALTER TABLE og_toast ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO og_toast SELECT i % 5000, i % 50, 'p' FROM generate_series(1, 80000) i;
INSERT INTO og_toast SELECT 7, ('1' || repeat('0', 900))::numeric, repeat('x', 3000);
INSERT INTO og_toast SELECT 4000 + i, i, 'q' FROM generate_series(1, 20) i;
VACUUM ANALYZE og_toast;
RESET default_statistics_target;
SELECT og_same('SELECT k, sum(n), count(*) FROM og_toast GROUP BY k');
SELECT og_same('SELECT k, sum(n), count(*) FROM og_toast GROUP BY k HAVING sum(n) > 1000');

-- no set at all (the plan kept, resident groups turned off before it
-- runs): every row exchanged, one participant hands all up
SET plan_cache_mode = force_generic_plan;
PREPARE og_p AS SELECT count(*), count(DISTINCT k), sum(s), sum(c) FROM (SELECT k, sum(q) s, count(*) c FROM og GROUP BY k) t;
EXPLAIN (COSTS OFF) EXECUTE og_p;
EXECUTE og_p;
SET gpuhash.resident_groups = off;
EXECUTE og_p;
SET gpuhash.gpu_aggregate = off;
SELECT count(*), count(DISTINCT k), sum(s), sum(c) FROM (SELECT k, sum(q) s, count(*) c FROM og GROUP BY k) t;
RESET gpuhash.gpu_aggregate;
SET gpuhash.resident_groups = on;
DEALLOCATE og_p;
RESET plan_cache_mode;

-- a parallel rescan: the Gather run again for each x (ReInitializeDSM: a
-- new set and a new exchange for all), complete and incomplete
SET enable_material = off;
EXPLAIN (COSTS OFF)
SELECT x, count(*), sum(s) FROM (VALUES (100), (150), (200)) v(x), LATERAL (SELECT * FROM (SELECT k, sum(q) s FROM og GROUP BY k HAVING count(*) > 1 OFFSET 0) t WHERE t.s > x OFFSET 0) ss GROUP BY x;
SELECT og_same('SELECT x, count(*), sum(s) FROM (VALUES (100), (150), (200)) v(x), LATERAL (SELECT * FROM (SELECT k, sum(q) s FROM og GROUP BY k HAVING count(*) > 1 OFFSET 0) t WHERE t.s > x OFFSET 0) ss GROUP BY x');
SET gpuhash.resident_groups_memory = 1;
SELECT og_same('SELECT x, count(*), sum(s) FROM (VALUES (100), (150), (200)) v(x), LATERAL (SELECT * FROM (SELECT k, sum(q) s FROM og GROUP BY k HAVING count(*) > 1 OFFSET 0) t WHERE t.s > x OFFSET 0) ss GROUP BY x');
RESET gpuhash.resident_groups_memory;
RESET enable_material;

-- cancelled mid-walk (the workers at the barrier or writing the exchange):
-- a clean error, nothing left in the service, the next run right
SET statement_timeout = '5ms';
SELECT count(*) FROM (SELECT k, sum(q) FROM og GROUP BY k) s;
SET gpuhash.resident_groups_memory = 1;
SELECT count(*) FROM (SELECT k, sum(q) FROM og GROUP BY k) s;
RESET statement_timeout;
DO $$ BEGIN
	FOR i IN 1..200 LOOP
		EXIT WHEN (SELECT tables_alive FROM gpuhash_info() LIMIT 1) = 0;
		PERFORM pg_sleep(0.05);
	END LOOP;
END $$;
SELECT tables_alive FROM gpuhash_info() LIMIT 1;
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k');
RESET gpuhash.resident_groups_memory;
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k');

-- serial: no Gather, no owned plan
SET max_parallel_workers_per_gather = 0;
SELECT og_same('SELECT k, sum(q), count(*) FROM og GROUP BY k');
SET max_parallel_workers_per_gather = 2;
-- the plan only where PostgreSQL can run the Finalize in a worker: a
-- parallel-restricted HAVING keeps it above the Gather
CREATE FUNCTION og_restricted(numeric) RETURNS bool LANGUAGE plpgsql PARALLEL RESTRICTED AS 'BEGIN RETURN $1 > 100; END';
SELECT og_same('SELECT k, sum(q) FROM og GROUP BY k HAVING og_restricted(sum(q))');

DROP FUNCTION og_restricted(numeric);
DROP TABLE og, og_toast;
DROP FUNCTION og_same(text), og_digest(text), og_explain(text);
RESET gpuhash.resident_groups;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

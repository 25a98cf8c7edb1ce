--
-- Cases the differential fuzzer of the GPU aggregate over a join
-- (test/fuzz/agg_join_fuzz.py) found: each query run with everything
-- PostgreSQL's and with the GPU aggregate over the join on, compared as
-- multisets, its plan shown so that the on run is known to join in a
-- GpuPreAgg.
--
SET client_min_messages = warning;
SET extra_float_digits = 3;
SET gpuhash.device = host;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
SET max_parallel_workers_per_gather = 0;

CREATE FUNCTION jaf_same(q text, OUT rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  bad bigint;
BEGIN
  SET LOCAL gpuhash.gpu_aggregate = off;
  SET LOCAL enable_gpuhashjoin = off;
  EXECUTE 'CREATE TEMP TABLE jaf_off AS SELECT r__::text AS t FROM (' || q || ') r__';
  SET LOCAL gpuhash.gpu_aggregate = on;
  SET LOCAL gpuhash.gpu_aggregate_join = on;
  SET LOCAL enable_gpuhashjoin = on;
  EXECUTE 'CREATE TEMP TABLE jaf_on AS SELECT r__::text AS t FROM (' || q || ') r__';
  SELECT count(*) INTO rows FROM jaf_on;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM jaf_off EXCEPT ALL SELECT * FROM jaf_on) UNION ALL
    (SELECT * FROM jaf_on EXCEPT ALL SELECT * FROM jaf_off)) x;
  same := bad = 0;
  DROP TABLE jaf_off, jaf_on;
END $$;

-- The walked relation is a small table and the inner side a join that is
-- itself a GpuHashJoin: its target list reads its custom_scan_tlist
-- (INDEX_VAR), which the inner columns' lookup must follow to the base
-- relation's columns (it did not: "inner plan does not output column").
CREATE TABLE jaf_big (j0 int4, d0 date, n0 numeric(12,2)) WITH (autovacuum_enabled = off);
INSERT INTO jaf_big SELECT i % 5, date '2000-01-01' + i % 7, (i % 100) / 4.0
FROM generate_series(1, 9000) i;
CREATE TABLE jaf_a (j0 int4, g1 int4, m0 numeric(12,2)) WITH (autovacuum_enabled = off);
INSERT INTO jaf_a VALUES (1, 1, 2.50), (2, 2, NULL), (3, 1, -1.25);
CREATE TABLE jaf_b (g1 int4, m1 numeric(7,4)) WITH (autovacuum_enabled = off);
INSERT INTO jaf_b VALUES (1, 0.5000), (1, 0.2500), (2, 1.0000), (NULL, 3.0000);
VACUUM ANALYZE jaf_big, jaf_a, jaf_b;
SET gpuhash.gpu_aggregate = on;
SET gpuhash.gpu_aggregate_join = on;
EXPLAIN (COSTS OFF)
SELECT sum(a.m0 * b.m1), r.d0 FROM jaf_big r JOIN jaf_a a ON r.j0 = a.j0
  JOIN jaf_b b ON a.g1 = b.g1 GROUP BY r.d0;
SELECT * FROM jaf_same('SELECT sum(a.m0 * b.m1), r.d0 FROM jaf_big r JOIN jaf_a a ON r.j0 = a.j0
  JOIN jaf_b b ON a.g1 = b.g1 GROUP BY r.d0');
SELECT * FROM jaf_same('SELECT count(*), max(r.n0), b.m1 FROM jaf_big r JOIN jaf_a a ON r.j0 = a.j0
  JOIN jaf_b b ON a.g1 = b.g1 WHERE r.n0 > 1 GROUP BY b.m1');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM jaf_same('SELECT sum(a.m0 * b.m1), r.d0 FROM jaf_big r JOIN jaf_a a ON r.j0 = a.j0
  JOIN jaf_b b ON a.g1 = b.g1 GROUP BY r.d0');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- An inner side estimated beyond work_mem x hash_mem_multiplier: the
-- executor, which holds the inner rows in that much and raises an error
-- past it, would fail a query PostgreSQL answers; the planner declines it.
CREATE TABLE jaf_inner (j0 int4, m0 numeric(12,2)) WITH (autovacuum_enabled = off);
INSERT INTO jaf_inner SELECT i % 5, i / 8.0 FROM generate_series(1, 3000) i;
VACUUM ANALYZE jaf_inner;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
EXPLAIN (COSTS OFF)
SELECT r.d0, sum(i.m0) FROM jaf_big r JOIN jaf_inner i ON r.j0 = i.j0 GROUP BY r.d0;
SELECT * FROM jaf_same('SELECT r.d0, sum(i.m0) FROM jaf_big r JOIN jaf_inner i ON r.j0 = i.j0 GROUP BY r.d0');
RESET work_mem;
RESET hash_mem_multiplier;
EXPLAIN (COSTS OFF)
SELECT r.d0, sum(i.m0) FROM jaf_big r JOIN jaf_inner i ON r.j0 = i.j0 GROUP BY r.d0;
DROP TABLE jaf_big, jaf_a, jaf_b, jaf_inner;

RESET gpuhash.gpu_aggregate;
RESET gpuhash.gpu_aggregate_join;
DROP FUNCTION jaf_same(text);

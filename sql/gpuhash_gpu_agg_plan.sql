-- The planner's GPU aggregate (GpuPreAgg): plan shapes only, EXPLAIN (COSTS OFF).
-- A parallel partial aggregate over one plain table becomes
-- Finalize Aggregate -> Gather -> Custom Scan (GpuPreAgg); a serial plan
-- gets Finalize Aggregate over a serial GpuPreAgg; declined cases, and the
-- switches off, keep PostgreSQL's own plan.
SET gpuhash.device = host;
SET gpuhash.gpu_aggregate = on;
CREATE TABLE agg_t (
	k int4, flag char(1), status char(1),
	qty numeric(15,2), price numeric(15,2), disc numeric(15,2),
	shipdate date, note text, f8 float8, arr int4[]);
INSERT INTO agg_t
SELECT i, chr(65 + i % 3), chr(70 + i % 2), (i % 50) + 1, (i % 997) * 1.25, (i % 11) / 100.0,
	   date '1992-01-01' + i % 2500, 'n' || i % 7, i * 0.5, ARRAY[i % 5]
FROM generate_series(1, 60000) i;
CREATE TABLE agg_small (k int4 PRIMARY KEY, name text);
INSERT INTO agg_small SELECT i, 'x' || i FROM generate_series(1, 100) i;
ANALYZE agg_t, agg_small;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = on;

-- grouped, with a scan qual (TPC-H Q01's shape)
EXPLAIN (COSTS OFF)
SELECT flag, status, sum(qty), sum(price), sum(price * (1 - disc)), avg(qty), avg(disc), count(*)
FROM agg_t WHERE shipdate <= date '1998-09-02'
GROUP BY flag, status ORDER BY flag, status;

-- one group, several quals (TPC-H Q06's shape)
EXPLAIN (COSTS OFF)
SELECT sum(price * disc) FROM agg_t
WHERE shipdate >= date '1994-01-01' AND shipdate < date '1995-01-01'
  AND disc BETWEEN 0.05 AND 0.07 AND qty < 24;

-- the Finalize Aggregate's Aggrefs match the node's partial ones
EXPLAIN (VERBOSE, COSTS OFF)
SELECT flag, count(*), sum(qty), max(shipdate) FROM agg_t WHERE k > 10 GROUP BY flag;

-- every aggregate kind, no GROUP BY, no quals
EXPLAIN (COSTS OFF)
SELECT count(*), count(qty), sum(k), sum(f8), avg(k), min(shipdate), max(k), min(f8) FROM agg_t;

-- HAVING stays in the Finalize Aggregate
EXPLAIN (COSTS OFF)
SELECT status, sum(qty) FROM agg_t GROUP BY status HAVING count(*) > 10;

-- declined (DISTINCT, FILTER, a text aggregate, avg(float8), numeric max,
-- a CPU qual, an array key, an expression key, grouping sets, a join, a
-- pseudoconstant qual): PostgreSQL's plans
EXPLAIN (COSTS OFF) SELECT count(DISTINCT k) FROM agg_t;
EXPLAIN (COSTS OFF) SELECT sum(qty) FILTER (WHERE k > 5) FROM agg_t;
EXPLAIN (COSTS OFF) SELECT flag, max(note) FROM agg_t GROUP BY flag;
EXPLAIN (COSTS OFF) SELECT flag, avg(f8) FROM agg_t GROUP BY flag;
EXPLAIN (COSTS OFF) SELECT flag, max(price) FROM agg_t GROUP BY flag;
-- a qual the GPU does not take would send every row to the CPU
EXPLAIN (COSTS OFF) SELECT flag, sum(qty) FROM agg_t WHERE substring(note FROM 1 FOR 1) = 'n' GROUP BY flag;
EXPLAIN (COSTS OFF) SELECT arr, count(*) FROM agg_t GROUP BY arr;
EXPLAIN (COSTS OFF) SELECT k % 10, count(*) FROM agg_t GROUP BY k % 10;
EXPLAIN (COSTS OFF)
SELECT flag, status, count(*) FROM agg_t GROUP BY GROUPING SETS ((flag), (status));
EXPLAIN (COSTS OFF)
SELECT s.name, sum(t.qty) FROM agg_t t JOIN agg_small s ON s.k = t.k GROUP BY s.name;
-- a pseudoconstant qual needs the gating Result core puts over scans only
EXPLAIN (COSTS OFF) SELECT sum(qty) FROM agg_t WHERE current_setting('gpuhash.device') = 'host';

-- the switches off: PostgreSQL's own plans
SET gpuhash.gpu_aggregate = off;
EXPLAIN (COSTS OFF)
SELECT flag, status, sum(qty), count(*) FROM agg_t WHERE shipdate <= date '1998-09-02'
GROUP BY flag, status;
SET gpuhash.gpu_aggregate = on;
SET enable_gpuhashjoin = off;
EXPLAIN (COSTS OFF)
SELECT flag, status, sum(qty), count(*) FROM agg_t WHERE shipdate <= date '1998-09-02'
GROUP BY flag, status;
RESET enable_gpuhashjoin;

-- serial: no partially grouped relation, so Finalize Aggregate over a serial GpuPreAgg
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT flag, status, sum(qty), avg(price), count(*) FROM agg_t WHERE shipdate <= date '1998-09-02'
GROUP BY flag, status;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT sum(price * disc), count(*) FROM agg_t WHERE qty < 24;
-- a group per row: PostgreSQL's HashAggregate costs less than handing every row up
SET gpuhash.resident_groups = off;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k, sum(qty) FROM agg_t GROUP BY k HAVING sum(qty) > 10;
RESET gpuhash.resident_groups;
-- ... but resident groups hand up only the survivors of the GPU's HAVING
EXPLAIN (VERBOSE, COSTS OFF)
SELECT k, sum(qty) FROM agg_t GROUP BY k HAVING sum(qty) > 10;
SET enable_hashagg = off;
EXPLAIN (COSTS OFF)
SELECT flag, sum(qty) FROM agg_t GROUP BY flag;
RESET enable_hashagg;
SET gpuhash.gpu_aggregate = off;
EXPLAIN (COSTS OFF)
SELECT flag, status, sum(qty), avg(price), count(*) FROM agg_t WHERE shipdate <= date '1998-09-02'
GROUP BY flag, status;
SET gpuhash.gpu_aggregate = on;
RESET max_parallel_workers_per_gather;

DROP TABLE agg_t, agg_small;

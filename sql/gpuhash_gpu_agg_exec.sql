-- The GPU aggregate's executor (GpuPreAgg, src/agg/agg_exec.c): every
-- query's result with gpuhash.gpu_aggregate off (PostgreSQL's own partial
-- aggregates) and on, compared as text (display scale included); parallel
-- and serial, through the GPU service and in-process, with spills, refused
-- pages, MVCC, rescans and PostgreSQL's errors.
SET gpuhash.device = host;
SET extra_float_digits = 0;
-- the planner's price of the GPU aggregate out of the way: its plans here
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
CREATE TABLE ax (
	k int4, g int4, flag char(1), status char(1),
	qty numeric(15,2), price numeric(15,2), disc numeric(15,2),
	d date, i8 int8, f8 float8, note text);
INSERT INTO ax
SELECT i, i % 37, chr(65 + i % 3), chr(70 + i % 2),
	   (i % 50) + 1, (i % 997) * 1.25, (i % 11) / 100.0,
	   date '1992-01-01' + i % 2500,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE i::int8 * 1000003 END,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE i * 0.25 END,
	   'n' || i % 7
FROM generate_series(1, 40000) i;
-- NULL group columns and arguments
INSERT INTO ax (k, g, flag, status, qty) SELECT i, NULL, NULL, 'F', NULL FROM generate_series(1, 50) i;
VACUUM ANALYZE ax;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;

-- each query off and on: its rows as text, their count and digest
CREATE FUNCTION agg_digest(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	EXECUTE format('SELECT count(*) || '' '' || md5(coalesce(string_agg(t::text, ''|'' ORDER BY t::text), '''')) FROM (%s) t', q) INTO r;
	RETURN r;
END $$;
CREATE FUNCTION agg_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE off_r text; on_r text; plan text := '';
	l text;
BEGIN
	SET LOCAL gpuhash.gpu_aggregate = off;
	off_r := agg_digest(q);
	SET LOCAL gpuhash.gpu_aggregate = on;
	on_r := agg_digest(q);
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%GpuPreAgg%' THEN plan := ' (GpuPreAgg)'; END IF;
	END LOOP;
	RETURN CASE WHEN off_r = on_r THEN 'same: ' || split_part(on_r, ' ', 1) || ' rows'
		   ELSE 'DIFFERENT: off ' || off_r || ', on ' || on_r END || plan;
END $$;

-- the shape of TPC-H Q01: the plan, then the rows off and on
EXPLAIN (COSTS OFF)
SELECT flag, status, sum(qty), sum(price), avg(qty), avg(disc), count(*)
FROM ax WHERE d <= date '1998-09-02' GROUP BY flag, status ORDER BY flag, status;
SET gpuhash.gpu_aggregate = off;
SELECT flag, status, sum(qty), sum(price), avg(qty), avg(disc), count(*)
FROM ax WHERE d <= date '1998-09-02' GROUP BY flag, status ORDER BY flag, status;
SET gpuhash.gpu_aggregate = on;
SELECT flag, status, sum(qty), sum(price), avg(qty), avg(disc), count(*)
FROM ax WHERE d <= date '1998-09-02' GROUP BY flag, status ORDER BY flag, status;

-- plain aggregates, several kinds and types
SET gpuhash.gpu_aggregate = off;
SELECT count(*), count(i8), sum(i8), sum(k), avg(k), min(d), max(d), sum(f8), min(f8), max(i8),
	   sum(qty), avg(price) FROM ax WHERE k > 100;
SET gpuhash.gpu_aggregate = on;
SELECT count(*), count(i8), sum(i8), sum(k), avg(k), min(d), max(d), sum(f8), min(f8), max(i8),
	   sum(qty), avg(price) FROM ax WHERE k > 100;

-- no input row: a plain aggregate gives one row (count 0, sum NULL), grouped none
SELECT count(*), sum(qty), max(d) FROM ax WHERE k < 0;
SELECT g, count(*) FROM ax WHERE k < 0 GROUP BY g;

-- parallel and serial, grouped and plain, each off vs on
SELECT agg_same('SELECT g, count(*), sum(i8), sum(qty), avg(qty), min(k), max(d) FROM ax GROUP BY g');
SELECT agg_same('SELECT flag, status, count(*), sum(price), avg(disc) FROM ax WHERE d < ''1995-01-01'' GROUP BY flag, status');
SELECT agg_same('SELECT count(*), sum(f8), avg(i8), min(qty) FROM ax WHERE qty BETWEEN 10 AND 20');
SELECT agg_same('SELECT g, flag, sum(qty) FROM ax GROUP BY g, flag HAVING count(*) > 300');
SET max_parallel_workers_per_gather = 0;
SELECT agg_same('SELECT g, count(*), sum(i8), sum(qty), avg(qty), min(k), max(d) FROM ax GROUP BY g');
SELECT agg_same('SELECT count(*), sum(f8), avg(i8), min(qty) FROM ax WHERE qty BETWEEN 10 AND 20');
-- in-process (no GPU service)
SET gpuhash.use_service = off;
SELECT agg_same('SELECT g, count(*), sum(i8), sum(qty), avg(qty) FROM ax GROUP BY g');
RESET gpuhash.use_service;
RESET max_parallel_workers_per_gather;

-- under a GPU memory budget (gpuhash.max_gpu_memory) a request's fold
-- (its table, answer and inputs: gh_agg_fold_device_bytes) stays within a
-- quarter of it for each service thread: more requests of fewer pages,
-- the same rows
CREATE FUNCTION agg_requests(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE p jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
	RETURN (jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuPreAgg")')->>'Requests')::int;
END $$;
SET max_parallel_workers_per_gather = 0;
SELECT agg_requests('SELECT g, count(*), sum(qty), avg(price), max(d) FROM ax GROUP BY g') AS requests_unbounded \gset
SET gpuhash.max_gpu_memory = '32MB';
SELECT agg_requests('SELECT g, count(*), sum(qty), avg(price), max(d) FROM ax GROUP BY g') AS requests_in_budget \gset
SELECT :requests_in_budget > :requests_unbounded AS smaller_requests;
SELECT agg_same('SELECT g, count(*), sum(qty), avg(price), max(d) FROM ax GROUP BY g');
RESET gpuhash.max_gpu_memory;
RESET max_parallel_workers_per_gather;

-- spills: more groups than work_mem holds, several partial rows per group
-- (the backend's own sets: resident groups would keep them in the service)
SET gpuhash.resident_groups = off;
SET work_mem = '64kB';
ALTER TABLE ax ADD COLUMN h int4;
UPDATE ax SET h = k % 2000;
VACUUM ANALYZE ax;
SELECT agg_same('SELECT h, count(*), sum(qty), max(d) FROM ax GROUP BY h');
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT h, count(*), sum(qty), max(d) FROM ax GROUP BY h;
RESET max_parallel_workers_per_gather;
SELECT agg_same('SELECT k % 5000 AS m, count(*), sum(qty) FROM ax GROUP BY k % 5000');
SELECT agg_same('SELECT k, count(*), sum(qty), max(d) FROM ax GROUP BY k');
SET max_parallel_workers_per_gather = 0;
SELECT agg_same('SELECT k, count(*), sum(qty), max(d) FROM ax GROUP BY k');
RESET max_parallel_workers_per_gather;
RESET work_mem;
RESET gpuhash.resident_groups;

-- MVCC: pages not all-visible, rows deleted and updated in this transaction
BEGIN;
DELETE FROM ax WHERE k % 10 = 3;
UPDATE ax SET qty = qty + 1, g = g + 1 WHERE k % 10 = 4;
SELECT agg_same('SELECT g, count(*), sum(qty) FROM ax GROUP BY g');
SELECT agg_same('SELECT count(*), sum(qty), sum(i8) FROM ax');
ROLLBACK;
-- aborted rows
BEGIN;
INSERT INTO ax (k, g, qty) SELECT i, 1, 1 FROM generate_series(1, 3000) i;
ROLLBACK;
SELECT agg_same('SELECT g, count(*), sum(qty) FROM ax GROUP BY g');
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*), sum(qty) FROM ax;
RESET max_parallel_workers_per_gather;

-- refused pages: a compressed value in an argument column goes the CPU's way
CREATE TABLE ax_toast (k int4, g int4, n numeric);
INSERT INTO ax_toast SELECT i, i % 5, i FROM generate_series(1, 2000) i;
INSERT INTO ax_toast SELECT 0, 1, ('1' || repeat('0', 4000))::numeric;
INSERT INTO ax_toast SELECT 0, 2, -('1' || repeat('0', 4000))::numeric;
VACUUM ANALYZE ax_toast;
SELECT agg_same('SELECT g, count(*), count(n), sum(n) = 0 AS zero, max(k) FROM ax_toast GROUP BY g');
SELECT agg_same('SELECT count(*), sum(n) > 0 AS pos FROM ax_toast WHERE g <> 2');
-- the same where the column has a typmod, so the GPU takes the sum: a
-- value past its exact accumulator (or compressed) sends its request's
-- pages to the CPU, which hands out one partial row per tuple
CREATE TABLE ax_toast2 (k int4, g int4, n numeric(1000, 0), pad text);
ALTER TABLE ax_toast2 ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO ax_toast2 SELECT i, i % 5, i, 'p' FROM generate_series(1, 2000) i;
INSERT INTO ax_toast2 SELECT 0, 1, ('1' || repeat('0', 900))::numeric, repeat('x', 3000);
INSERT INTO ax_toast2 SELECT 0, 2, -('1' || repeat('0', 900))::numeric, repeat('x', 3000);
VACUUM ANALYZE ax_toast2;
SELECT agg_same('SELECT g, count(*), count(n), sum(n) = 0 AS zero, max(k) FROM ax_toast2 GROUP BY g');
SET max_parallel_workers_per_gather = 0;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT g, count(*), sum(n) FROM ax_toast2 GROUP BY g;
RESET max_parallel_workers_per_gather;

-- rescans: the aggregate inside a correlated subquery
SELECT agg_same('SELECT x, (SELECT sum(qty) FROM ax WHERE g = x) FROM generate_series(1, 4) x');
SELECT agg_same('SELECT x, s.c FROM generate_series(0, 2) x, LATERAL (SELECT count(*) AS c FROM ax WHERE k % 3 = x) s');

-- float overflow: PostgreSQL's error, off and on
CREATE TABLE ax_f (f float8);
INSERT INTO ax_f VALUES (1e308), (1e308), (1);
SET gpuhash.gpu_aggregate = off;
SELECT sum(f) FROM ax_f;
SET gpuhash.gpu_aggregate = on;
SELECT sum(f) FROM ax_f;

DROP TABLE ax, ax_toast, ax_toast2, ax_f;
DROP FUNCTION agg_same(text), agg_digest(text), agg_requests(text);

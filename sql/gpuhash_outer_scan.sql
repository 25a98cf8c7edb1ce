-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- The outer Seq Scan absorbed into the join (heap_scan.c): the node reads
-- heap pages itself, with page-mode visibility.  What a page-level scan can
-- get wrong, each query with the GPU join off and forced on: rows updated
-- and deleted earlier and by a concurrent transaction (dblink), HOT chains,
-- aborted inserts, TOASTed and dropped columns, columns added with a default
-- after the rows were written (missing attributes, as keys too), a cursor
-- scrolling through the join and one whose snapshot predates an update,
-- scan quals reading a parameter across rescans, parallel scans.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
SET enable_nestloop = off;

-- does q's GPU join read its outer table itself?
CREATE FUNCTION gh_absorbed(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO p;
  RETURN coalesce(jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")')->>'Outer Scan',
                  jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")')->>'Parallel Outer Scan',
                  'not absorbed');
END;
$$;

-- fillfactor leaves room on each page for HOT updates
CREATE TABLE os_t (id int4, k int4, gone text, pad text, big text) WITH (fillfactor = 60);
ALTER TABLE os_t ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO os_t SELECT g, g % 500, 'gone' || g, repeat('p', g % 40),
  CASE WHEN g % 97 = 0 THEN (SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 150) i) END
FROM generate_series(1, 30000) g;
CREATE TABLE os_i (k int4, w text);
INSERT INTO os_i SELECT g, 'w' || g FROM generate_series(0, 299) g;
INSERT INTO os_i SELECT g, 'dup' || g FROM generate_series(0, 49) g;
ANALYZE os_t;
ANALYZE os_i;
SELECT gh_absorbed('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_explain('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k WHERE t.id % 3 = 0');

-- plain, then each join type, with scan quals
SELECT * FROM gh_check('SELECT t.id, t.pad, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k WHERE t.id % 3 = 0');
SELECT * FROM gh_check('SELECT t.id, i.w FROM os_t t LEFT JOIN os_i i ON t.k = i.k WHERE t.id % 5 = 1');
SELECT * FROM gh_check('SELECT t.id, i.w FROM os_t t FULL JOIN os_i i ON t.k = i.k + 400 WHERE coalesce(t.id, 0) % 5 = 1 OR t.id IS NULL');
SELECT * FROM gh_check('SELECT t.id FROM os_t t WHERE EXISTS (SELECT 1 FROM os_i i WHERE i.k = t.k)');
SELECT * FROM gh_check('SELECT t.id FROM os_t t WHERE NOT EXISTS (SELECT 1 FROM os_i i WHERE i.k = t.k) AND t.id < 20000');
SELECT * FROM gh_check('SELECT count(*), sum(t.id) FROM os_t t JOIN os_i i ON t.k = i.k');
-- TOASTed values of matched rows, read from their pages
SELECT * FROM gh_check('SELECT t.id, md5(t.big), i.w FROM os_t t JOIN os_i i ON t.k = i.k WHERE t.big IS NOT NULL');

-- earlier updates: HOT (non-key column) and not, deletes, aborted inserts
UPDATE os_t SET pad = 'hot' || id WHERE id % 10 = 0;
UPDATE os_t SET pad = 'hot2' || id WHERE id % 20 = 0;
UPDATE os_t SET k = k + 1000 WHERE id % 11 = 0;
DELETE FROM os_t WHERE id % 7 = 0;
BEGIN;
INSERT INTO os_t SELECT g, g % 500, 'x', 'aborted', NULL FROM generate_series(100001, 105000) g;
ROLLBACK;
SELECT * FROM gh_check('SELECT t.id, t.pad, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.id, t.pad FROM os_t t LEFT JOIN os_i i ON t.k = i.k WHERE i.k IS NULL');

-- a dropped column, and columns added with a default after the rows: the
-- rows have no value stored for them (missing attributes), keys included
ALTER TABLE os_t DROP COLUMN gone;
ALTER TABLE os_t ADD COLUMN extra int4 DEFAULT 42;
ALTER TABLE os_t ADD COLUMN k2 int4 DEFAULT 7;
INSERT INTO os_t SELECT g, g % 500, 'new', NULL, g % 3, g % 13 FROM generate_series(200001, 203000) g;
ANALYZE os_t;
SELECT * FROM gh_check('SELECT t.id, t.extra, t.pad, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.id, t.extra, i.w FROM os_t t JOIN os_i i ON t.k2 = i.k');
SELECT * FROM gh_check('SELECT t.extra, count(*) FROM os_t t JOIN os_i i ON t.extra = i.k GROUP BY t.extra');

-- a key after fixed-width columns only is read at its offset in tuples
-- without NULLs (heap_scan.c's fast key): rows with NULLs, rows written
-- before a fixed-width column was dropped (its bytes still there) and after
-- (stored as NULL), and a key column added with a default after the rows
-- (missing in the older ones); as the outer side and as the absorbed inner one
CREATE TABLE fk_t (a int4, d int8, k int4, n int2);
INSERT INTO fk_t SELECT g, g * 3, g % 400, CASE WHEN g % 13 = 0 THEN NULL ELSE g % 7 END
FROM generate_series(1, 6000) g;
ALTER TABLE fk_t DROP COLUMN d;
INSERT INTO fk_t (a, k, n) SELECT g, g % 400, g % 5 FROM generate_series(6001, 9000) g;
INSERT INTO fk_t (a, k, n) SELECT g, NULL, 1 FROM generate_series(9001, 9100) g;
ALTER TABLE fk_t ADD COLUMN k3 int8 DEFAULT 11;
CREATE TABLE fk_u (a int4, k4 int8);
INSERT INTO fk_u SELECT g, g % 300 FROM generate_series(1, 3000) g;
ALTER TABLE fk_u ADD COLUMN k5 int4 DEFAULT 3;
INSERT INTO fk_u SELECT g, g % 300, g % 20 FROM generate_series(3001, 4000) g;
INSERT INTO fk_t (a, k, n, k3) SELECT g, g % 400, 2, g % 40 FROM generate_series(9101, 9500) g;
ANALYZE fk_t;
ANALYZE fk_u;
SELECT gh_absorbed('SELECT t.a, i.w FROM fk_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.a, t.n, i.w FROM fk_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.a, u.a FROM fk_t t JOIN fk_u u ON t.k3 = u.k4');
SELECT * FROM gh_check('SELECT t.a, u.a FROM fk_t t JOIN fk_u u ON t.k = u.k5');
SELECT * FROM gh_check('SELECT i.k, count(*) FROM os_i i JOIN fk_t t ON t.k = i.k GROUP BY i.k');

-- a concurrent transaction's uncommitted changes are invisible; committed
-- ones become visible to a new snapshot, not to an older one
SELECT dblink_connect('os_other', 'dbname=' || current_database() || ' port=' || current_setting('port')
  || ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1));
SELECT dblink_exec('os_other', 'BEGIN');
SELECT dblink_exec('os_other', 'UPDATE os_t SET k = k + 1 WHERE id % 4 = 0');
SELECT dblink_exec('os_other', 'DELETE FROM os_t WHERE id % 9 = 0');
SELECT dblink_exec('os_other', 'INSERT INTO os_t (id, k) SELECT g, g % 500 FROM generate_series(300001, 302000) g');
SELECT * FROM gh_check('SELECT t.id, t.k, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM gh_check('SELECT t.id, t.k, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT dblink_exec('os_other', 'COMMIT');
-- the same snapshot: still without them
SELECT * FROM gh_check('SELECT t.id, t.k, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
COMMIT;
SELECT * FROM gh_check('SELECT t.id, t.k, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT dblink_disconnect('os_other');

-- a cursor scrolling through the join, forward and back: the rows it moves
-- over, against the join's count with the GPU join off
CREATE FUNCTION gh_scroll(OUT fwd1 bigint, OUT back1 bigint, OUT fwd_all bigint, OUT back_all bigint,
                          OUT native bigint)
LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'os_c';
BEGIN
  PERFORM gh_force_on();
  OPEN c SCROLL FOR SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k;
  MOVE FORWARD 100 IN c;
  GET DIAGNOSTICS fwd1 = ROW_COUNT;
  MOVE BACKWARD 40 IN c;
  GET DIAGNOSTICS back1 = ROW_COUNT;
  MOVE FORWARD ALL IN c;
  GET DIAGNOSTICS fwd_all = ROW_COUNT;
  MOVE BACKWARD ALL IN c;
  GET DIAGNOSTICS back_all = ROW_COUNT;
  CLOSE c;
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  SELECT count(*) INTO native FROM os_t t JOIN os_i i ON t.k = i.k;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
END;
$$;
SELECT fwd1, back1, fwd_all = native - 60 AS fwd_all_ok, back_all = native AS back_all_ok FROM gh_scroll();
DROP FUNCTION gh_scroll();
-- a cursor's snapshot predates an update of its own transaction
BEGIN;
SELECT gh_force_on();
DECLARE os_d CURSOR FOR SELECT count(*), sum(t.id) FROM os_t t JOIN os_i i ON t.k = i.k;
UPDATE os_t SET k = k + 5000 WHERE id % 2 = 0;
FETCH ALL FROM os_d;
SELECT count(*), sum(t.id) FROM os_t t JOIN os_i i ON t.k = i.k;
ROLLBACK;
SET enable_gpuhashjoin = off;
SELECT count(*), sum(t.id) FROM os_t t JOIN os_i i ON t.k = i.k;
RESET enable_gpuhashjoin;

-- hash batches over work_mem: rows of later batches are spilled from their
-- pages, with the kept columns in the target list's order, not the table's
CREATE TABLE os_sp_o (a int4, b text, c int4, k int4);
INSERT INTO os_sp_o SELECT g, 'b' || g, g * 2, g % 5000 FROM generate_series(1, 60000) g;
CREATE TABLE os_sp_i (k int4, w text);
INSERT INTO os_sp_i SELECT g, repeat('w', 50) || g FROM generate_series(1, 5000) g;
ANALYZE os_sp_o;
ANALYZE os_sp_i;
SET work_mem = '64kB';
SELECT gh_absorbed('SELECT o.c, o.b, o.a, i.w FROM os_sp_o o JOIN os_sp_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.c, o.b, o.a, i.w FROM os_sp_o o JOIN os_sp_i i ON o.k = i.k');
SELECT l FROM gh_explain('SELECT o.c, o.b, o.a, i.w FROM os_sp_o o JOIN os_sp_i i ON o.k = i.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Hash Batches';
RESET work_mem;
DROP TABLE os_sp_o, os_sp_i;

-- a scan qual reading the outer query's parameter: each rescan starts over
SELECT * FROM gh_check('SELECT p.d, (SELECT count(*) FROM os_t t JOIN os_i i ON t.k = i.k WHERE t.id % 5 = p.d)
                        FROM (VALUES (0), (1), (3)) p(d)');
-- an empty outer table
CREATE TABLE os_empty (id int4, k int4);
ANALYZE os_empty;
SELECT * FROM gh_check('SELECT e.id, i.w FROM os_empty e JOIN os_i i ON e.k = i.k');
SELECT * FROM gh_check('SELECT e.id, i.w FROM os_empty e RIGHT JOIN os_i i ON e.k = i.k');
-- serializable: the scan takes its predicate locks as a Seq Scan does
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM gh_check('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
COMMIT;

-- parallel plans (gpuhash_parallel_joins.sql has the Parallel Outer Scans of
-- every join type, where each participant takes blocks from the shared
-- allocator); where a join can run in parallel the planner offers the GPU
-- join only as a partial path, never a serial one over Gathers
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SELECT * FROM gh_explain('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k WHERE t.id % 3 = 0');
-- a join clause that only the leader may run: the join is serial, over
-- Gathers of its two scans, and so keeps its children
CREATE FUNCTION os_leader_only(int4) RETURNS int4 LANGUAGE plpgsql IMMUTABLE PARALLEL RESTRICTED
  AS 'BEGIN RETURN $1; END';
SELECT * FROM gh_explain('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k AND os_leader_only(t.id) <> i.k + 1 WHERE t.id % 3 = 0');
SELECT * FROM gh_check('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k AND os_leader_only(t.id) <> i.k + 1 WHERE t.id % 3 = 0');
DROP FUNCTION os_leader_only(int4);
SELECT * FROM gh_check('SELECT t.id, t.pad, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.id, i.w FROM os_t t FULL JOIN os_i i ON t.k = i.k + 400');
SELECT * FROM gh_check('SELECT t.id FROM os_t t WHERE NOT EXISTS (SELECT 1 FROM os_i i WHERE i.k = t.k) AND t.id % 3 = 0');
SELECT * FROM gh_check('SELECT p.d, (SELECT count(*) FROM os_t t JOIN os_i i ON t.k = i.k WHERE t.id % 5 = p.d)
                        FROM (VALUES (0), (1), (3)) p(d)');
-- where a Parallel Index Only Scan of the outer table is cheaper alone, with
-- as many workers, core drops the table's Parallel Seq Scan: the GPU join is
-- still offered the absorbed scan (costs set so that it wins: index pages
-- free to read, a row's CPU dear)
CREATE TABLE os_ix (k int4, id int4);
INSERT INTO os_ix SELECT g % 300, g FROM generate_series(1, 20000) g;
CREATE INDEX os_ix_k ON os_ix (k);
VACUUM ANALYZE os_ix;
SET max_parallel_workers_per_gather = 2;
SET min_parallel_index_scan_size = 0;
SET random_page_cost = 0;
SET cpu_index_tuple_cost = 0;
SET cpu_tuple_cost = 1;
SELECT * FROM gh_explain('SELECT x.k FROM os_ix x JOIN os_i i ON x.k = i.k');
SELECT * FROM gh_check('SELECT x.k, x.id, i.w FROM os_ix x JOIN os_i i ON x.k = i.k');
RESET min_parallel_index_scan_size;
RESET random_page_cost;
RESET cpu_index_tuple_cost;
RESET cpu_tuple_cost;
DROP TABLE os_ix;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- Where the index-only scan is cheaper at PostgreSQL's page costs, the join
-- still reads the table itself: an absorbed scan costs no more than the
-- table's cheapest scan (costs.c).  With gpuhash.absorbed_page_cost its
-- pages cost that, not seq_page_cost.  Same rows every way.  That bound is
-- the tuple path's: by pages, an absorbed scan is priced by its pages and
-- tuples instead (page_price.c), here above the index-only scan, so the
-- page path is priced as the tuple path for these.
SET gpuhash.page_cpu_cost = -1;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE os_ap (k int4, id int4, pad text);
INSERT INTO os_ap SELECT g % 3000, g, repeat('x', 200) FROM generate_series(1, 100000) g;
CREATE INDEX os_ap_k ON os_ap (k);
VACUUM ANALYZE os_ap;
SELECT gh_absorbed('SELECT a.k, i.w FROM os_ap a JOIN os_i i ON a.k = i.k');
-- but not as cheap as an index scan that reads only the rows its
-- conditions select: that one stays the join's child
SELECT * FROM gh_explain('SELECT a.k, i.w FROM os_ap a JOIN os_i i ON a.k = i.k WHERE a.k < 3');
SELECT * FROM gh_check('SELECT a.k, a.id, i.w FROM os_ap a JOIN os_i i ON a.k = i.k WHERE a.k < 3');
SET gpuhash.absorbed_page_cost = 0;
SELECT gh_absorbed('SELECT a.k, i.w FROM os_ap a JOIN os_i i ON a.k = i.k');
SELECT * FROM gh_check('SELECT a.k, a.id, i.w FROM os_ap a JOIN os_i i ON a.k = i.k');
RESET gpuhash.absorbed_page_cost;
SELECT * FROM gh_check('SELECT a.k, a.id, i.w FROM os_ap a JOIN os_i i ON a.k = i.k');
RESET max_parallel_workers_per_gather;
RESET gpuhash.page_cpu_cost;
DROP TABLE os_ap;

-- a probe batch pins pages only for rows it keeps: more pages than a batch
-- may pin (1024 at most) whose rows are all dropped before the batch (NULL
-- keys; keys the key filter rules out) come before the matching rows; serial
SET max_parallel_workers_per_gather = 0;
CREATE TABLE os_nk (id int4, k int4, pad text);
INSERT INTO os_nk SELECT g, NULL, 'pad' || g FROM generate_series(1, 250000) g;
INSERT INTO os_nk SELECT g, g % 300, 'hit' || g FROM generate_series(250001, 252000) g;
CREATE TABLE os_miss (id int4, k int4, pad text);
INSERT INTO os_miss SELECT g, 1000 + g, 'pad' || g FROM generate_series(1, 250000) g;
INSERT INTO os_miss SELECT g, g % 300, 'hit' || g FROM generate_series(250001, 252000) g;
ANALYZE os_nk;
ANALYZE os_miss;
SELECT pg_relation_size('os_nk') / 8192 > 1024 AS nk_pages_over_pins,
       pg_relation_size('os_miss') / 8192 > 1024 AS miss_pages_over_pins;
SELECT * FROM gh_check('SELECT n.id, n.pad, i.w FROM os_nk n JOIN os_i i ON n.k = i.k');
SELECT * FROM gh_check('SELECT m.id, m.pad, i.w FROM os_miss m JOIN os_i i ON m.k = i.k');
-- the tuple path's key filter (the page path probes every row it reads: page_scan.c)
SET gpuhash.page_scan = off;
SELECT l FROM gh_explain('SELECT m.id, m.pad, i.w FROM os_miss m JOIN os_i i ON m.k = i.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Outer (Scan|Rows Filtered)';
-- with an in-place filter the key filter goes first: the rows it rules out
-- never reach the filter.  The matching rows come first, so the row read
-- before the build (which the filter alone decides) is one of them; the
-- misses fail both, and the filter sees only the few the key filter lets by
CREATE TABLE os_kf (id int4, k int4);
INSERT INTO os_kf SELECT g, g % 300 FROM generate_series(1, 2000) g;
INSERT INTO os_kf SELECT g, 1000 + g FROM generate_series(2001, 100000) g;
ANALYZE os_kf;
SELECT * FROM gh_check('SELECT f.id, i.w FROM os_kf f JOIN os_i i ON f.k = i.k WHERE f.id >= f.k');
SELECT l FROM gh_explain('SELECT f.id, i.w FROM os_kf f JOIN os_i i ON f.k = i.k WHERE f.id >= f.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Outer (Scan|Filter|Rows Filtered)|Removed by Outer';
-- a left join keeps every row: no key filter, the filter sees them all
SELECT * FROM gh_check('SELECT f.id, i.w FROM os_kf f LEFT JOIN os_i i ON f.k = i.k WHERE f.id >= f.k');
SELECT l FROM gh_explain('SELECT f.id, i.w FROM os_kf f LEFT JOIN os_i i ON f.k = i.k WHERE f.id >= f.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Outer (Scan|Filter|Rows Filtered)|Removed by Outer';
DROP TABLE os_kf;
RESET gpuhash.page_scan;
RESET max_parallel_workers_per_gather;
DROP TABLE os_nk, os_miss;

-- a parallel absorbed scan of a table that fits in effective_cache_size is
-- charged its share of the pages in each participant, where cost_seqscan
-- charges them all (gpuhash.absorbed_page_cost = 1 does so too): the same
-- plan costs relpages x (1 - 1/2.4) less with 2 workers and the leader.  A
-- table larger than the cache keeps the full charge.
CREATE FUNCTION os_cost(q text) RETURNS float8 LANGUAGE sql AS $$
  SELECT (gh_top(q) ->> 'Total Cost')::float8
$$;
CREATE TABLE os_pc AS SELECT g AS id, g % 7000 AS k, repeat('x', 40) AS pad
FROM generate_series(1, 21000) g;
CREATE TABLE os_pci AS SELECT g AS k, g AS w FROM generate_series(1, 7000) g;
ANALYZE os_pc;
ANALYZE os_pci;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
-- the outer scan's share alone first: the inner one's comes below
SET gpuhash.shared_inner_pages = off;
CREATE TEMP TABLE os_costs AS
SELECT (SELECT os_cost('SELECT count(*) FROM os_pc t JOIN os_pci i ON t.k = i.k')) AS shared,
       (SELECT set_config('gpuhash.absorbed_page_cost', '1', false) IS NOT NULL) AS s1,
       (SELECT os_cost('SELECT count(*) FROM os_pc t JOIN os_pci i ON t.k = i.k')) AS full_charge,
       (SELECT set_config('gpuhash.absorbed_page_cost', '-1', false) IS NOT NULL) AS s2,
       (SELECT set_config('effective_cache_size', '8kB', false) IS NOT NULL) AS s3,
       (SELECT os_cost('SELECT count(*) FROM os_pc t JOIN os_pci i ON t.k = i.k')) AS uncached;
SELECT abs(full_charge - shared - relpages * (1 - 1 / 2.4)) < 0.02 AS share_charged,
       uncached = full_charge AS uncached_full,
       gh_absorbed('SELECT count(*) FROM os_pc t JOIN os_pci i ON t.k = i.k') AS absorbed
FROM os_costs, pg_class WHERE relname = 'os_pc';
RESET effective_cache_size;
-- gpuhash.shared_inner_pages charges the inner scan that all participants
-- read its share as well: both tables' relpages x (1 - 1/2.4) less
SET gpuhash.shared_inner_pages = on;
SELECT abs(full_charge - os_cost('SELECT count(*) FROM os_pc t JOIN os_pci i ON t.k = i.k')
           - pages * (1 - 1 / 2.4)) < 0.02 AS both_shared,
       jsonb_path_query_first(gh_top('SELECT count(*) FROM os_pc t JOIN os_pci i ON t.k = i.k')::jsonb,
                              '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")') ->> 'Parallel Inner Scan' AS inner_scan
FROM os_costs,
     (SELECT sum(relpages) AS pages FROM pg_class WHERE relname IN ('os_pc', 'os_pci')) p;
RESET gpuhash.shared_inner_pages;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_nestloop;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
DROP TABLE os_costs, os_pc, os_pci;
DROP FUNCTION os_cost(text);

-- switched off: the join keeps a Seq Scan child
SET gpuhash.absorb_outer_scan = off;
SELECT gh_absorbed('SELECT t.id, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
SELECT * FROM gh_check('SELECT t.id, t.pad, i.w FROM os_t t JOIN os_i i ON t.k = i.k');
RESET gpuhash.absorb_outer_scan;
DROP TABLE os_t, os_i, os_empty;
DROP FUNCTION gh_absorbed(text);

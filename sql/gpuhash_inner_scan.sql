-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- The inner Seq Scan absorbed into the join's build (heap_scan.c): the node
-- reads the inner table's pages itself, with page-mode visibility, and keeps
-- the key and kept columns of each visible row.  What a page-level scan can
-- get wrong, each query with the GPU join off and forced on: rows updated
-- and deleted earlier and by a concurrent transaction (dblink), HOT chains,
-- aborted inserts, TOASTed and dropped columns, columns added with a default
-- after the rows were written (missing attributes, as keys too), a cursor
-- whose snapshot predates an update, hash batches over work_mem, scan quals
-- reading a parameter across rescans (the table is rebuilt), parallel scans
-- where every participant reads a share.  The probe side is bigger, so that
-- the planner builds on the table under test.
--
SET client_min_messages = warning;

-- The shapes below were chosen for joins costed without the charge for
-- inner rows whose columns are kept (gpuhash.kept_row_cost, tested in
-- gpuhash_explain): it moves several of them to other build sides.
SET gpuhash.kept_row_cost = 0;
CREATE EXTENSION IF NOT EXISTS dblink;
SET enable_nestloop = off;

-- does q's GPU join read its inner table itself?
CREATE FUNCTION gh_inner_absorbed(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  n jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO n;
  n := jsonb_path_query_first(n, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  RETURN coalesce(n->>'Inner Scan', 'parallel: ' || (n->>'Parallel Inner Scan'), 'not absorbed');
END;
$$;

-- fillfactor leaves room on each page for HOT updates
CREATE TABLE is_t (id int4, k int4, gone text, pad text, big text) WITH (fillfactor = 60);
ALTER TABLE is_t ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO is_t SELECT g, g % 5000, 'gone' || g, repeat('p', g % 40),
  CASE WHEN g % 97 = 0 THEN (SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 150) i) END
FROM generate_series(1, 20000) g;
-- the probe side: every key of is_t, some several times, some missing
CREATE TABLE is_p (pk int4, n int4);
INSERT INTO is_p SELECT g % 6000, g FROM generate_series(1, 120000) g;
ANALYZE is_t;
ANALYZE is_p;
SELECT gh_inner_absorbed('SELECT p.n, t.id FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT * FROM gh_explain('SELECT p.n, t.id FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.id % 3 = 0');

-- plain, then each join type, with scan quals
SELECT * FROM gh_check('SELECT p.n, t.id, t.pad FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT * FROM gh_check('SELECT p.n, t.id FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.id % 3 = 0');
SELECT * FROM gh_check('SELECT p.n, t.id FROM is_p p LEFT JOIN is_t t ON p.pk = t.k AND t.id % 5 = 1');
SELECT * FROM gh_check('SELECT p.n, t.id FROM is_p p RIGHT JOIN is_t t ON p.pk = t.k + 4000 WHERE t.id % 4 = 1');
SELECT * FROM gh_check('SELECT p.n, t.id FROM is_p p FULL JOIN (SELECT * FROM is_t WHERE id % 2 = 0) t ON p.pk = t.k + 3000');
SELECT * FROM gh_check('SELECT p.n FROM is_p p WHERE EXISTS (SELECT 1 FROM is_t t WHERE t.k = p.pk AND t.id % 7 = 0)');
SELECT * FROM gh_check('SELECT p.n FROM is_p p WHERE NOT EXISTS (SELECT 1 FROM is_t t WHERE t.k = p.pk AND t.id % 7 = 0)');
SELECT * FROM gh_check('SELECT count(*), sum(t.id) FROM is_p p JOIN is_t t ON p.pk = t.k');
-- TOASTed values of kept inner rows
SELECT * FROM gh_check('SELECT p.n, md5(t.big) FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.big IS NOT NULL');

-- earlier updates: HOT (non-key column) and not, deletes, aborted inserts
UPDATE is_t SET pad = 'hot' || id WHERE id % 10 = 0;
UPDATE is_t SET pad = 'hot2' || id WHERE id % 20 = 0;
UPDATE is_t SET k = k + 1000 WHERE id % 11 = 0;
DELETE FROM is_t WHERE id % 13 = 0;
BEGIN;
INSERT INTO is_t SELECT g, g % 5000, 'x', 'aborted', NULL FROM generate_series(100001, 105000) g;
ROLLBACK;
SELECT * FROM gh_check('SELECT p.n, t.id, t.pad FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT * FROM gh_check('SELECT t.id, t.pad FROM is_p p RIGHT JOIN is_t t ON p.pk * 2 = t.k WHERE p.pk IS NULL');

-- a dropped column, and columns added with a default after the rows: the
-- rows have no value stored for them (missing attributes), keys included
ALTER TABLE is_t DROP COLUMN gone;
ALTER TABLE is_t ADD COLUMN extra int4 DEFAULT 42;
ALTER TABLE is_t ADD COLUMN k2 int4 DEFAULT 7;
INSERT INTO is_t SELECT g, g % 5000, 'new', NULL, g % 3, g % 13 FROM generate_series(200001, 203000) g;
ANALYZE is_t;
SELECT * FROM gh_check('SELECT p.n, t.id, t.extra, t.pad FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT * FROM gh_check('SELECT p.n, t.id, t.extra FROM is_p p JOIN is_t t ON p.pk = t.k2');
SELECT * FROM gh_check('SELECT t.extra, count(*) FROM is_p p JOIN is_t t ON p.pk = t.extra GROUP BY t.extra');

-- a concurrent transaction's uncommitted changes are invisible; committed
-- ones become visible to a new snapshot, not to an older one
SELECT dblink_connect('is_other', 'dbname=' || current_database() || ' port=' || current_setting('port')
  || ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1));
SELECT dblink_exec('is_other', 'BEGIN');
SELECT dblink_exec('is_other', 'UPDATE is_t SET k = k + 1 WHERE id % 4 = 0');
SELECT dblink_exec('is_other', 'DELETE FROM is_t WHERE id % 9 = 0');
SELECT dblink_exec('is_other', 'INSERT INTO is_t (id, k) SELECT g, g % 5000 FROM generate_series(300001, 302000) g');
SELECT * FROM gh_check('SELECT p.n, t.id, t.k FROM is_p p JOIN is_t t ON p.pk = t.k');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM gh_check('SELECT p.n, t.id, t.k FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT dblink_exec('is_other', 'COMMIT');
-- the same snapshot: still without them
SELECT * FROM gh_check('SELECT p.n, t.id, t.k FROM is_p p JOIN is_t t ON p.pk = t.k');
COMMIT;
SELECT * FROM gh_check('SELECT p.n, t.id, t.k FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT dblink_disconnect('is_other');

-- a cursor's snapshot predates an update of its own transaction
BEGIN;
SELECT gh_force_on();
DECLARE is_d CURSOR FOR SELECT count(*), sum(t.id) FROM is_p p JOIN is_t t ON p.pk = t.k;
UPDATE is_t SET k = k + 5000 WHERE id % 2 = 0;
FETCH ALL FROM is_d;
SELECT count(*), sum(t.id) FROM is_p p JOIN is_t t ON p.pk = t.k;
ROLLBACK;
SET enable_gpuhashjoin = off;
SELECT count(*), sum(t.id) FROM is_p p JOIN is_t t ON p.pk = t.k;
RESET enable_gpuhashjoin;

-- hash batches over work_mem: inner rows of later batches are spilled as
-- they are read from their pages, with the kept columns in the target
-- list's order, not the table's
CREATE TABLE is_sp_i (a int4, b text, c int4, k int4);
INSERT INTO is_sp_i SELECT g, 'b' || g, g * 2, g FROM generate_series(1, 30000) g;
CREATE TABLE is_sp_o (k int4);
INSERT INTO is_sp_o SELECT g % 40000 FROM generate_series(1, 90000) g;
ANALYZE is_sp_o;
ANALYZE is_sp_i;
SET work_mem = '64kB';
SELECT gh_inner_absorbed('SELECT i.c, i.b, i.a FROM is_sp_o o JOIN is_sp_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT i.c, i.b, i.a FROM is_sp_o o JOIN is_sp_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.k, i.c, i.b FROM is_sp_o o FULL JOIN is_sp_i i ON o.k = i.k + 20000');
SELECT l FROM gh_explain('SELECT i.c, i.b, i.a FROM is_sp_o o JOIN is_sp_i i ON o.k = i.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Hash Batches';
RESET work_mem;
DROP TABLE is_sp_o, is_sp_i;

-- an inner scan qual reading the outer query's parameter: the table is
-- rebuilt at each rescan that sets it
SELECT * FROM gh_check('SELECT q.d, (SELECT count(*) FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.id % 5 = q.d)
                        FROM (VALUES (0), (1), (1), (3)) q(d)');
SELECT l FROM gh_explain('SELECT q.d, (SELECT count(*) FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.id % 5 = q.d)
                          FROM (VALUES (0), (1), (1), (3)) q(d)', 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Builds|Inner (Scan|Filter)';
-- an empty inner table
CREATE TABLE is_empty (id int4, k int4);
ANALYZE is_empty;
SELECT * FROM gh_check('SELECT p.n, e.id FROM is_p p JOIN is_empty e ON p.pk = e.k');
SELECT * FROM gh_check('SELECT count(*) FROM is_p p LEFT JOIN is_empty e ON p.pk = e.k');
-- serializable: the scan takes its predicate locks as a Seq Scan does
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM gh_check('SELECT p.n, t.id FROM is_p p JOIN is_t t ON p.pk = t.k');
COMMIT;

-- parallel plans: every participant reads a share of the inner table from
-- the shared block allocator (Parallel Inner Scan), or one reads it all
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SELECT * FROM gh_explain('SELECT p.n, t.id FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.id % 3 = 0');
SELECT * FROM gh_check('SELECT p.n, t.id, t.pad FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT * FROM gh_check('SELECT p.n, t.id FROM is_p p FULL JOIN is_t t ON p.pk = t.k + 4000');
SELECT * FROM gh_check('SELECT p.n FROM is_p p WHERE NOT EXISTS (SELECT 1 FROM is_t t WHERE t.k = p.pk AND t.id % 7 = 0)');
SELECT * FROM gh_check('SELECT q.d, (SELECT count(*) FROM is_p p JOIN is_t t ON p.pk = t.k WHERE t.id % 5 = q.d)
                        FROM (VALUES (0), (1), (3)) q(d)');
-- where an index-only scan is the inner table's cheapest partial path, the
-- join reads the table's pages itself all the same (costs.c)
CREATE TABLE is_ix (k int4, pad text);
INSERT INTO is_ix SELECT g % 5000, repeat('x', 300) FROM generate_series(1, 50000) g;
CREATE INDEX is_ix_k ON is_ix (k);
VACUUM ANALYZE is_ix;
SET min_parallel_index_scan_size = 0;
SELECT gh_inner_absorbed('SELECT count(*) FROM is_p p JOIN is_ix x ON p.pk = x.k');
SELECT * FROM gh_check('SELECT count(*), sum(p.n) FROM is_p p JOIN is_ix x ON p.pk = x.k');
-- switched off, no inner side is read by the join (which side is outer is
-- near a tie in cost here, and moves with the sample of is_ix)
SET gpuhash.absorb_inner_scan = off;
SELECT count(*) FILTER (WHERE l ~ 'Inner Scan:') AS inner_scans,
       count(*) FILTER (WHERE l ~ 'Outer Scan:') AS outer_scans,
       count(*) FILTER (WHERE l ~ 'GpuHashJoin') AS gpu_joins
FROM gh_explain('SELECT count(*) FROM is_p p JOIN is_ix x ON p.pk = x.k') l;
RESET gpuhash.absorb_inner_scan;
RESET min_parallel_index_scan_size;
DROP TABLE is_ix;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- switched off: the join keeps a Seq Scan child
SET gpuhash.absorb_inner_scan = off;
SELECT gh_inner_absorbed('SELECT p.n, t.id FROM is_p p JOIN is_t t ON p.pk = t.k');
SELECT * FROM gh_check('SELECT p.n, t.id, t.pad FROM is_p p JOIN is_t t ON p.pk = t.k');
RESET gpuhash.absorb_inner_scan;
DROP TABLE is_t, is_p, is_empty;
DROP FUNCTION gh_inner_absorbed(text);

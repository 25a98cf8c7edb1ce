-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Memory: a GPU join keeps its inner rows within work_mem x
-- hash_mem_multiplier, as PostgreSQL's hash join does.  An inner side that
-- outgrows it is split by key hash into batches, the later ones waiting in
-- temporary files; each batch is built and probed in turn.  Every join type,
-- NULL keys, duplicates, a key too common to split, rescans and fingerprint
-- keys; then an inner side the planner thinks has 125 rows and that has
-- 5 million; then the same in parallel plans, where the participants
-- together keep at most the limit times their number and the join splits
-- into shared batches that each participant joins whole.
--
SET client_min_messages = warning;

-- The shapes below were chosen for joins costed without the charge for
-- inner rows whose columns are kept (gpuhash.kept_row_cost, tested in
-- gpuhash_explain): it moves several of them to other build sides.
SET gpuhash.kept_row_cost = 0;
SET gpuhash.kept_join_row_cost = 0;

-- Hash Batches and Memory Usage (kB) of the GpuHashJoin in EXPLAIN ANALYZE
CREATE FUNCTION gh_mem(q text, OUT hash_batches int, OUT memory_kb bigint)
LANGUAGE plpgsql AS $$
DECLARE
  p json;
  n json;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  n := p->0->'Plan';
  WHILE n->>'Custom Plan Provider' IS DISTINCT FROM 'GpuHashJoin' LOOP
    n := n->'Plans'->0;
  END LOOP;
  hash_batches := (n->>'Hash Batches')::int;
  memory_kb := (n->>'Memory Usage')::bigint;
END;
$$;

CREATE TABLE mb_o (id int4, k int4, t text);
INSERT INTO mb_o SELECT g, g % 3000, 'o' || g FROM generate_series(1, 12000) g;
INSERT INTO mb_o SELECT 12000 + g, NULL, 'onull' || g FROM generate_series(1, 30) g;
-- keys 1000..3999: a third of mb_o's find nothing; some duplicated
CREATE TABLE mb_i (id int4, k int4, pad text);
INSERT INTO mb_i SELECT g, 1000 + g % 3000, repeat('p', 40) || g FROM generate_series(1, 6000) g;
INSERT INTO mb_i SELECT 6000 + g, NULL, 'inull' || g FROM generate_series(1, 25) g;
-- one key on 2000 rows: no split can move them apart
CREATE TABLE mb_skew (id int4, k int4, pad text);
INSERT INTO mb_skew SELECT g, CASE WHEN g <= 2000 THEN 7 ELSE g END, repeat('s', 40)
FROM generate_series(1, 2600) g;
ANALYZE mb_o;
ANALYZE mb_i;
ANALYZE mb_skew;

SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT hash_batches > 1 AS batched, memory_kb <= 64 AS within_limit
FROM gh_mem('SELECT o.id, i.pad FROM mb_o o JOIN mb_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.pad FROM mb_o o JOIN mb_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM mb_o o LEFT JOIN mb_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id, i.pad FROM mb_o o RIGHT JOIN mb_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM mb_o o FULL JOIN mb_i i ON o.k = i.k AND i.id % 5 <> 0');
SELECT * FROM gh_check('SELECT o.id FROM mb_o o WHERE EXISTS (SELECT 1 FROM mb_i i WHERE i.k = o.k AND i.id % 3 = 0)');
SELECT * FROM gh_check('SELECT o.id FROM mb_o o WHERE NOT EXISTS (SELECT 1 FROM mb_i i WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT o.id, i.id FROM mb_o o LEFT JOIN mb_i i ON o.k = i.k WHERE i.id IS NULL OR i.id % 7 = 0');
-- fingerprint keys
SELECT * FROM gh_check('SELECT o.id, i.id FROM mb_o o JOIN mb_i i ON o.k::text = i.k::text');
-- a key too common to split: that batch goes over, as a hash join's would
SELECT * FROM gh_check('SELECT o.id, s.id FROM mb_o o JOIN mb_skew s ON o.k = s.k');
-- inner rows of ~100 kB values made below the join (OFFSET 0 keeps the
-- subquery; not TOASTed): each kept tuple outgrows a quarter of the
-- store's blocks and gets one of its own, and is copied again when the
-- batches double; NULLs among the kept columns
SELECT hash_batches > 1 AS batched
FROM gh_mem('SELECT o.id, i.id, length(i.big), md5(i.big), i.nul FROM mb_o o JOIN (SELECT id, k, repeat(md5(id::text), 3200) || id AS big, CASE WHEN id % 2 = 0 THEN id END AS nul FROM mb_i WHERE id % 100 = 0 OFFSET 0) i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id, length(i.big), md5(i.big), i.nul FROM mb_o o JOIN (SELECT id, k, repeat(md5(id::text), 3200) || id AS big, CASE WHEN id % 2 = 0 THEN id END AS nul FROM mb_i WHERE id % 100 = 0 OFFSET 0) i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id, length(i.big) FROM mb_o o RIGHT JOIN (SELECT id, k, CASE WHEN id % 3 = 0 THEN repeat(md5(id::text), 3200) ELSE ''s'' || id END AS big FROM mb_i WHERE id % 50 = 0 OR k IS NULL OFFSET 0) i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, s.id FROM mb_o o FULL JOIN mb_skew s ON o.k = s.k');
-- rescans of a batched join, with and without a parameter in the inner key
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT d, (SELECT count(*) FROM mb_o o JOIN mb_i i ON o.k = i.k + d) FROM generate_series(0, 2) d');
SELECT * FROM gh_check('SELECT d, (SELECT count(*) FROM mb_o o JOIN mb_i i ON o.k + d = i.k) FROM generate_series(0, 2) d');
RESET enable_nestloop;
-- one outer row per probe batch
SET gpuhash.batch_rows = 7;
SELECT * FROM gh_check('SELECT o.id, i.id FROM mb_o o FULL JOIN mb_i i ON o.k = i.k');
RESET gpuhash.batch_rows;
-- batches that doubled while the inner rows were read (the planner thinks
-- mb_grow has 10 rows), and a handful of outer rows: a batch whose inner
-- file was written before the doubling is read even without outer rows, to
-- move on the rows that now belong to a later batch (fuzzer seed 49: a
-- semi join lost its match)
-- (the semi and anti joins below build their subquery's side, as they did
-- before right semi and anti joins: those are tested after them)
SET gpuhash.right_semi_anti = off;
CREATE TABLE mb_grow (vc varchar(12), n int4) WITH (autovacuum_enabled = off);
INSERT INTO mb_grow SELECT 'k' || g, g FROM generate_series(1, 10) g;
ANALYZE mb_grow;
INSERT INTO mb_grow SELECT ('k' || ((g * 7) % 50000))::varchar(12), g FROM generate_series(11, 50000) g;
CREATE TABLE mb_few (vc varchar(12), id int4);
INSERT INTO mb_few VALUES ('k96', 1), ('k4711', 2), ('none', 3), (NULL, 4);
ANALYZE mb_few;
SELECT hash_batches > 1 AS batched
FROM gh_mem('SELECT f.id FROM mb_few f WHERE EXISTS (SELECT 1 FROM mb_grow g WHERE g.vc = f.vc)');
SELECT * FROM gh_check('SELECT f.id FROM mb_few f WHERE EXISTS (SELECT 1 FROM mb_grow g WHERE g.vc = f.vc)');
SELECT * FROM gh_check('SELECT f.id FROM mb_few f WHERE NOT EXISTS (SELECT 1 FROM mb_grow g WHERE g.vc = f.vc)');
SELECT * FROM gh_check('SELECT f.id, g.n FROM mb_few f LEFT JOIN mb_grow g ON g.vc = f.vc');
SELECT * FROM gh_check('SELECT f.id FROM mb_few f WHERE EXISTS (SELECT 1 FROM mb_grow g WHERE g.n = f.id * 4711)');
DROP TABLE mb_grow;
DROP TABLE mb_few;

-- the planner believes 125 inner rows; there are 5 million
CREATE TABLE mb_big (k int4, pad text) WITH (autovacuum_enabled = off);
INSERT INTO mb_big SELECT g, 'x' || g FROM generate_series(1, 125) g;
ANALYZE mb_big;
INSERT INTO mb_big SELECT g, 'x' || g FROM generate_series(126, 5000000) g;
CREATE TABLE mb_probe (k int4) WITH (autovacuum_enabled = off);
INSERT INTO mb_probe SELECT g * 3 FROM generate_series(1, 200000) g;
INSERT INTO mb_probe VALUES (NULL), (0), (-1), (5000001);
ANALYZE mb_probe;
SET work_mem = '4MB';
SET hash_mem_multiplier = 2;
SELECT hash_batches > 1 AS batched, memory_kb <= 8192 AS within_limit
FROM gh_mem('SELECT count(*) FROM mb_probe p WHERE NOT EXISTS (SELECT 1 FROM mb_big b WHERE b.k = p.k)');
SELECT * FROM gh_check('SELECT count(*) FROM mb_probe p WHERE NOT EXISTS (SELECT 1 FROM mb_big b WHERE b.k = p.k)');
SELECT * FROM gh_check('SELECT count(*), sum(length(b.pad)) FROM mb_probe p JOIN mb_big b ON b.k = p.k');
-- built on the preserved side instead (a right anti join, right_paths.c):
-- its table of mb_probe's rows splits into hash batches as well, each
-- batch's unmatched rows coming out after its probe
RESET gpuhash.right_semi_anti;
SET gpuhash.right_semi_anti = 'only';
SET max_parallel_workers_per_gather = 0;
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SELECT n->>'Join Type' AS jt, hash_batches > 1 AS batched, memory_kb <= 1024 AS within_limit
FROM gh_mem('SELECT count(*) FROM mb_probe p WHERE NOT EXISTS (SELECT 1 FROM mb_big b WHERE b.k = p.k)'),
     gh_node('SELECT count(*) FROM mb_probe p WHERE NOT EXISTS (SELECT 1 FROM mb_big b WHERE b.k = p.k)') n;
SELECT * FROM gh_check('SELECT count(*) FROM mb_probe p WHERE NOT EXISTS (SELECT 1 FROM mb_big b WHERE b.k = p.k)');
SELECT * FROM gh_check('SELECT p.k FROM mb_probe p WHERE EXISTS (SELECT 1 FROM mb_big b WHERE b.k = p.k + 1)');
RESET gpuhash.right_semi_anti;
RESET max_parallel_workers_per_gather;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE mb_big;

-- Parallel-aware joins: the planner thinks the inner side (sp_iv) has one
-- row; it has 40,530 (duplicates, a key on 500 rows, NULL keys).  The participants
-- keep at most 512 kB each, together 2.5 MB (5 participants planned): over
-- that the join splits into shared batches (parallel_split.c).
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SET parallel_leader_participation = on;
CREATE TABLE sp_o (id int4, k int4, t text) WITH (autovacuum_enabled = off);
INSERT INTO sp_o SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE g % 45000 END, 'o' || (g % 45000)
FROM generate_series(1, 60000) g;
CREATE TABLE sp_i (id int4, k int4, t text, pad text, f int4) WITH (autovacuum_enabled = off);
INSERT INTO sp_i SELECT g, g, 'o' || g, 'p' || g, 0 FROM generate_series(1, 100) g;
ANALYZE sp_o;
ANALYZE sp_i;
-- rows of f = 1, which the statistics have never seen
INSERT INTO sp_i SELECT g, (g * 7) % 40000, 'o' || ((g * 7) % 40000), repeat('p', 30) || g, 1
FROM generate_series(101, 40000) g;
INSERT INTO sp_i SELECT 40000 + g, 7, 'o7', 'skew' || g, 1 FROM generate_series(1, 500) g;
INSERT INTO sp_i SELECT 40500 + g, NULL, NULL, 'n' || g, 1 FROM generate_series(1, 30) g;
CREATE VIEW sp_iv AS SELECT id, k, t, pad FROM sp_i WHERE f = 1;

-- parallel-aware, split (and a batch split again by the participant that
-- joined it), and what one participant kept stayed within the
-- participants' limit together
CREATE FUNCTION gh_split(q text, OUT parallel_aware boolean, OUT split boolean,
                         OUT split_again boolean, OUT within_limit boolean)
LANGUAGE plpgsql AS $$
DECLARE
  n jsonb := gh_node(q);
BEGIN
  parallel_aware := (n->>'Parallel Aware')::boolean;
  split := coalesce((n->>'Shared Hash Batches')::int, 0) > 1;
  split_again := (n->>'Hash Batches')::int > 1;
  within_limit := (n->>'Memory Usage')::bigint * 1024 <=
    5 * pg_size_bytes(current_setting('work_mem')) * current_setting('hash_mem_multiplier')::float8;
END;
$$;
SET work_mem = '256kB';
SET hash_mem_multiplier = 2;
SET enable_nestloop = off;
-- pages charged as cost_seqscan charges them, for the plan whose batch splits again
SET gpuhash.absorbed_page_cost = 1;
SELECT * FROM gh_split('SELECT count(*), sum(length(i.pad)) FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id, i.pad FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT count(*) FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o JOIN sp_iv i ON o.k = i.k AND o.id % 3 <> i.id % 3');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o LEFT JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o RIGHT JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k AND i.id % 5 <> 0');
SELECT * FROM gh_check('SELECT o.id FROM sp_o o WHERE EXISTS (SELECT 1 FROM sp_iv i WHERE i.k = o.k AND i.id % 3 = 0)');
SELECT * FROM gh_check('SELECT o.id FROM sp_o o WHERE NOT EXISTS (SELECT 1 FROM sp_iv i WHERE i.k = o.k)');
-- right semi and anti joins built on sp_iv's rows (right_paths.c): split
-- into shared batches too, each batch's joiner emitting its matched (or
-- unmatched) rows.  The rows keep pad: kept rows, not the table (which a
-- GPU holds outside the backend), are what fills work_mem on every device
SET gpuhash.right_semi_anti = 'only';
SELECT n->>'Join Type' AS jt, s.*
FROM gh_node('SELECT i.id, i.pad FROM sp_iv i WHERE EXISTS (SELECT 1 FROM sp_o o WHERE o.k = i.k)') n,
     gh_split('SELECT i.id, i.pad FROM sp_iv i WHERE EXISTS (SELECT 1 FROM sp_o o WHERE o.k = i.k)') s;
SELECT * FROM gh_check('SELECT i.id, i.pad FROM sp_iv i WHERE EXISTS (SELECT 1 FROM sp_o o WHERE o.k = i.k)');
SELECT * FROM gh_check('SELECT i.id FROM sp_iv i WHERE NOT EXISTS (SELECT 1 FROM sp_o o WHERE o.k = i.k)');
SELECT * FROM gh_check('SELECT i.id FROM sp_iv i WHERE EXISTS (SELECT 1 FROM sp_o o WHERE o.k = i.k AND o.id % 3 = i.id % 3)');
RESET gpuhash.right_semi_anti;
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o LEFT JOIN sp_iv i ON o.k = i.k WHERE i.id IS NULL OR i.id % 7 = 0');
-- fingerprint keys
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o JOIN sp_iv i ON o.t = i.t');
-- a batch still over one participant's limit splits again in its own files
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT * FROM gh_split('SELECT count(*), sum(length(i.pad)) FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k');
SET work_mem = '256kB';
SET hash_mem_multiplier = 2;
-- one reader: an inner side without a partial plan
ALTER TABLE sp_i SET (parallel_workers = 0);
SELECT * FROM gh_split('SELECT count(*), sum(length(i.pad)) FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id, i.pad FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id FROM sp_o o WHERE NOT EXISTS (SELECT 1 FROM sp_iv i WHERE i.k = o.k)');
ALTER TABLE sp_i RESET (parallel_workers);
-- rescans (each rebuilds, and may split again), and a LIMIT that stops early
SELECT * FROM gh_check('SELECT f.x, (SELECT count(*) FROM sp_o o JOIN sp_iv i ON o.k = i.k WHERE i.id % 4 = f.x)
                        FROM (VALUES (0), (1), (2)) f(x)');
BEGIN;
SELECT gh_force_on();
SELECT count(*) FROM (SELECT o.id FROM sp_o o JOIN sp_iv i ON o.k = i.k LIMIT 5) x;
SELECT count(*) FROM (SELECT o.id FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k LIMIT 5) x;
COMMIT;
-- rescans of the Gather in a SubPlan, each split again, where the leader may
-- come to the join after a worker (one reader: the first to come reads): it
-- must carry nothing of the last scan's inner rows into the new one (a race:
-- run it often)
ALTER TABLE sp_i SET (parallel_workers = 0);
BEGIN;
SELECT gh_force_on();
DO $$
DECLARE
  q text := 'SELECT string_agg(c::text, '','' ORDER BY x) FROM (SELECT f.x,
               (SELECT count(o.id) + 100000 * count(i.id) + f.x
                FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k) c
             FROM generate_series(0, 3) f(x)) s';
  native text;
  got text;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE q INTO native;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
  FOR i IN 1..8 LOOP
    EXECUTE q INTO got;
    IF got <> native THEN
      RAISE EXCEPTION 'run %: % , native %', i, got, native;
    END IF;
  END LOOP;
END;
$$;
COMMIT;
ALTER TABLE sp_i RESET (parallel_workers);
-- with statistics that know the inner side's size, the parallel-aware join
-- is planned over it all the same, to split as a Parallel Hash batches (it
-- used to be offered only over an inner side that fitted)
ANALYZE sp_i;
SELECT * FROM gh_split('SELECT count(*), sum(length(i.pad)) FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id, i.pad FROM sp_o o JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM sp_o o FULL JOIN sp_iv i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id FROM sp_o o WHERE NOT EXISTS (SELECT 1 FROM sp_iv i WHERE i.k = o.k)');
-- no batch file and no join table is left behind
SELECT count(*) AS temp_files FROM pg_ls_dir('base/pgsql_tmp', true, false) f
WHERE f LIKE '%sharedfileset%';
SELECT gh_tables_become(0);
RESET enable_nestloop;
RESET gpuhash.absorbed_page_cost;
RESET work_mem;
RESET hash_mem_multiplier;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP VIEW sp_iv;
DROP TABLE sp_o;
DROP TABLE sp_i;

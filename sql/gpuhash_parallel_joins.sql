-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Join types in parallel plans, through the GPU service (runs after
-- gpuhash_service.sql).  The outer side is split among the participants,
-- the inner side is built once: matched inner rows of a RIGHT or FULL join
-- must be known across all participants, and the unmatched ones must come
-- out exactly once.  Inner, LEFT, RIGHT, FULL, SEMI and ANTI joins, with
-- duplicates, NULL keys and unmatched rows on both sides, extra join
-- clauses, text keys and an empty inner side.
--
SET client_min_messages = warning;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SET parallel_leader_participation = on;

-- outer: keys 0..6999 (those below 3000 and the odd ones match nothing), 500 NULL keys
CREATE TABLE pt_o (id int4, k int4, k8 int8, t text, x int4);
INSERT INTO pt_o
SELECT g, k, k::int8 * 3000000019, 'p' || k, g % 10
FROM (SELECT g, CASE WHEN g % 100 = 0 THEN NULL ELSE g % 7000 END AS k
      FROM generate_series(1, 50000) g) x;
-- inner: even keys 3000..8998, 2000 of them twice (7000.. match nothing), 50 NULL keys
CREATE TABLE pt_i (id int4, k int4, k8 int8, t text, x int4);
INSERT INTO pt_i
SELECT g, k, k::int8 * 3000000019, 'p' || k, g % 7
FROM (SELECT g, 3000 + ((g * 7) % 3000) * 2 AS k FROM generate_series(1, 5000) g) x;
INSERT INTO pt_i SELECT 5000 + g, NULL, NULL, NULL, g % 7 FROM generate_series(1, 50) g;
CREATE TABLE pt_empty (id int4, k int4, k8 int8, t text, x int4);
ANALYZE pt_o;
ANALYZE pt_i;
ANALYZE pt_empty;

-- each join type runs parallel-aware on one shared table, built once
SELECT 'inner' AS jt, * FROM gh_parallel('SELECT count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k');
SELECT 'left' AS jt, * FROM gh_parallel('SELECT count(i.id) FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k');
SELECT 'right' AS jt, * FROM gh_parallel('SELECT count(o.id) FROM pt_o o RIGHT JOIN pt_i i ON o.k = i.k');
SELECT 'full' AS jt, * FROM gh_parallel('SELECT count(o.id), count(i.id) FROM pt_o o FULL JOIN pt_i i ON o.k = i.k');
SELECT 'semi' AS jt, * FROM gh_parallel('SELECT count(*) FROM pt_o o WHERE EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k)');
SELECT 'anti' AS jt, * FROM gh_parallel('SELECT count(*) FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k)');
SELECT 'text' AS jt, * FROM gh_parallel('SELECT count(*) FROM pt_o o FULL JOIN pt_i i ON o.t = i.t');

-- the shared table's rows keep their columns as tuples in shared memory,
-- NULLs among them: a null bitmap of one byte (up to 8 columns) and of two
CREATE TABLE pt_w AS
SELECT g AS k, CASE WHEN g % 3 = 0 THEN NULL ELSE 'a' || g END AS a,
       CASE WHEN g % 5 = 0 THEN NULL ELSE repeat('b', g % 40) END AS b, g::numeric AS c,
       CASE WHEN g % 7 = 0 THEN NULL ELSE g END AS d, g % 11 AS e, g::int8 * 3 AS f,
       CASE WHEN g % 2 = 0 THEN NULL ELSE 1.5 END AS h, 'w' || g AS j
FROM generate_series(3000, 7999) g;
ANALYZE pt_w;
SELECT 'wide' AS jt, * FROM gh_parallel('SELECT count(w.a) FROM pt_o o JOIN pt_w w ON o.k = w.k');
SELECT * FROM gh_check('SELECT o.id, w.a, w.b, w.c, w.d FROM pt_o o JOIN pt_w w ON o.k = w.k');
SELECT * FROM gh_check('SELECT o.id, w.* FROM pt_o o JOIN pt_w w ON o.k = w.k');
DROP TABLE pt_w;

-- one reader: an inner side without a partial plan is read by one participant
ALTER TABLE pt_i SET (parallel_workers = 0);
SELECT 'inner' AS jt, * FROM gh_parallel('SELECT count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k');
SELECT 'full' AS jt, * FROM gh_parallel('SELECT count(o.id), count(i.id) FROM pt_o o FULL JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o JOIN pt_i i ON o.k = i.k AND o.x > i.x');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o RIGHT JOIN pt_i i ON o.k = i.k AND o.x > i.x');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o FULL JOIN pt_i i ON o.t = i.t');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k AND i.x < o.x)');
ALTER TABLE pt_i RESET (parallel_workers);

-- inner
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o JOIN pt_i i ON o.k8 = i.k8 AND o.x > i.x');
-- LEFT
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k AND o.id % 3 = i.id % 3');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k WHERE i.id IS NULL OR i.x = 1');
SELECT * FROM gh_check('SELECT o.x, count(*), count(i.id), sum(i.x) FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k GROUP BY o.x');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_i i LEFT JOIN pt_o o ON o.k = i.k');
-- RIGHT
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o RIGHT JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o RIGHT JOIN pt_i i ON o.k = i.k AND o.x > i.x');
SELECT * FROM gh_check('SELECT i.id, count(o.id) FROM pt_o o RIGHT JOIN pt_i i ON o.k8 = i.k8 GROUP BY i.id');
-- FULL: every unmatched inner row exactly once
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o FULL JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o FULL JOIN pt_i i ON o.k = i.k AND o.x > i.x');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o FULL JOIN pt_i i ON o.k = i.k WHERE o.id IS NULL OR i.id IS NULL');
SELECT * FROM gh_check('SELECT count(*), count(o.id), count(i.id), count(DISTINCT i.id) FROM pt_o o FULL JOIN pt_i i ON o.k = i.k');
BEGIN;
SELECT gh_force_on();
SELECT count(*) AS unmatched_inner, count(DISTINCT i.id) AS distinct_ids
FROM pt_o o FULL JOIN pt_i i ON o.k = i.k WHERE o.id IS NULL;
COMMIT;
-- the one that emits the unmatched inner rows waits for every participant
-- that may still mark one, including one that read outer rows while the
-- table was built (a race: run it often)
BEGIN;
SELECT gh_force_on();
DO $$
DECLARE
  n bigint;
  native_right bigint;
  native_unmatched bigint;
BEGIN
  -- PostgreSQL's own counts first (25210 and 1690)
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  SELECT count(*) INTO native_right FROM pt_i i LEFT JOIN pt_o o ON o.k = i.k;
  SELECT count(*) INTO native_unmatched FROM pt_o o FULL JOIN pt_i i ON o.k = i.k WHERE o.id IS NULL;
  IF native_right <> 25210 OR native_unmatched <> 1690 THEN
    RAISE EXCEPTION 'native: % and % rows, expected 25210 and 1690', native_right, native_unmatched;
  END IF;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
  FOR i IN 1..25 LOOP
    SELECT count(*) INTO n FROM pt_i i LEFT JOIN pt_o o ON o.k = i.k;
    IF n <> native_right THEN
      RAISE EXCEPTION 'run %: % rows, native %', i, n, native_right;
    END IF;
    SELECT count(*) INTO n FROM pt_o o FULL JOIN pt_i i ON o.k = i.k WHERE o.id IS NULL;
    IF n <> native_unmatched THEN
      RAISE EXCEPTION 'run %: % unmatched inner rows, native %', i, n, native_unmatched;
    END IF;
  END LOOP;
END;
$$;
COMMIT;
-- SEMI and ANTI
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k AND i.x < o.x)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE o.k IN (SELECT i.k FROM pt_i i)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE o.k IN (SELECT i.k / 2 FROM pt_i i)');
SELECT * FROM gh_check('SELECT i.id FROM pt_i i WHERE EXISTS (SELECT 1 FROM pt_o o WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k AND i.x < o.x)');
SELECT * FROM gh_check('SELECT i.id FROM pt_i i WHERE NOT EXISTS (SELECT 1 FROM pt_o o WHERE i.k = o.k)');
-- text keys
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o JOIN pt_i i ON o.t = i.t');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o LEFT JOIN pt_i i ON o.t = i.t AND o.x > i.x');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o FULL JOIN pt_i i ON o.t = i.t');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE EXISTS (SELECT 1 FROM pt_i i WHERE i.t = o.t)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_i i WHERE i.t = o.t)');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o JOIN pt_i i ON o.t = i.t AND o.k8 = i.k8 AND o.x = i.x % 5');
-- an empty inner side, and one emptied by its filter
SELECT * FROM gh_check('SELECT o.id, e.id FROM pt_o o JOIN pt_empty e ON o.k = e.k');
-- an empty inner side costs a nested loop the same: take it out of the race
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT o.id, e.id FROM pt_o o LEFT JOIN pt_empty e ON o.k = e.k');
RESET enable_nestloop;
SELECT * FROM gh_check('SELECT o.id, e.id FROM pt_o o FULL JOIN pt_empty e ON o.k = e.k');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE EXISTS (SELECT 1 FROM pt_empty e WHERE e.k = o.k)');
SELECT * FROM gh_check('SELECT o.id FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_empty e WHERE e.k = o.k)');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o FULL JOIN pt_i i ON o.k = i.k AND i.id < 0');
SELECT * FROM gh_check('SELECT o.id, i.id FROM pt_o o LEFT JOIN (SELECT * FROM pt_i WHERE id < 0) i ON o.k = i.k');

-- participants waiting for the build read their first outer rows meanwhile,
-- but only when some inner row has a key: here none has, and the outer side
-- is never read (its filter would divide by zero), as in Parallel Hash
-- with the keyless side hashed (native may hash pt_o instead and raise the
-- error, so the result is checked against native without the filter).
-- Only that plan shape reads no row of pt_o: built, pt_o's filter runs on
-- every row, and a serial join reads its first outer row before building
-- (as nodeHashjoin.c does where the outer side starts cheaper than the
-- hash), and PostgreSQL's plans of both shapes raise the error too.  So
-- the shape is pinned, not left to the costs: gpuhash.max_inner_memory
-- below pt_o's estimated inner side (a participant's 4167 rows, about 150
-- kB) and above pt_nullk's (2000 rows, about 72 kB) leaves pt_o no GPU
-- join to be built in.
CREATE TABLE pt_nullk (id int4, k int4);
INSERT INTO pt_nullk SELECT g, NULL FROM generate_series(1, 2000) g;
ANALYZE pt_nullk;
SELECT * FROM gh_check('SELECT o.id, n.id FROM pt_o o JOIN pt_nullk n ON o.k = n.k');
BEGIN;
SELECT gh_force_on();
SET LOCAL gpuhash.max_inner_memory = '100kB';
SELECT * FROM gh_explain('SELECT count(*) FROM pt_o o JOIN pt_nullk n ON o.k = n.k WHERE o.id / (o.id - o.id) > 0');
SELECT count(*) FROM pt_o o JOIN pt_nullk n ON o.k = n.k WHERE o.id / (o.id - o.id) > 0;
COMMIT;
DROP TABLE pt_nullk;

-- the shared table is freed once no participant can probe it: after a LIMIT
-- that stops the workers early, and after an error raised mid-probe
BEGIN;
SELECT gh_force_on();
SELECT * FROM gh_explain('SELECT count(*) FROM (SELECT o.id FROM pt_o o JOIN pt_i i ON o.k = i.k LIMIT 5) x');
SELECT count(*) FROM (SELECT o.id FROM pt_o o JOIN pt_i i ON o.k = i.k LIMIT 5) x;
SELECT count(*) FROM (SELECT o.id FROM pt_o o FULL JOIN pt_i i ON o.k = i.k LIMIT 5) x;
COMMIT;
SELECT gh_tables_become(0);
BEGIN;
SELECT gh_force_on();
SELECT * FROM gh_explain('SELECT count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k AND o.id / (o.id - 40000) > -1');
-- (raised by whichever participant probes that row: no CONTEXT line)
\set VERBOSITY terse
SELECT count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k AND o.id / (o.id - 40000) > -1;
\set VERBOSITY default
ROLLBACK;
SELECT gh_tables_become(0);

-- while one participant builds the table, the others read on past their
-- first batches (executor.c) where the join keeps no outer column: small
-- batches and a larger inner side, so that they read many, and a smaller
-- outer side, which they may read to its end before the table is there (on
-- the host twin all of it); how many depends on timing, the rows not
CREATE TABLE pt_big (k int4, id int4);
INSERT INTO pt_big SELECT CASE WHEN g % 1000 = 0 THEN NULL ELSE g * 4 END, g
FROM generate_series(1, 300000) g;
CREATE TABLE pt_small AS SELECT * FROM pt_o WHERE id <= 12000;
ANALYZE pt_big;
ANALYZE pt_small;
SET gpuhash.batch_rows = 500;
SELECT * FROM gh_check('SELECT count(*) FROM pt_small o WHERE NOT EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40)');
SELECT * FROM gh_check('SELECT count(*) FROM pt_small o WHERE EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40)');
SELECT * FROM gh_check('SELECT count(*), count(b.id) FROM pt_small o LEFT JOIN pt_big b ON b.k = o.k * 40');
-- the same as plain statements (each three times), against native's
-- counts taken first
SET enable_gpuhashjoin = off;
SELECT count(*) AS n_anti FROM pt_small o WHERE NOT EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40) \gset
SELECT count(*) AS n_semi FROM pt_small o WHERE EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40) \gset
SELECT count(*) AS n_left, count(b.id) AS n_left_matched FROM pt_small o LEFT JOIN pt_big b ON b.k = o.k * 40 \gset
RESET enable_gpuhashjoin;
BEGIN;
SELECT gh_force_on();
SELECT count(*) = :n_anti AS anti_same FROM pt_small o WHERE NOT EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40)
UNION ALL SELECT count(*) = :n_anti FROM pt_small o WHERE NOT EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40)
UNION ALL SELECT count(*) = :n_anti FROM pt_small o WHERE NOT EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40);
SELECT count(*) = :n_semi AS semi_same FROM pt_small o WHERE EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40);
SELECT count(*) = :n_semi AS semi_same FROM pt_small o WHERE EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40);
SELECT count(*) = :n_semi AS semi_same FROM pt_small o WHERE EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40);
SELECT count(*) = :n_left AND count(b.id) = :n_left_matched AS left_same FROM pt_small o LEFT JOIN pt_big b ON b.k = o.k * 40;
SELECT count(*) = :n_left AND count(b.id) = :n_left_matched AS left_same FROM pt_small o LEFT JOIN pt_big b ON b.k = o.k * 40;
SELECT count(*) = :n_left AND count(b.id) = :n_left_matched AS left_same FROM pt_small o LEFT JOIN pt_big b ON b.k = o.k * 40;
COMMIT;
SELECT * FROM gh_check('SELECT count(*) FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_big b WHERE b.k = o.k * 40)');
SELECT * FROM gh_check('SELECT count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT count(*), count(i.id) FROM pt_o o LEFT JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT count(*), count(i.x) FROM pt_o o RIGHT JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT count(*), count(i.id) FROM pt_o o FULL JOIN pt_i i ON o.k = i.k');
SELECT * FROM gh_check('SELECT count(*) FROM pt_o o WHERE EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT count(*) FROM pt_o o WHERE NOT EXISTS (SELECT 1 FROM pt_i i WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT i.x, count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k GROUP BY i.x');
-- rescanned: each scan's batches start empty
SELECT * FROM gh_check('SELECT f.d, (SELECT count(*) FROM pt_o o JOIN pt_i i ON o.k = i.k + f.d)
                        FROM (VALUES (0), (2), (4)) f(d)');
RESET gpuhash.batch_rows;
DROP TABLE pt_big, pt_small;

-- a GPU join run by one worker over a partial inner side planned for four
-- pays for the larger share each of its 2 processes reads.  PostgreSQL's
-- Parallel Hash of one worker over the GPU join is PostgreSQL's to price:
-- it pays nothing for that, and is the plan here (pages charged in full,
-- as cost_seqscan charges them).  Priced as the tuple path: by pages,
-- ws_s's million rows cost their 4425 pages, and the GPU join wins over
-- the Parallel Hash even with the larger share charged
SET gpuhash.absorbed_page_cost = 1;
SET gpuhash.page_cpu_cost = -1;
CREATE TABLE ws_s (k int4, v int4) WITH (parallel_workers = 1);
INSERT INTO ws_s SELECT g % 20000, g FROM generate_series(1, 1000000) g;
CREATE TABLE ws_a (k int4, j int4, pad text) WITH (parallel_workers = 4);
INSERT INTO ws_a SELECT g, g % 20000, repeat('a', 50) FROM generate_series(1, 200000) g;
CREATE TABLE ws_b (k int4, p int4, pad text) WITH (parallel_workers = 4);
INSERT INTO ws_b SELECT g, g % 2000, repeat('b', 50) FROM generate_series(1, 200000) g;
ANALYZE ws_s;
ANALYZE ws_a;
ANALYZE ws_b;
SET min_parallel_table_scan_size = '8MB';
SET enable_nestloop = off;
-- the plan's lines that match keep, at the default costs, with
-- PostgreSQL's joins beside it (gh_explain's forcing turns hash joins off)
CREATE FUNCTION pj_plan(q text, keep text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    CONTINUE WHEN line !~ keep;
    RETURN NEXT line;
  END LOOP;
END;
$$;
SELECT * FROM pj_plan('SELECT count(*) FROM ws_s s JOIN ws_a a ON s.k = a.j
                       JOIN ws_b b ON a.k = b.k WHERE b.p = 1', 'Workers Planned|Join|Gather');
SELECT * FROM gh_check('SELECT count(*) FROM ws_s s JOIN ws_a a ON s.k = a.j
                        JOIN ws_b b ON a.k = b.k WHERE b.p = 1');
RESET enable_nestloop;
RESET gpuhash.absorbed_page_cost;
RESET gpuhash.page_cpu_cost;
SET min_parallel_table_scan_size = 0;
DROP TABLE ws_s, ws_a, ws_b;

-- An IN over a grouped subquery whose cheapest plan aggregates in parallel
-- (Finalize over Partial HashAggregates).  A parallel-aware GPU join whose
-- whole inner side is that aggregate, run serially by one participant,
-- pays what the parallel aggregate saves, its pages shared
-- (serial_inner_penalty): no GPU join takes the aggregate as its inner
-- side.  PostgreSQL's Hash Join above a parallel GPU join is PostgreSQL's
-- to price, and may run the serial aggregate in every participant.
CREATE TABLE sq_o (ok int4, ck int4);
INSERT INTO sq_o SELECT g, g % 5000 FROM generate_series(1, 250000) g;
CREATE TABLE sq_c (ck int4, name text);
INSERT INTO sq_c SELECT g, 'c' || g FROM generate_series(0, 4999) g;
CREATE TABLE sq_l (ok int4, qty numeric);
INSERT INTO sq_l SELECT (g % 750) + 1, g % 50 FROM generate_series(1, 300000) g;
ANALYZE sq_o;
ANALYZE sq_c;
ANALYZE sq_l;
SET parallel_tuple_cost = 0.1;
SET work_mem = '64MB';
SELECT * FROM pj_plan('SELECT c.name, o.ok FROM sq_o o JOIN sq_c c ON o.ck = c.ck
                       WHERE o.ok IN (SELECT ok FROM sq_l GROUP BY ok HAVING sum(qty) > 150)',
                      'Gather|Join|Aggregate|Custom Scan');
SET gpuhash.serial_inner_penalty = 0;
SELECT * FROM pj_plan('SELECT c.name, o.ok FROM sq_o o JOIN sq_c c ON o.ck = c.ck
                       WHERE o.ok IN (SELECT ok FROM sq_l GROUP BY ok HAVING sum(qty) > 150)',
                      'Gather|Join|Aggregate|Custom Scan');
SELECT * FROM gh_check('SELECT c.name, o.ok FROM sq_o o JOIN sq_c c ON o.ck = c.ck
                        WHERE o.ok IN (SELECT ok FROM sq_l GROUP BY ok HAVING sum(qty) > 150)',
                       false);
RESET gpuhash.serial_inner_penalty;
RESET work_mem;
SET parallel_tuple_cost = 0;
DROP TABLE sq_o, sq_c, sq_l;

-- with gpuhash.shared_inner_pages, an absorbed outer scan takes the workers
-- of the partial inner side all participants read: wm_o's 25 pages give a
-- Parallel Seq Scan 2 workers, wm_i's 736 pages 4, and the join runs with 4
-- (a filtered large inner table built, a small one probing: TPC-H Q12 and
-- Q19 at SF 10)
CREATE TABLE wm_o (k int4, pad text);
INSERT INTO wm_o SELECT g, repeat('o', 60) FROM generate_series(1, 2000) g;
CREATE TABLE wm_i (k int4, v int4, pad text);
INSERT INTO wm_i SELECT g % 4000, g, repeat('i', 20) FROM generate_series(1, 100000) g;
ANALYZE wm_o;
ANALYZE wm_i;
SET parallel_setup_cost = 0;
SET min_parallel_table_scan_size = '64kB';
SET max_parallel_workers_per_gather = 4;
SELECT l FROM gh_explain('SELECT count(*) FROM wm_o') l WHERE l ~ 'Workers';
SET gpuhash.shared_inner_pages = on;
-- (by pages, the filtered large table costs its pages and would be the
-- outer side itself: priced as the tuple path, the small one probes)
SET gpuhash.page_cpu_cost = -1;
SELECT * FROM gh_explain('SELECT count(*), sum(i.v) FROM wm_o o JOIN wm_i i ON o.k = i.k WHERE i.v % 50 = 0');
SELECT * FROM gh_check('SELECT count(*), sum(i.v) FROM wm_o o JOIN wm_i i ON o.k = i.k WHERE i.v % 50 = 0');
-- a table's own parallel_workers stands
ALTER TABLE wm_o SET (parallel_workers = 1);
SELECT l FROM gh_explain('SELECT count(*), sum(i.v) FROM wm_o o JOIN wm_i i ON o.k = i.k WHERE i.v % 50 = 0') l
WHERE l ~ 'Workers|Outer Scan|Inner Scan';
RESET gpuhash.shared_inner_pages;
RESET gpuhash.page_cpu_cost;
DROP TABLE wm_o, wm_i;

-- a partial inner side that is a join planned for fewer workers (2) than
-- the GPU join over it runs with (4): every participant of the join runs
-- it, each a smaller share than its cost says.  The part of a GPU join's
-- cost that divides (its run over its outer rows) is credited, its setup
-- and build are not (partial_paths.c, inner_share_charge), and the results
-- are equal
CREATE TABLE cr_l (ok int4, v int4, pad text) WITH (parallel_workers = 4);
INSERT INTO cr_l SELECT g % 50000, g, repeat('l', 40) FROM generate_series(1, 400000) g;
CREATE TABLE cr_o (ok int4, ck int4) WITH (parallel_workers = 2);
INSERT INTO cr_o SELECT g, g % 5000 FROM generate_series(1, 50000) g;
CREATE TABLE cr_c (ck int4, name text) WITH (parallel_workers = 2);
INSERT INTO cr_c SELECT g, 'c' || g FROM generate_series(0, 4999) g;
ANALYZE cr_l;
ANALYZE cr_o;
ANALYZE cr_c;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET join_collapse_limit = 1;
SELECT * FROM gh_check('SELECT l.ok, l.v, c.name FROM cr_l l
                        JOIN (cr_o o JOIN cr_c c ON o.ck = c.ck) ON l.ok = o.ok WHERE l.v % 7 = 0');
SELECT * FROM gh_check('SELECT o.ok, count(*), max(c.name) FROM cr_l l
                        JOIN (cr_o o JOIN cr_c c ON o.ck = c.ck) ON l.ok = o.ok
                        WHERE l.v % 10 = 0 GROUP BY o.ok');
-- the memory the builds write mapped a page fault at a time, as without
-- MADV_POPULATE_WRITE (gpuhash.prefault off): the same rows
SET gpuhash.prefault = off;
SELECT * FROM gh_check('SELECT l.ok, l.v, c.name FROM cr_l l
                        JOIN (cr_o o JOIN cr_c c ON o.ck = c.ck) ON l.ok = o.ok WHERE l.v % 7 = 0');
RESET gpuhash.prefault;
RESET join_collapse_limit;
DROP TABLE cr_l, cr_o, cr_c;

-- the same at gpuhash's default costs and this file's parallel settings,
-- with every join order open: the fact table's join is planned for 4
-- workers, ko's for 2 and kc's for 1, and all 5 participants run ko JOIN
-- kc where it is an inner side.  Credited for that, ko JOIN kc (8 000
-- rows) is the inner side of the fact table's chain, kept once (priced for
-- its own 2 workers, before 5ff29bf, it was not: on the host twin kf JOIN
-- ks and ko JOIN kc met in PostgreSQL's Parallel Hash Join)
CREATE TABLE kf (ok int4, sk int4, v int4, pad text) WITH (parallel_workers = 4);
INSERT INTO kf SELECT g % 100000, g % 2000, g, repeat('f', 30) FROM generate_series(1, 300000) g;
CREATE TABLE ks (sk int4, nk int4, name text);
INSERT INTO ks SELECT g, g % 25, 's' || g FROM generate_series(0, 1999) g;
CREATE TABLE ko (ok int4, ck int4, pad text) WITH (parallel_workers = 2);
INSERT INTO ko SELECT g, g % 10000, repeat('o', 20) FROM generate_series(0, 99999) g;
CREATE TABLE kc (ck int4, nk int4, name text) WITH (parallel_workers = 1);
INSERT INTO kc SELECT g, g % 25, 'c' || g FROM generate_series(0, 9999) g;
ANALYZE kf;
ANALYZE ks;
ANALYZE ko;
ANALYZE kc;
SELECT * FROM pj_plan('SELECT ks.name, kc.name, count(*), sum(kf.v) FROM kf JOIN ks ON kf.sk = ks.sk
                       JOIN ko ON kf.ok = ko.ok JOIN kc ON ko.ck = kc.ck
                       WHERE ks.nk IN (3, 4) AND kc.nk IN (3, 4) GROUP BY 1, 2',
                      'Workers Planned|Join|Hash Keys|Scan:|Chained');
SELECT * FROM gh_check('SELECT ks.name, kc.name, count(*), sum(kf.v) FROM kf JOIN ks ON kf.sk = ks.sk
                        JOIN ko ON kf.ok = ko.ok JOIN kc ON ko.ck = kc.ck
                        WHERE ks.nk IN (3, 4) AND kc.nk IN (3, 4) GROUP BY 1, 2', false);
DROP TABLE kf, ks, ko, kc;
DROP FUNCTION pj_plan(text, text);

-- a join of an aggregated subquery, whose every path holds a Gather (no
-- partial path), with a table that has partial paths: no partial GPU join
-- can be made either way round, so the serial one is offered (with the
-- feature off and on, results equal; EXPLAIN shows the GPU join where the
-- native joins are off)
CREATE TABLE f (ck int4, qty int4, price numeric);
INSERT INTO f SELECT g % 3000, g % 50, (g % 977) / 10.0 FROM generate_series(1, 200000) g;
ANALYZE f;
SELECT * FROM gh_check('SELECT count(*), sum(x.sp) FROM (SELECT ck, sum(price) AS sp FROM f
                        WHERE qty = 7 GROUP BY ck) x JOIN f g ON x.ck = g.ck');
SELECT * FROM gh_check('SELECT count(*), sum(x.sp) FROM (SELECT ck, sum(price) AS sp FROM f
                        WHERE qty = 7 GROUP BY ck) x JOIN f g ON x.ck = g.ck', false);
SELECT l FROM gh_explain('SELECT count(*), sum(x.sp) FROM (SELECT ck, sum(price) AS sp FROM f
                          WHERE qty = 7 GROUP BY ck) x JOIN f g ON x.ck = g.ck') l
WHERE l ~ 'Gather|GpuHashJoin|Aggregate|Scan';
DROP TABLE f;

RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
SELECT gh_tables_become(0);

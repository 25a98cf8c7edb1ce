-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Right semi and right anti joins (right_paths.c): a semi join (EXISTS,
-- IN) or anti join (NOT EXISTS) whose table is built of its preserved side
-- and probed by the other, whose matching rows only mark table rows; each
-- table row then comes out once, matched (semi) or never matched (anti).
-- gpuhash.right_semi_anti = only offers these joins no other GPU path, so
-- every shape below runs that way; each against PostgreSQL's rows.  NULL
-- keys on both sides, duplicate rows of the preserved side (each comes out),
-- many matches a table row, empty sides, join clauses beside the key (the
-- match then forms the pair), fingerprinted and cross-type keys, count(*)
-- (no row formed), hash batches, rescans, parallel plans (the last prober
-- emits), and the page path.  Then the default setting chooses it by cost.
--
SET client_min_messages = warning;
SET gpuhash.right_semi_anti = 'only';

-- rs_p: the preserved side: keys 0..299 (0..49 match nothing), each key on
-- two rows (duplicates come out twice), identical rows too, 15 NULL keys
CREATE TABLE rs_p (id int4, k int4, k8 int8, t text, x int4);
INSERT INTO rs_p SELECT g, g % 300, (g % 300)::int8 * 4294967311, 'k' || (g % 300), g % 7
FROM generate_series(1, 600) g;
INSERT INTO rs_p SELECT 1, 1, 4294967311, 'k1', 1 FROM generate_series(1, 3);
INSERT INTO rs_p SELECT 600 + g, NULL, NULL, NULL, g % 7 FROM generate_series(1, 15) g;
-- rs_q: the probing side: keys 50..399, many rows a key, 40 NULL keys
CREATE TABLE rs_q (id int4, k int4, k8 int8, t text, y int4);
INSERT INTO rs_q SELECT g, 50 + (g * 13) % 350, (50 + (g * 13) % 350)::int8 * 4294967311,
       'k' || (50 + (g * 13) % 350), g % 11
FROM generate_series(1, 20000) g;
INSERT INTO rs_q SELECT 20000 + g, NULL, NULL, NULL, g % 11 FROM generate_series(1, 40) g;
CREATE TABLE rs_empty (id int4, k int4, k8 int8, t text, y int4);
ANALYZE rs_p;
ANALYZE rs_q;
ANALYZE rs_empty;

-- the plan: the table of rs_p, rs_q probing it
SELECT * FROM gh_explain('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_explain('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');

-- semi: EXISTS and IN, duplicates and NULL keys of the preserved side
SELECT * FROM gh_check('SELECT p.id, p.k, p.x FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.* FROM rs_p p WHERE p.k IN (SELECT q.k FROM rs_q q)');
SELECT * FROM gh_check('SELECT p.* FROM rs_p p WHERE p.k IN (SELECT q.k FROM rs_q q WHERE q.y = 3)');
-- anti: NOT EXISTS, unmatched and NULL-keyed rows come out
SELECT * FROM gh_check('SELECT p.id, p.k FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.id, p.k FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < 0)');
-- a join clause beside the key: a match is the pair passing it
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y = p.x)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y > p.x + 8)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.id % 97 = p.id % 5)');
-- keys: int8, int4 = int8, text (fingerprinted, rechecked), two columns
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k8 = p.k8)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k8 / 4294967311 = p.k)');
SELECT * FROM gh_check('SELECT p.id, p.t FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.t = p.t)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.t = p.t)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y = p.x % 11)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.t = p.t)');
-- a clause on the preserved side alone, an OR across both, keys that are
-- expressions
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND p.x > 3)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND (p.x > 3 OR q.y < 2))');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k + 1 = p.k * 2)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE p.k + 0 IN (SELECT q.y * 40 FROM rs_q q)');
-- empty sides
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_empty e WHERE e.k = p.k)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_empty e WHERE e.k = p.k)');
SELECT * FROM gh_check('SELECT e.id FROM rs_empty e WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = e.k)');
SELECT * FROM gh_check('SELECT e.id FROM rs_empty e WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = e.k)');
-- count(*): the rows that come out are never formed
SELECT * FROM gh_check('SELECT count(*) FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT count(*) FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
-- inside a larger join tree, and under an aggregate (TPC-H Q04's shape)
SELECT * FROM gh_check('SELECT p.x, count(*) FROM rs_p p WHERE p.id < 500 AND EXISTS
                        (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < q.id % 7) GROUP BY p.x');
SELECT * FROM gh_check('SELECT p.id, p2.id FROM rs_p p JOIN rs_p p2 ON p2.id = p.id + 1
                        WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
-- hash batches: a table over work_mem is built and filled a batch at a time
SET work_mem = '64kB';
CREATE TABLE rs_wide AS SELECT g AS id, g % 5000 AS k, repeat('w', 100) || g AS pad
FROM generate_series(1, 12000) g;
ANALYZE rs_wide;
SELECT l FROM gh_explain('SELECT w.id, w.pad FROM rs_wide w WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = w.k)',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Join Type|Hash Batches';
SELECT * FROM gh_check('SELECT w.id, w.pad FROM rs_wide w WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = w.k)');
SELECT * FROM gh_check('SELECT w.id FROM rs_wide w WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = w.k)');
RESET work_mem;
-- a rescan under a nested loop: the table's match flags start over
SELECT * FROM gh_check('SELECT f.v, (SELECT count(*) FROM rs_p p WHERE p.x = f.v AND
                          EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k))
                        FROM (VALUES (1), (2), (3)) f(v)');
SELECT * FROM gh_check('SELECT f.v, (SELECT count(*) FROM rs_p p WHERE
                          NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y = f.v))
                        FROM (VALUES (1), (2), (3)) f(v)');

-- parallel: the participants mark matches in shared memory, one emits
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SELECT 'semi' AS jt, * FROM gh_parallel('SELECT count(*) FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT 'anti' AS jt, * FROM gh_parallel('SELECT count(*) FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.id, p.t FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.id, p.t FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y = p.x)');
SELECT * FROM gh_check('SELECT p.x, count(*) FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.t = p.t) GROUP BY p.x');
-- a table of several fill chunks (16384 rows): the participants wait for
-- the last one's marks, then each claims chunks and emits their rows
CREATE TABLE rs_many AS SELECT g AS id, g % 420 AS k FROM generate_series(1, 70000) g;
ANALYZE rs_many;
SELECT 'semi' AS jt, * FROM gh_parallel('SELECT m.id FROM rs_many m WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k)');
SELECT * FROM gh_check('SELECT m.id FROM rs_many m WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k)');
SELECT * FROM gh_check('SELECT m.id, m.k FROM rs_many m WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k)');
SELECT * FROM gh_check('SELECT m.k % 7, count(*) FROM rs_many m WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k AND q.y > 2) GROUP BY 1');
-- beside another branch of a Parallel Append, which emits while the join's
-- participants wait for each other's marks: those wait only on probers,
-- which emit nothing
SET enable_parallel_append = on;
SELECT * FROM gh_check('SELECT m.id FROM rs_many m WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k)
                        UNION ALL SELECT q.id FROM rs_q q WHERE q.y = 4');
SELECT * FROM gh_check('SELECT count(*) FROM (SELECT m.id FROM rs_many m WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k)
                        UNION ALL SELECT q.id FROM rs_q q) u');
-- a LIMIT that stops the Gather after a few rows of the fill
SELECT count(*) FROM (SELECT m.id FROM rs_many m WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k) LIMIT 10) l;
SET parallel_leader_participation = off;
SELECT * FROM gh_check('SELECT m.id FROM rs_many m WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = m.k)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
RESET parallel_leader_participation;
-- a rescanned parallel join rebuilds its table and its match flags
SELECT * FROM gh_check('SELECT f.v, (SELECT count(*) FROM rs_p p WHERE p.x = f.v AND
                          EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k))
                        FROM (VALUES (1), (2), (3)) f(v)');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- the probing side's pages through the page walker, its quals there:
-- all-visible pages after a VACUUM, then pages with deleted, updated and
-- inserted rows
VACUUM rs_q;
CREATE FUNCTION rs_node(q text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  RETURN jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
END;
$$;
SELECT n->>'Join Type' AS jt, n->>'GPU Filter' AS gpu_filter,
       (n->>'Pages All-Visible')::int > 0 AS all_visible_pages, n->>'Page Matches' AS matches
FROM rs_node('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < 5)') n;
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < 5)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < 5)');
DELETE FROM rs_q WHERE id % 10 = 0;
UPDATE rs_q SET k = k + 1 WHERE id % 10 = 1;
INSERT INTO rs_q VALUES (30000, 0, 0, 'k0', 1);
SELECT n->>'Join Type' AS jt, (n->>'Pages Checked')::int > 0 AS checked_pages
FROM rs_node('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < 5)') n;
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k AND q.y < 5)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE NOT EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');

-- at the default setting a few preserved rows against many probing ones
-- choose it by cost
RESET gpuhash.right_semi_anti;
SELECT * FROM gh_explain('SELECT p.id FROM rs_p p WHERE p.id BETWEEN 100 AND 140 AND EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
SELECT * FROM gh_check('SELECT p.id FROM rs_p p WHERE p.id BETWEEN 100 AND 140 AND EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)');
-- off: none
SET gpuhash.right_semi_anti = off;
SELECT l FROM gh_explain('SELECT p.id FROM rs_p p WHERE p.id BETWEEN 100 AND 140 AND EXISTS (SELECT 1 FROM rs_q q WHERE q.k = p.k)') l
WHERE l ~ 'Join Type';
RESET gpuhash.right_semi_anti;

DROP TABLE rs_p, rs_q, rs_empty, rs_wide, rs_many;
DROP FUNCTION rs_node(text);

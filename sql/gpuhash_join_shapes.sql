-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Join shapes: duplicates, empty sides, extra join clauses, subqueries and
-- CTEs, multi-table trees, two-column keys, rescans, both schemes, small
-- batches.
--
SET client_min_messages = warning;

-- The shapes below were chosen for joins costed without the charge for
-- inner rows whose columns are kept (gpuhash.kept_row_cost, tested in
-- gpuhash_explain): it moves several of them to other build sides.
SET gpuhash.kept_row_cost = 0;
SET gpuhash.kept_join_row_cost = 0;

-- one key repeated 100k times on the inner side
CREATE TABLE hot (k int4, n int4);
INSERT INTO hot SELECT 42, g FROM generate_series(1, 100000) g;
INSERT INTO hot SELECT g, g FROM generate_series(1, 1000) g;
CREATE TABLE few (k int4, tag text);
INSERT INTO few VALUES (42, 'hot'), (42, 'hot again'), (7, 'seven'), (5000, 'none'), (NULL, 'null');
ANALYZE hot;
ANALYZE few;
SELECT * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT * FROM gh_check('SELECT few.tag, hot.n FROM hot JOIN few ON few.k = hot.k');
-- (gh_force_on's settings last for its transaction)
BEGIN;
SELECT gh_force_on();
SELECT few.tag, count(*), sum(hot.n) FROM few JOIN hot ON few.k = hot.k GROUP BY 1 ORDER BY 1;
COMMIT;

-- empty inner, empty outer, both empty
CREATE TABLE empty_t (k int4, x text);
ANALYZE empty_t;
SELECT * FROM gh_check('SELECT * FROM r JOIN empty_t e ON r.k4 = e.k');
SELECT * FROM gh_check('SELECT * FROM empty_t e JOIN r ON r.k4 = e.k');
SELECT * FROM gh_check('SELECT * FROM empty_t a JOIN empty_t b ON a.k = b.k');
-- an inner side emptied by its filter
SELECT * FROM gh_check('SELECT * FROM r JOIN s ON r.k4 = s.k4 AND s.id < 0');

-- extra non-equi join clauses checked on the CPU
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND (r.id + s.id) % 7 = 3');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.v <> s.w AND r.b');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 WHERE r.id % 10 = s.id % 10');

-- a correlated SubPlan in the join filter (TPC-H Q2's shape)
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4
                        AND s.id = (SELECT min(s2.id) FROM s s2 WHERE s2.k4 = r.k4 AND s2.k2 = r.k2)');
SELECT * FROM gh_explain('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4
                        AND s.id = (SELECT min(s2.id) FROM s s2 WHERE s2.k4 = r.k4)');

-- two-column keys (packed into 64 bits), and more clauses than fit
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.k2 = s.k2');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.d = s.d');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k4 = s.k4');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k2 = s.k2 AND r.b = s.b AND r.k4 = s.k4');

-- joins in subqueries, CTEs, IN lists and aggregates
SELECT * FROM gh_check('SELECT x.k4, count(*) FROM (SELECT r.k4 FROM r JOIN s ON r.k4 = s.k4) x GROUP BY x.k4');
SELECT * FROM gh_check('WITH j AS MATERIALIZED (SELECT r.id rid, s.id sid, r.k4 FROM r JOIN s ON r.k4 = s.k4)
                        SELECT j1.rid, j2.sid FROM j j1 JOIN j j2 ON j1.rid = j2.rid WHERE j1.k4 < 30');
SELECT * FROM gh_check('SELECT * FROM r WHERE r.k4 IN (SELECT s.k4 FROM s JOIN r r2 ON s.id = r2.id)');
SELECT * FROM gh_check('SELECT r.k2, max(s.w) FROM r JOIN s USING (k4) GROUP BY r.k2');

-- 3, 4 and 5 table join trees
SELECT * FROM gh_check('SELECT r.id, s.id, h.n FROM r JOIN s ON r.k4 = s.k4 JOIN hot h ON h.k = s.id');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id, d.id FROM r a JOIN s b ON a.k4 = b.k4
                        JOIN r c ON c.id = b.id JOIN s d ON d.k2 = c.k2 WHERE a.id < 3000');
SELECT * FROM gh_check('SELECT count(*) FROM r a JOIN s b ON a.k4 = b.k4 JOIN r c ON c.id = b.id
                        JOIN s d ON d.id = c.k4 JOIN few f ON f.k = d.k2');

-- rescans: the join inside a correlated subquery and under a nested loop
SELECT * FROM gh_check('SELECT f.tag, (SELECT count(*) FROM r JOIN s ON r.k4 = s.k4 WHERE s.k2 = f.k)
                        FROM few f');
SELECT * FROM gh_check('SELECT f.tag, x.cnt FROM few f, LATERAL
                        (SELECT count(*) AS cnt FROM r JOIN s ON r.k4 = s.k4 WHERE r.k2 = f.k) x');
SELECT * FROM gh_check('SELECT f.tag, x.* FROM few f, LATERAL
                        (SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND s.k2 = f.k WHERE r.id < 500) x');

-- both schemes and the baseline, each with small batches
SET gpuhash.scheme = fks;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');
SELECT * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SET gpuhash.scheme = linear;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8');
SET gpuhash.scheme = gph;
SET gpuhash.batch_rows = 7;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4');
SELECT * FROM gh_check('SELECT few.tag, hot.n FROM hot JOIN few ON few.k = hot.k');
SET gpuhash.scheme = fks;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k2 = s.k2 AND r.b = s.b');
RESET gpuhash.batch_rows;
RESET gpuhash.scheme;

-- every scheme gives PostgreSQL's rows: duplicates, a hot key, NULLs,
-- 8-byte and two-column keys, an outer join, small batches
SET gpuhash.scheme = gph;
SELECT 'gph' AS scheme, * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT 'gph' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k2 = s.k2');
SELECT 'gph' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r FULL JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = fks;
SELECT 'fks' AS scheme, * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT 'fks' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k2 = s.k2');
SELECT 'fks' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r FULL JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = linear;
SELECT 'linear' AS scheme, * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT 'linear' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k2 = s.k2');
SELECT 'linear' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r FULL JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = cuckoo;
SELECT 'cuckoo' AS scheme, * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT 'cuckoo' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k2 = s.k2');
SELECT 'cuckoo' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r FULL JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = hashgraph;
SELECT 'hashgraph' AS scheme, * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT 'hashgraph' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k2 = s.k2');
SELECT 'hashgraph' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r FULL JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = dycuckoo;
SELECT 'dycuckoo' AS scheme, * FROM gh_check('SELECT few.tag, hot.n FROM few JOIN hot ON few.k = hot.k');
SELECT 'dycuckoo' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8 AND r.k2 = s.k2');
SELECT 'dycuckoo' AS scheme, * FROM gh_check('SELECT r.id, s.id FROM r FULL JOIN s ON r.k4 = s.k4');
SET gpuhash.batch_rows = 7;
SET gpuhash.scheme = hashgraph;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r LEFT JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = dycuckoo;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r LEFT JOIN s ON r.k4 = s.k4');
SET gpuhash.scheme = cuckoo;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r LEFT JOIN s ON r.k4 = s.k4');
RESET gpuhash.batch_rows;
RESET gpuhash.scheme;

-- LIMIT stops early; the cursor is closed cleanly
BEGIN;
SELECT gh_force_on();
SELECT count(*) FROM (SELECT r.id FROM r JOIN s ON r.k4 = s.k4 LIMIT 10) x;
COMMIT;

-- plain INSERT ... SELECT uses the GPU join too
CREATE TABLE sink (rid int4, sid int4);
BEGIN;
SELECT gh_force_on();
INSERT INTO sink SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4;
COMMIT;
SELECT count(*), sum(rid::int8), sum(sid::int8) FROM sink;
SELECT count(*), sum(r.id::int8), sum(s.id::int8) FROM r JOIN s ON r.k4 = s.k4;

-- SELECT FOR UPDATE and UPDATE keep PostgreSQL's joins
SELECT * FROM gh_check('SELECT r.id FROM r JOIN s ON r.k4 = s.k4 WHERE s.id < 3');
BEGIN;
SELECT gh_force_on();
EXPLAIN (COSTS OFF) SELECT r.id FROM r JOIN s ON r.k4 = s.k4 WHERE s.id < 3 FOR UPDATE OF r;
ROLLBACK;

-- the key filter: an outer row whose key the table cannot hold goes before
-- it is copied into a batch (inner, semi and right joins); off, same rows
CREATE TABLE kf_outer AS
SELECT g AS k, g % 97 AS x, (g * 0.5)::numeric AS n FROM generate_series(1, 50000) g;
CREATE TABLE kf_inner AS SELECT g * 100 AS k, g AS y FROM generate_series(1, 300) g;
INSERT INTO kf_inner VALUES (100, -1), (NULL, -2);
ANALYZE kf_outer;
ANALYZE kf_inner;
SELECT * FROM gh_check('SELECT o.k, o.n, i.y FROM kf_outer o JOIN kf_inner i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.k, o.n, i.y FROM kf_outer o JOIN kf_inner i ON o.k = i.k AND o.x > i.y % 97');
SELECT * FROM gh_check('SELECT o.k FROM kf_outer o WHERE EXISTS (SELECT 1 FROM kf_inner i WHERE i.k = o.k)');
SELECT * FROM gh_check('SELECT o.k, i.y FROM kf_outer o RIGHT JOIN kf_inner i ON o.k = i.k + 1');
SELECT * FROM gh_check('SELECT o.k, i.y FROM kf_outer o LEFT JOIN kf_inner i ON o.k = i.k');
-- the tuple path's filter (the page path probes every row it reads: page_scan.c)
SET gpuhash.page_scan = off;
SELECT * FROM gh_explain('SELECT count(*) FROM kf_outer o JOIN kf_inner i ON o.k = i.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SET gpuhash.outer_filter = off;
SELECT * FROM gh_check('SELECT o.k, o.n, i.y FROM kf_outer o JOIN kf_inner i ON o.k = i.k');
SELECT * FROM gh_check('SELECT o.k, i.y FROM kf_outer o RIGHT JOIN kf_inner i ON o.k = i.k + 1');
SELECT * FROM gh_explain('SELECT count(*) FROM kf_outer o JOIN kf_inner i ON o.k = i.k',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
RESET gpuhash.outer_filter;
RESET gpuhash.page_scan;

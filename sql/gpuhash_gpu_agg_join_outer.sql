--
-- The GPU aggregate over an outer join that preserves the inner side
-- (I LEFT JOIN R, R RIGHT JOIN I; R's pages walked, I the dimension): the
-- pairs folded as over an inner join, then every inner row no row of R
-- matched folded once with R's columns NULL.  Every query runs twice, all
-- PostgreSQL's and then with the GPU aggregate on (as
-- gpuhash_gpu_agg_join), compared as multisets of text rows; jo_check
-- says whether the second plan joined in a GpuPreAgg.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

\i sql/agg_join_helpers.inc

-- q off, then on: the same multiset?  And did the plan on hold a GpuPreAgg over the outer join?
CREATE FUNCTION jo_check(q text, OUT rows bigint, OUT same boolean, OUT gpu_join boolean)
LANGUAGE sql AS $$ SELECT * FROM aj_check(q, '%GPU Join Type: Left%') $$;

-- q's EXPLAIN ANALYZE figures of the GpuPreAgg (GPU aggregate on): where
-- its rows were folded
CREATE FUNCTION jo_figures(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ '(GPU Join|GPU Declined|Inner Rows|Dimension Bytes|Pages Refused|Rows Folded|Rows From CPU|Unmatched)' THEN
      l := regexp_replace(l, '^ *', '');
      IF l LIKE 'Dimension Bytes%' THEN
        l := regexp_replace(l, '[0-9]+$', 'N');
      END IF;
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- q's plan, GPU aggregate on
CREATE FUNCTION jo_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aj_on();
  RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END $$;

-- A customer-like inner side (customers without orders, duplicate keys, a
-- NULL key), an orders-like outer side (NULL customer keys, comments the
-- LIKE of the query below rejects, orders of no customer), empty tables.
CREATE TABLE jo_c (c_custkey int4, c_nation int4, c_name text, c_seg char(10), c_bal numeric(12,2))
  WITH (autovacuum_enabled = off);
INSERT INTO jo_c
SELECT i, i % 5, 'Customer#' || i, (ARRAY['BUILDING', 'AUTOMOBILE', 'MACHINERY'])[i % 3 + 1],
       (i % 1000) / 4.0
FROM generate_series(1, 3000) i;
INSERT INTO jo_c VALUES
  (5, 9, 'dup five', 'BUILDING', 1.25), (6, NULL, NULL, NULL, NULL),
  (NULL, 1, 'null key', 'AUTOMOBILE', 2.50), (NULL, 2, 'null key b', NULL, NULL);
CREATE TABLE jo_o (o_orderkey int8, o_custkey int4, o_total numeric(12,2), o_prio char(15),
  o_comment text, o_date date) WITH (autovacuum_enabled = off);
-- customers with a key divisible by 3 have no orders, as in TPC-H
INSERT INTO jo_o
SELECT i, CASE WHEN i % 101 = 0 THEN NULL WHEN i % 257 = 0 THEN 5000 + i % 7
               ELSE 1 + (i * 7) % 3000 END,
       (i % 5000) / 3.0, (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', NULL, '5-LOW'])[i % 5 + 1],
       CASE WHEN i % 13 = 0 THEN 'the special deposits requests sleep'
            WHEN i % 17 = 0 THEN NULL ELSE 'comment ' || (i % 41) END,
       date '1995-01-01' + i % 700
FROM generate_series(1, 30000) i
WHERE (1 + (i * 7) % 3000) % 3 <> 0 OR i % 101 = 0 OR i % 257 = 0;
CREATE TABLE jo_o_empty (LIKE jo_o) WITH (autovacuum_enabled = off);
CREATE TABLE jo_c_empty (LIKE jo_c);
VACUUM (ANALYZE) jo_c, jo_o, jo_c_empty;
-- a page, but no row on it
INSERT INTO jo_o_empty SELECT * FROM jo_o LIMIT 1;
DELETE FROM jo_o_empty;
ANALYZE jo_o_empty;

-- the customer distribution: counts of orders per customer, then customers
-- per count, orders whose comment matches the pattern not counted
SELECT * FROM jo_check($$
  SELECT c_count, count(*) AS custdist
  FROM (SELECT c_custkey, count(o_orderkey)
        FROM jo_c LEFT OUTER JOIN jo_o ON c_custkey = o_custkey
             AND o_comment NOT LIKE '%special%requests%'
        GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
  GROUP BY c_count $$);
SELECT c_count, count(*) AS custdist
FROM (SELECT c_custkey, count(o_orderkey)
      FROM jo_c LEFT OUTER JOIN jo_o ON c_custkey = o_custkey
           AND o_comment NOT LIKE '%special%requests%'
      GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
GROUP BY c_count ORDER BY custdist DESC, c_count DESC;
-- the same as a RIGHT JOIN
SELECT * FROM jo_check($$
  SELECT c_custkey, count(o_orderkey), count(*)
  FROM jo_o RIGHT JOIN jo_c ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
  GROUP BY c_custkey $$);
-- count(*), count(R), sums, min/max, avg of R's columns; NULL-key and duplicate inner rows
SELECT * FROM jo_check($$
  SELECT c_custkey, count(*), count(o_orderkey), sum(o_total), min(o_orderkey), max(o_date), avg(o_total)
  FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_custkey $$);
SELECT c_custkey, c_name, count(*), count(o_orderkey), sum(o_total), max(o_date)
FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey
WHERE c_custkey IS NULL OR c_custkey IN (3, 5, 6, 7) GROUP BY c_custkey, c_name ORDER BY 1, 2;
-- grouped by other inner columns, by an outer column (its NULLs a group), by both
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total), sum(c_bal) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation');
SELECT * FROM jo_check('SELECT c_seg, count(*), count(o_custkey), min(o_date) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_seg');
SELECT * FROM jo_check('SELECT o_prio, count(*), count(o_orderkey), sum(c_bal), max(c_nation) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY o_prio');
SELECT * FROM jo_check('SELECT c_nation, o_prio, count(*), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation, o_prio');
-- a plain aggregate
SELECT * FROM jo_check('SELECT count(*), count(o_orderkey), sum(o_total), max(o_date), sum(c_bal) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey');
-- CASE over R's columns: a null-extended row takes the ELSE
SELECT * FROM jo_check($$
  SELECT c_nation, sum(CASE WHEN o_prio = '1-URGENT' THEN 1 ELSE 0 END),
         count(CASE WHEN o_total > 100 THEN 1 END), sum(CASE WHEN o_total > c_bal THEN o_total ELSE 0 END)
  FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation $$);
-- ON clauses over both sides and over the inner side alone decide matching
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND o_total > c_bal GROUP BY c_nation');
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND c_nation < 3 GROUP BY c_nation');
SELECT * FROM jo_check('SELECT c_custkey, count(o_orderkey) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND (o_date > date ''1996-01-01'' OR c_seg = ''BUILDING'') GROUP BY c_custkey');
-- quals of the inner side in WHERE, and of the outer side in ON only
SELECT * FROM jo_check('SELECT c_seg, count(*), count(o_orderkey) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND o_prio IS NOT NULL WHERE c_nation <> 2 GROUP BY c_seg');
-- nothing matches: every inner row null-extended
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND o_total < 0 GROUP BY c_nation');
-- an outer side with no row (a page, all of it deleted): PostgreSQL's plan
SELECT * FROM jo_check('SELECT c_custkey, count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o_empty ON c_custkey = o_custkey GROUP BY c_custkey');
SELECT * FROM jo_check('SELECT count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o_empty ON c_custkey = o_custkey');
-- an empty inner side: no group; a plain aggregate's one row
SELECT * FROM jo_check('SELECT c_custkey, count(o_orderkey) FROM jo_c_empty LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_custkey');
SELECT * FROM jo_check('SELECT count(*), count(o_orderkey), sum(o_total) FROM jo_c_empty LEFT JOIN jo_o ON c_custkey = o_custkey');
-- the inner side a join itself, or a subquery
CREATE TABLE jo_n (n_key int4, n_name text);
INSERT INTO jo_n SELECT i, 'nation ' || i FROM generate_series(0, 3) i;
ANALYZE jo_n;
SELECT * FROM jo_check('SELECT n_name, count(*), count(o_orderkey), sum(o_total) FROM (jo_c JOIN jo_n ON c_nation = n_key) LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY n_name');
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey) FROM (SELECT DISTINCT c_custkey, c_nation FROM jo_c) c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation');
-- a WHERE clause above the join that is not strict in R: left to PostgreSQL
SELECT * FROM jo_check('SELECT c_nation, count(*) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey WHERE o_total IS NULL OR o_total > 1000 GROUP BY c_nation');
-- a strict one makes it an inner join
SELECT * FROM jo_check('SELECT c_nation, count(*) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey WHERE o_total > 1000 GROUP BY c_nation');

-- refused pages: an order's comment compressed in place, read by the
-- pattern; the only orders of customers 1 .. 50 lie on those pages, so
-- their matches are the CPU's alone (count(*) would see them folded twice)
CREATE TABLE jo_toast (o_orderkey int8, o_custkey int4, o_total numeric(12,2), o_comment text)
  WITH (autovacuum_enabled = off);
INSERT INTO jo_toast
SELECT i, CASE WHEN i % 400 = 0 THEN i / 400 ELSE 60 + i % 2000 END, i / 8.0,
       CASE WHEN i % 400 = 0 THEN repeat('x special y', 1500) ELSE 'comment ' || (i % 41) END
FROM generate_series(1, 20000) i;
VACUUM (ANALYZE) jo_toast;
SELECT * FROM jo_check($$
  SELECT c_custkey, count(*), count(o_orderkey), sum(o_total)
  FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
  GROUP BY c_custkey $$);
SELECT c_custkey, count(*), count(o_orderkey), sum(o_total)
FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
WHERE c_custkey < 12 OR c_custkey BETWEEN 49 AND 61 GROUP BY c_custkey ORDER BY c_custkey;
SELECT jo_figures($$
  SELECT c_custkey, count(*), count(o_orderkey), sum(o_total)
  FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
  GROUP BY c_custkey $$);

-- the dimension built in this backend (no GPU service): the same answers
SET gpuhash.use_service = off;
SELECT * FROM jo_check($$
  SELECT c_count, count(*) AS custdist
  FROM (SELECT c_custkey, count(o_orderkey)
        FROM jo_c LEFT OUTER JOIN jo_o ON c_custkey = o_custkey
             AND o_comment NOT LIKE '%special%requests%'
        GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
  GROUP BY c_count $$);
SELECT * FROM jo_check('SELECT c_custkey, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE ''%special%requests%'' GROUP BY c_custkey');
SELECT * FROM jo_check('SELECT o_prio, count(*), count(o_orderkey), sum(c_bal) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY o_prio');
RESET gpuhash.use_service;

-- rescans: under a correlated subquery, under a nested loop
SELECT * FROM jo_check('SELECT k, (SELECT count(o_orderkey) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey WHERE c_nation = k) FROM generate_series(0, 5) k');
SELECT * FROM jo_check('SELECT x, s.* FROM (VALUES (1), (3)) v(x), LATERAL (SELECT c_seg, count(*), count(o_orderkey) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND o_total > v.x * 500 GROUP BY c_seg) s');

-- in parallel: one shared dimension, which every participant's walk
-- marks; the last participant out of the walk folds the unmatched rows
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT count(*) FILTER (WHERE l LIKE '%Parallel Custom Scan (GpuPreAgg)%') AS parallel_preagg,
       count(*) FILTER (WHERE l LIKE '%GPU Join Type: Left%') AS outer_preagg,
       count(*) FILTER (WHERE l LIKE '%Dimension: shared%') AS shared
FROM jo_explain('SELECT c_nation, count(*) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation') l;
SELECT * FROM jo_check($$
  SELECT c_count, count(*) AS custdist
  FROM (SELECT c_custkey, count(o_orderkey)
        FROM jo_c LEFT OUTER JOIN jo_o ON c_custkey = o_custkey
             AND o_comment NOT LIKE '%special%requests%'
        GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
  GROUP BY c_count $$);
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation');
SELECT * FROM jo_check('SELECT o_prio, count(*), count(o_orderkey), sum(c_bal) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY o_prio');
SELECT * FROM jo_check('SELECT count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey AND o_total < 0');
SELECT * FROM jo_check('SELECT c_custkey, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE ''%special%requests%'' GROUP BY c_custkey');
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE ''%special%requests%'' GROUP BY c_nation');
-- each participant's own dimension (no GPU service): their marks ORed in the DSM
SET gpuhash.use_service = off;
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation');
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_toast ON c_custkey = o_custkey AND o_comment NOT LIKE ''%special%requests%'' GROUP BY c_nation');
RESET gpuhash.use_service;
-- the leader not walking; rescans (Gather's workers anew each time)
SET parallel_leader_participation = off;
SELECT * FROM jo_check('SELECT c_seg, count(*), count(o_orderkey), min(o_date) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_seg');
RESET parallel_leader_participation;
SELECT * FROM jo_check('SELECT k, (SELECT count(o_orderkey) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey WHERE c_nation = k) FROM generate_series(0, 3) k');
-- an inner side whose Parallel Seq Scan core pruned, a Parallel Index Only
-- Scan of its key being cheaper (the visibility map all set): the shared
-- dimension makes the Parallel Seq Scan itself
CREATE TABLE jo_ci (c_custkey int4 PRIMARY KEY, c_pad text) WITH (autovacuum_enabled = off);
INSERT INTO jo_ci SELECT i, repeat('x', 200) FROM generate_series(1, 3000) i;
VACUUM (ANALYZE) jo_ci;
SET min_parallel_index_scan_size = 0;
SET gpuhash.gpu_aggregate = off;
EXPLAIN (COSTS OFF) SELECT count(c_custkey) FROM jo_ci;
RESET gpuhash.gpu_aggregate;
-- the GPU aggregate over the table alone reads its pages as well
EXPLAIN (COSTS OFF) SELECT count(c_custkey) FROM jo_ci;
SELECT count(c_custkey), sum(c_custkey) FROM jo_ci;
SELECT * FROM aj_check('SELECT count(c_custkey), sum(c_custkey) FROM jo_ci', '%GpuPreAgg) on jo_ci%');
SELECT count(*) FILTER (WHERE l LIKE '%Dimension: shared%') AS shared,
       count(*) FILTER (WHERE l LIKE '%Parallel Seq Scan on jo_ci%') AS inner_seq
FROM jo_explain('SELECT c_custkey, count(o_orderkey) FROM jo_ci LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_custkey') l;
SELECT * FROM jo_check('SELECT c_custkey, count(o_orderkey) FROM jo_ci LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_custkey');
RESET min_parallel_index_scan_size;
-- without a shared dimension the outer join stays serial
SET gpuhash.shared_dimension = off;
SELECT * FROM jo_check('SELECT c_nation, count(*), count(o_orderkey), sum(o_total) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation');
SELECT count(*) FILTER (WHERE l LIKE '%Parallel Custom Scan (GpuPreAgg)%') AS parallel_preagg,
       count(*) FILTER (WHERE l LIKE '%GPU Join Type: Left%') AS outer_preagg
FROM jo_explain('SELECT c_nation, count(*) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation') l;
RESET gpuhash.shared_dimension;
-- the plan without its Device line (gpu or host, as the server runs)
CREATE FUNCTION jo_plan_lines(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l NOT LIKE '%Device:%' THEN
      RETURN NEXT l;
    END IF;
  END LOOP;
END $f$;
SELECT * FROM jo_plan_lines($q$
SELECT c_count, count(*) AS custdist
FROM (SELECT c_custkey, count(o_orderkey)
      FROM jo_c LEFT OUTER JOIN jo_o ON c_custkey = o_custkey
           AND o_comment NOT LIKE '%special%requests%'
      GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
GROUP BY c_count ORDER BY custdist DESC, c_count DESC$q$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- ---- The plans ----
SET gpuhash.gpu_aggregate = on;
SET gpuhash.gpu_aggregate_join = on;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
SET gpuhash.page_cpu_cost = -1;
SET gpuhash.match_row_cost = 10;
SET gpuhash.page_match_cost = 10;
EXPLAIN (COSTS OFF)
SELECT c_count, count(*) AS custdist
FROM (SELECT c_custkey, count(o_orderkey)
      FROM jo_c LEFT OUTER JOIN jo_o ON c_custkey = o_custkey
           AND o_comment NOT LIKE '%special%requests%'
      GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
GROUP BY c_count ORDER BY custdist DESC, c_count DESC;
EXPLAIN (COSTS OFF)
SELECT c_nation, count(o_orderkey) FROM jo_o RIGHT JOIN jo_c ON c_custkey = o_custkey AND o_total > c_bal
GROUP BY c_nation;
SELECT jo_figures('SELECT c_nation, count(*), count(o_orderkey) FROM jo_c LEFT JOIN jo_o ON c_custkey = o_custkey GROUP BY c_nation');

RESET gpuhash.gpu_aggregate;
RESET gpuhash.gpu_aggregate_join;
RESET gpuhash.setup_cost;
RESET gpuhash.min_gain;
RESET gpuhash.page_cpu_cost;
RESET gpuhash.match_row_cost;
RESET gpuhash.page_match_cost;
DROP TABLE jo_c, jo_o, jo_o_empty, jo_c_empty, jo_toast, jo_n;
DROP FUNCTION jo_check(text);
DROP FUNCTION jo_figures(text);
DROP FUNCTION jo_explain(text);
DROP FUNCTION aj_check(text, text), aj_error(text), aj_plan_has(text, text), aj_on(), aj_off(),
  aj_set(text, text);

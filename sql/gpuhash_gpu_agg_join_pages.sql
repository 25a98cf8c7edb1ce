--
-- The GPU aggregate over a join, its dimension made from the inner table's
-- pages (src/agg/agg_join_pages.c; EXPLAIN's "Dimension: pages" and "Inner
-- GPU Filter"): the walker runs the inner scan's quals, makes the exact key
-- and keeps the dimension's columns; pages it refuses are read by the CPU,
-- visibility decided as the outer page path decides it.  Every query runs
-- all PostgreSQL's, with the dimension from the inner plan's rows
-- (gpuhash.dimension_pages off) and from pages: the three results are
-- compared as multisets of text rows; jg_dim says where the dimension came
-- from.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

\i sql/agg_join_helpers.inc

-- steered on, the dimension from pages or not
CREATE FUNCTION jg_on(pages boolean) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM aj_on();
  PERFORM aj_set('gpuhash.dimension_pages', CASE WHEN pages THEN 'on' ELSE 'off' END);
END $$;

-- q all PostgreSQL's, from rows, from pages: the same multisets?  And where
-- did the last plan's dimension come from (jg_dim)?
CREATE FUNCTION jg_check(q text, OUT rows bigint, OUT same boolean, OUT dim text)
LANGUAGE plpgsql AS $$
DECLARE
  bad bigint;
  l text;
BEGIN
  PERFORM aj_off();
  EXECUTE 'CREATE TEMP TABLE jg_a AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM jg_on(false);
  EXECUTE 'CREATE TEMP TABLE jg_b AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM jg_on(true);
  EXECUTE 'CREATE TEMP TABLE jg_c AS SELECT r__::text AS t FROM (' || q || ') r__';
  SELECT count(*) INTO rows FROM jg_c;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM jg_a EXCEPT ALL SELECT * FROM jg_b) UNION ALL
    (SELECT * FROM jg_b EXCEPT ALL SELECT * FROM jg_a) UNION ALL
    (SELECT * FROM jg_a EXCEPT ALL SELECT * FROM jg_c) UNION ALL
    (SELECT * FROM jg_c EXCEPT ALL SELECT * FROM jg_a)) x;
  same := bad = 0;
  dim := 'no GPU join';
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l LIKE '%GPU Join:%' AND dim = 'no GPU join' THEN
      dim := 'rows';
    END IF;
    IF l LIKE '%Dimension: pages%' THEN
      dim := 'pages';
    ELSIF l LIKE '%Dimension: shared, pages%' THEN
      dim := 'shared pages';
    END IF;
  END LOOP;
  DROP TABLE jg_a, jg_b, jg_c;
END $$;

-- q's plan with the dimension from pages
CREATE FUNCTION jg_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM jg_on(true);
  RETURN QUERY EXECUTE 'EXPLAIN (COSTS OFF) ' || q;
END $$;

-- q's EXPLAIN ANALYZE figures of the inner side (dimension from pages)
CREATE FUNCTION jg_figures(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM jg_on(true);
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    l := regexp_replace(l, '^ *', '');
    IF l ~ '^(Dimension: |Inner GPU Filter|Inner Pages|Inner Rows|Pages Refused|Rows From CPU|-> +(Seq Scan on jg_part|Custom Scan|Nested Loop))' THEN
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- an outer side with NULL keys; an inner side with duplicate keys, a NULL
-- key, NULLs in every column, a dropped column before the ones read
CREATE TABLE jg_li (l_partkey int4, l_quantity numeric(15,2), l_price numeric(15,2),
  l_discount numeric(15,2), l_shipdate date, l_note text) WITH (autovacuum_enabled = off);
INSERT INTO jg_li
SELECT CASE WHEN i % 89 = 0 THEN NULL ELSE i % 1300 END, 1 + i % 50,
       (900 + i % 10000) / 10.0, (i % 11) / 100.0, date '1995-01-01' + i % 365,
       (ARRAY['alpha', 'beta', NULL])[i % 3 + 1]
FROM generate_series(1, 15000) i;
CREATE TABLE jg_part (p_partkey int4, p_gone text, p_type varchar(25), p_brand char(10),
  p_size int4, p_retail numeric(15,2), p_date date, p_big int8, p_f float8, p_name text)
  WITH (autovacuum_enabled = off);
INSERT INTO jg_part
SELECT i, 'gone', (ARRAY['PROMO BRUSHED', 'STANDARD POLISHED', 'PROMO ANODIZED', 'ECONOMY PLATED', NULL])[i % 5 + 1],
       'Brand#' || (1 + i % 5), CASE WHEN i % 13 = 0 THEN NULL ELSE 1 + i % 50 END,
       (i % 1000) / 8.0, date '1995-01-01' + i % 40, i::int8 * 3000000001,
       CASE WHEN i % 17 = 0 THEN NULL ELSE i / 8.0 END, 'part ' || (i % 37)
FROM generate_series(1, 1200) i;
INSERT INTO jg_part VALUES
  (5, 'x', 'PROMO DUP', 'Brand#9', 3, 1.5, '1995-03-01', 7, 0.5, 'dup'),
  (5, 'x', 'ECONOMY DUP', 'Brand#8', 7, 2.5, NULL, NULL, NULL, 'dup b'),
  (7, 'x', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (NULL, 'x', 'PROMO NULL', 'Brand#1', 1, 9.99, '1995-01-01', 1, 1, 'null key');
ALTER TABLE jg_part DROP COLUMN p_gone;
VACUUM (ANALYZE) jg_li, jg_part;

-- the promotion share: a CASE over the inner text (shipped from the pages)
SELECT * FROM jg_check($$
  SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price * (1 - l_discount) ELSE 0 END)
         / sum(l_price * (1 - l_discount)) AS promo
  FROM jg_li, jg_part WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
    AND l_shipdate < date '1995-10-01' $$);
-- inner quals the walker runs, further join clauses over both sides
SELECT * FROM jg_check($$
  SELECT sum(l_price * (1 - l_discount)) FROM jg_li, jg_part
  WHERE p_partkey = l_partkey AND p_brand IN ('Brand#1', 'Brand#2') AND p_size BETWEEN 1 AND 20
    AND (l_quantity < 10 AND p_size < 10 OR l_quantity >= 10 AND p_size >= 10) $$);
SELECT jg_explain($$
  SELECT sum(l_price * (1 - l_discount)) FROM jg_li, jg_part
  WHERE p_partkey = l_partkey AND p_brand IN ('Brand#1', 'Brand#2') AND p_size BETWEEN 1 AND 20 $$);
-- group keys and arguments over inner columns of every kind, NULLs among them
SELECT * FROM jg_check('SELECT p_brand, count(*), sum(p_retail), min(p_date), max(p_big), sum(p_f) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM jg_check('SELECT p_size, count(*), sum(l_quantity), avg(l_discount) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_size');
SELECT * FROM jg_check('SELECT p_type, count(*), sum(l_quantity) FROM jg_li JOIN jg_part ON l_partkey = p_partkey WHERE p_size IS NOT NULL GROUP BY p_type');
SELECT * FROM jg_check('SELECT count(*) FROM jg_li JOIN jg_part ON l_partkey = p_partkey');
-- an inner qual that passes nothing: an empty dimension
SELECT * FROM jg_check('SELECT count(*), sum(l_quantity) FROM jg_li JOIN jg_part ON l_partkey = p_partkey WHERE p_size > 1000');
SELECT jg_figures($$
  SELECT sum(l_price * (1 - l_discount)) FROM jg_li, jg_part
  WHERE p_partkey = l_partkey AND p_brand IN ('Brand#1', 'Brand#2') AND p_size BETWEEN 1 AND 20 $$);

-- visibility: updates and deletes leave dead and non-all-visible pages, an
-- aborted insert dead rows; an open transaction's own changes are seen
UPDATE jg_part SET p_retail = p_retail + 1, p_size = p_size + 1 WHERE p_partkey % 7 = 0;
DELETE FROM jg_part WHERE p_partkey % 11 = 0;
BEGIN;
INSERT INTO jg_part SELECT i, 'PROMO ABORTED', 'Brand#1', 2, 99, NULL, 1, 1, 'aborted'
FROM generate_series(1, 600) i;
ROLLBACK;
SELECT * FROM jg_check('SELECT p_brand, count(*), sum(p_retail), sum(l_quantity) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM jg_check($$
  SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price ELSE 0 END), count(*)
  FROM jg_li JOIN jg_part ON l_partkey = p_partkey WHERE p_size < 30 $$);
SELECT jg_figures('SELECT count(*), sum(p_retail) FROM jg_li JOIN jg_part ON l_partkey = p_partkey') AS after_changes;
BEGIN;
UPDATE jg_part SET p_retail = 0 WHERE p_partkey < 100;
INSERT INTO jg_part VALUES (1, 'PROMO NEW', 'Brand#1', 1, 1000, NULL, 1, 1, 'new');
SELECT * FROM jg_check('SELECT p_brand, count(*), sum(p_retail) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_brand');
ROLLBACK;
VACUUM jg_part;
SELECT * FROM jg_check('SELECT p_brand, count(*), sum(p_retail) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_brand');

-- refused inner pages: values compressed in place and stored out of line
-- where the dimension reads them; the CPU reads those pages' rows
CREATE TABLE jg_toast (k int4, s int4, t text) WITH (autovacuum_enabled = off);
INSERT INTO jg_toast SELECT i, i % 5,
  CASE WHEN i % 400 = 0 THEN repeat('long ' || i, 2000)
       WHEN i % 650 = 0 THEN (SELECT string_agg(md5(i::text || g::text), '') FROM generate_series(1, 300) g)
       ELSE 'short ' || (i % 7) END
FROM generate_series(1, 1300) i;
VACUUM (ANALYZE) jg_toast;
SELECT * FROM jg_check($$SELECT count(*), sum(l_quantity), count(CASE WHEN t LIKE 'long%' THEN 1 END) FROM jg_li JOIN jg_toast ON l_partkey = k$$);
SELECT * FROM jg_check('SELECT t, count(*) FROM jg_li JOIN jg_toast ON l_partkey = k WHERE s = 2 GROUP BY t');
SELECT * FROM jg_check($$
  SELECT sum(CASE WHEN t LIKE 'short%' THEN l_quantity ELSE 0 END), count(*)
  FROM jg_li JOIN jg_toast ON l_partkey = k $$);
SELECT jg_figures($$
  SELECT sum(CASE WHEN t LIKE 'short%' THEN l_quantity ELSE 0 END), count(*)
  FROM jg_li JOIN jg_toast ON l_partkey = k $$) AS refused_inner;
-- a TOASTed value the dimension does not read: the walker steps over it
SELECT * FROM jg_check('SELECT s, count(*), sum(l_quantity) FROM jg_li JOIN jg_toast ON l_partkey = k GROUP BY s');

-- refused outer pages: the CPU joins them against the inner plan's rows
CREATE TABLE jg_otoast (k int4, v numeric(10,2), t text) WITH (autovacuum_enabled = off);
INSERT INTO jg_otoast SELECT i % 1300, i / 8.0,
  CASE WHEN i % 400 = 0 THEN repeat('part 3', 2000) ELSE 'part ' || (i % 37) END
FROM generate_series(1, 6000) i;
VACUUM (ANALYZE) jg_otoast;
SELECT * FROM jg_check('SELECT p_size, count(*), sum(v) FROM jg_otoast JOIN jg_part ON k = p_partkey AND t <> p_name GROUP BY p_size');
SELECT jg_figures('SELECT p_size, count(*), sum(v) FROM jg_otoast JOIN jg_part ON k = p_partkey AND t <> p_name GROUP BY p_size') AS refused_outer;

-- rescans: under a correlated subquery and a lateral join (the parameter
-- is the inner side's, which the walker does not take: from rows)
SELECT * FROM jg_check($$
  SELECT k, (SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END)
             FROM jg_li JOIN jg_part ON l_partkey = p_partkey WHERE l_quantity = k)
  FROM generate_series(0, 6) k $$);
SELECT * FROM jg_check($$
  SELECT x, s.* FROM (VALUES (1), (3), (5)) v(x),
    LATERAL (SELECT count(*), sum(p_retail) FROM jg_li JOIN jg_part ON l_partkey = p_partkey
             WHERE l_quantity < v.x * 5) s $$);

-- rescans with no parameter of the aggregate's own: the outer row's value
-- is used above it, so each outer row runs it again
SELECT * FROM jg_check($$
  SELECT v.x, s.* FROM (VALUES (1), (3), (5)) v(x),
    LATERAL (SELECT count(*) + v.x AS n, sum(p_retail) AS r
             FROM jg_li JOIN jg_part ON l_partkey = p_partkey WHERE p_size < 40) s $$);
SELECT jg_figures($$
  SELECT v.x, s.* FROM (VALUES (1), (3), (5)) v(x),
    LATERAL (SELECT count(*) + v.x AS n, sum(p_retail) AS r
             FROM jg_li JOIN jg_part ON l_partkey = p_partkey WHERE p_size < 40) s $$) AS rescanned;
-- an inner qual the walker does not take (a regular expression): from rows
SELECT * FROM jg_check($$
  SELECT count(*), sum(l_quantity) FROM jg_li JOIN jg_part ON l_partkey = p_partkey
  WHERE p_name ~ 'part 1.' $$);

-- a dimension from pages that outgrows work_mem x hash_mem_multiplier at
-- run time (its statistics say short tags, they are 31 bytes): the walk
-- gives the pages up and the inner plan's rows go to batches, a pass over
-- the outer pages a batch (agg_join_batches.c), serially and with a
-- dimension per participant; one shared by the participants is the error
CREATE TABLE jg_many (k int4, q int4) WITH (autovacuum_enabled = off);
INSERT INTO jg_many SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i % 3500 END, i % 10
FROM generate_series(1, 200000) i;
CREATE TABLE jg_grow (g_key int4, g_tag text, g_m int4) WITH (autovacuum_enabled = off);
INSERT INTO jg_grow SELECT i, 'tag ' || i, i % 13 FROM generate_series(1, 50) i;
VACUUM ANALYZE jg_many, jg_grow;
INSERT INTO jg_grow SELECT i % 3000, repeat('g', 30) || i % 3, i % 7 FROM generate_series(1, 40000) i;
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SELECT * FROM jg_check('SELECT g_tag, count(*), sum(q), sum(g_m) FROM jg_many JOIN jg_grow ON k = g_key GROUP BY g_tag');
SELECT * FROM jg_check('SELECT g_tag, q, sum(g_m) FROM jg_many JOIN jg_grow ON k = g_key WHERE g_m > 2 GROUP BY g_tag, q');
SELECT l FROM jg_figures('SELECT g_tag, count(*) FROM jg_many JOIN jg_grow ON k = g_key GROUP BY g_tag') l
WHERE l ~ '^(Dimension|Inner Pages Given Up|Inner Pages Refused)';
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET gpuhash.shared_dimension = off;
SELECT * FROM jg_check('SELECT g_tag, count(*), sum(q), sum(g_m) FROM jg_many JOIN jg_grow ON k = g_key GROUP BY g_tag');
-- (that plan's groups have one owner each: their rows went to batches and
-- each group reached one participant's Finalize Aggregate)
SELECT l FROM jg_explain('SELECT g_tag, count(*), sum(q), sum(g_m) FROM jg_many JOIN jg_grow ON k = g_key GROUP BY g_tag') l
WHERE l ~ '(Group Owners|Finalize)';
SET gpuhash.shared_dimension = on;
SELECT l FROM jg_explain('SELECT g_tag, count(*) FROM jg_many JOIN jg_grow ON k = g_key GROUP BY g_tag') l
WHERE l ~ 'Dimension';
DO $$
BEGIN
  PERFORM jg_on(true);
  PERFORM g_tag, count(*) FROM jg_many JOIN jg_grow ON k = g_key GROUP BY g_tag;
  RAISE WARNING 'no error';
EXCEPTION WHEN program_limit_exceeded THEN
  RAISE WARNING 'shared: %', regexp_replace(SQLERRM, '\(\d+ kB\)', '(N kB)');
END $$;
RESET gpuhash.shared_dimension;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE jg_many, jg_grow;

-- a count over a join, its dimension from pages: offered where its rows
-- fit work_mem x hash_mem_multiplier both as the walk keeps them (a key
-- and a value, 24 bytes a row) and as tuples (about 36), which an outer
-- join's unmatched rows and the CPU's join of a refused outer page (a
-- compressed value) read; 60 000 rows fit 3 MB, serially and shared by
-- the participants, and none of these fails
CREATE TABLE jg_keys (kk int4) WITH (autovacuum_enabled = off);
INSERT INTO jg_keys SELECT i FROM generate_series(1, 60000) i;
CREATE TABLE jg_facts (fk int4, fq int4, fs text) WITH (autovacuum_enabled = off);
INSERT INTO jg_facts SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i % 70000 END, i % 7,
  CASE WHEN i % 1000 = 0 THEN repeat('x', 5000) ELSE 's' || i % 5 END
FROM generate_series(1, 200000) i;
VACUUM (FREEZE, ANALYZE) jg_keys, jg_facts;
SET work_mem = '1MB';
SET hash_mem_multiplier = 3;
SELECT * FROM jg_check('SELECT count(*) FROM jg_facts JOIN jg_keys ON fk = kk');
SELECT * FROM jg_check('SELECT fq, count(*) FROM jg_facts JOIN jg_keys ON fk = kk GROUP BY fq');
SELECT * FROM jg_check('SELECT count(*), count(fq) FROM jg_facts RIGHT JOIN jg_keys ON fk = kk');
SELECT * FROM jg_check($$SELECT fq, count(*) FROM jg_facts JOIN jg_keys ON fk = kk WHERE fs <> 'zz' GROUP BY fq$$);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM jg_check('SELECT count(*) FROM jg_facts JOIN jg_keys ON fk = kk');
-- past the bound as tuples (2.2 of 2 MB): PostgreSQL's plan
SET hash_mem_multiplier = 2;
SELECT * FROM jg_check('SELECT count(*) FROM jg_facts JOIN jg_keys ON fk = kk');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE jg_keys, jg_facts;

-- parallel: a dimension per participant from pages; shared from rows
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET gpuhash.shared_dimension = off;
SELECT * FROM jg_check('SELECT p_brand, count(*), sum(l_quantity), avg(p_size), max(p_date) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM jg_check($$SELECT count(*), sum(l_quantity), count(CASE WHEN t LIKE 'long%' THEN 1 END) FROM jg_li JOIN jg_toast ON l_partkey = k$$);
RESET gpuhash.shared_dimension;
SELECT * FROM jg_check('SELECT p_brand, count(*), sum(l_quantity), avg(p_size), max(p_date) FROM jg_li JOIN jg_part ON l_partkey = p_partkey GROUP BY p_brand');

-- the shared dimension from pages: every participant walks the blocks the
-- block allocator in the node's DSM hands it, one dimension of all their
-- rows.  An inner table of many shares: duplicate keys, NULL keys, NULLs
-- in the columns read; changed rows (HOT chains on a half-full table,
-- deleted rows, an aborted insert) leave pages that are not all-visible
SET work_mem = '64MB';
CREATE TABLE jg_pbig (b_key int4, b_grp int4, b_val int8, b_name text)
  WITH (autovacuum_enabled = off, fillfactor = 50);
INSERT INTO jg_pbig SELECT CASE WHEN i % 211 = 0 THEN NULL ELSE i % 9000 END, i % 13,
  CASE WHEN i % 17 = 0 THEN NULL ELSE i * 7 END, 'name ' || (i % 23)
FROM generate_series(1, 40000) i;
CREATE TABLE jg_lbig (k int4, q int4) WITH (autovacuum_enabled = off);
INSERT INTO jg_lbig SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i % 11000 END, i % 10
FROM generate_series(1, 60000) i;
CREATE TABLE jg_pempty (LIKE jg_pbig);
VACUUM (ANALYZE) jg_pbig, jg_lbig, jg_pempty;
SELECT jg_explain('SELECT b_grp, count(*), sum(q), sum(b_val) FROM jg_lbig JOIN jg_pbig ON k = b_key GROUP BY b_grp');
SELECT * FROM jg_check('SELECT b_grp, count(*), sum(q), sum(b_val), min(b_val) FROM jg_lbig JOIN jg_pbig ON k = b_key GROUP BY b_grp');
SELECT * FROM jg_check('SELECT count(*), sum(b_val) FROM jg_lbig JOIN jg_pbig ON k = b_key WHERE b_grp < 5 AND q > 2');
-- EXPLAIN ANALYZE: the pages every participant walked, each page once
-- (which participant walked which varies from run to run)
DO $$
DECLARE
  l text;
BEGIN
  PERFORM jg_on(true);
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM jg_lbig JOIN jg_pbig ON k = b_key' LOOP
    IF l LIKE '%Inner Pages All Participants%' THEN
      RAISE WARNING '%, the table has % pages', regexp_replace(l, '^ *', ''),
        pg_relation_size('jg_pbig') / current_setting('block_size')::int;
    END IF;
  END LOOP;
END $$;
SELECT * FROM jg_check('SELECT count(*), sum(q) FROM jg_lbig JOIN jg_pempty ON k = b_key');
SELECT * FROM jg_check('SELECT b_name, count(*) FROM jg_lbig JOIN jg_pempty ON k = b_key GROUP BY b_name');
UPDATE jg_pbig SET b_val = b_val + 1 WHERE b_key % 5 = 0;
UPDATE jg_pbig SET b_val = b_val + 1 WHERE b_key % 10 = 0;
DELETE FROM jg_pbig WHERE b_key % 7 = 0;
BEGIN;
INSERT INTO jg_pbig SELECT i, 1, 1, 'aborted' FROM generate_series(1, 3000) i;
ROLLBACK;
SELECT * FROM jg_check('SELECT b_grp, count(*), sum(q), sum(b_val), min(b_val) FROM jg_lbig JOIN jg_pbig ON k = b_key GROUP BY b_grp');
BEGIN;
UPDATE jg_pbig SET b_val = 0 WHERE b_key < 500;
INSERT INTO jg_pbig VALUES (1, 1, 5, 'new');
SELECT * FROM jg_check('SELECT b_grp, count(*), sum(b_val) FROM jg_lbig JOIN jg_pbig ON k = b_key GROUP BY b_grp');
ROLLBACK;
-- refused inner pages (read by the CPU of the participant that took them),
-- refused outer pages (the CPU reads the whole inner table for their join)
SELECT * FROM jg_check($$SELECT count(*), sum(l_quantity), count(CASE WHEN t LIKE 'long%' THEN 1 END) FROM jg_li JOIN jg_toast ON l_partkey = k$$);
SELECT * FROM jg_check('SELECT t, count(*) FROM jg_li JOIN jg_toast ON l_partkey = k WHERE s = 2 GROUP BY t');
SELECT * FROM jg_check('SELECT p_size, count(*), sum(v) FROM jg_otoast JOIN jg_part ON k = p_partkey AND t <> p_name GROUP BY p_size');
SELECT * FROM jg_check('SELECT b_grp, count(*), sum(v) FROM jg_otoast JOIN jg_pbig ON k = b_key GROUP BY b_grp');
-- rescans: the Gather under a nested loop runs again (ReInitializeDSM:
-- the block allocator and the dimension anew)
SET enable_material = off;
SELECT * FROM jg_check($$
  SELECT * FROM (SELECT b_grp, count(*) AS n, sum(b_val) AS r
                 FROM jg_lbig JOIN jg_pbig ON k = b_key GROUP BY b_grp) ss
    RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON x = b_grp $$);
RESET enable_material;
RESET work_mem;
SET max_parallel_workers_per_gather = 0;

-- an outer join preserving the inner side (I LEFT JOIN R), serially: the
-- dimension from pages, the unmatched rows and the NULL-key ones
-- null-extended from the rows the CPU reads in the walk's order
SELECT jg_explain('SELECT b_grp, count(*), count(q), sum(q) FROM jg_pbig LEFT JOIN jg_lbig ON k = b_key AND q < 3 GROUP BY b_grp');
SELECT * FROM jg_check('SELECT b_grp, count(*), count(q), sum(q), sum(b_val) FROM jg_pbig LEFT JOIN jg_lbig ON k = b_key AND q < 3 GROUP BY b_grp');
SELECT * FROM jg_check('SELECT b_key, count(q) FROM jg_pbig LEFT JOIN jg_lbig ON k = b_key AND q = 4 GROUP BY b_key');
SELECT * FROM jg_check('SELECT p_brand, count(*), count(l_quantity), sum(l_quantity) FROM jg_part LEFT JOIN jg_li ON l_partkey = p_partkey AND l_quantity < 4 GROUP BY p_brand');
SELECT * FROM jg_check('SELECT count(*), count(q) FROM jg_pempty LEFT JOIN jg_lbig ON k = b_key');
-- refused inner pages (a request with one read whole by the CPU), refused
-- outer pages
SELECT * FROM jg_check('SELECT s, count(*), count(l_quantity), count(t) FROM jg_toast LEFT JOIN jg_li ON l_partkey = k AND l_quantity < 20 GROUP BY s');
SELECT * FROM jg_check('SELECT p_size, count(*), count(v), sum(v) FROM jg_part LEFT JOIN jg_otoast ON k = p_partkey AND t <> p_name GROUP BY p_size');
SELECT jg_figures('SELECT b_grp, count(*), count(q) FROM jg_pbig LEFT JOIN jg_lbig ON k = b_key AND q < 3 GROUP BY b_grp') AS outer_join;
-- pages changed since the last vacuum
UPDATE jg_pbig SET b_grp = b_grp + 1 WHERE b_key % 3 = 0;
DELETE FROM jg_pbig WHERE b_key % 11 = 0;
SELECT * FROM jg_check('SELECT b_grp, count(*), count(q), sum(q), sum(b_val) FROM jg_pbig LEFT JOIN jg_lbig ON k = b_key AND q < 3 GROUP BY b_grp');

-- a dimension of narrow rows, many to a page: a request read in place is
-- bounded by the rows its pages list (service_dim_pages.c), a copied one
-- by its pages; both give PostgreSQL's result
CREATE TABLE jg_narrow (n_key int4, n_grp int4) WITH (autovacuum_enabled = off);
INSERT INTO jg_narrow SELECT i % 9000, i % 7 FROM generate_series(1, 70000) i;
VACUUM (FREEZE, ANALYZE) jg_narrow;
SELECT * FROM jg_check('SELECT n_grp, count(*), sum(q) FROM jg_lbig JOIN jg_narrow ON k = n_key GROUP BY n_grp');
SET gpuhash.page_in_place = off;
SELECT * FROM jg_check('SELECT n_grp, count(*), sum(q) FROM jg_lbig JOIN jg_narrow ON k = n_key GROUP BY n_grp');
RESET gpuhash.page_in_place;
DROP TABLE jg_narrow;
-- a dimension whose values are most of its tuples, read in place (its
-- requests' heap is laid out for 16 bytes a value: with this cluster's
-- pins a request's pages still fit; a request whose values outgrow it is
-- walked by the backend: core_page_dim.cpp tests the walk's answer)
CREATE TABLE jg_wide (w_key int4, w_grp int4, w_txt text) WITH (autovacuum_enabled = off);
INSERT INTO jg_wide SELECT i % 9000, i % 5, repeat(chr(97 + i % 5), 150 + i % 3)
FROM generate_series(1, 20000) i;
VACUUM (FREEZE, ANALYZE) jg_wide;
SELECT * FROM jg_check('SELECT w_txt, count(*), sum(q) FROM jg_lbig JOIN jg_wide ON k = w_key GROUP BY w_txt');
DO $$
DECLARE
  l text;
BEGIN
  PERFORM jg_on(true);
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT w_txt, count(*), sum(q) FROM jg_lbig JOIN jg_wide ON k = w_key GROUP BY w_txt' LOOP
    IF l LIKE '%Inner Requests In Service%' THEN
      RAISE WARNING 'requests in the service: %', CASE WHEN substring(l from '[0-9]+$')::int > 0 THEN 'some' ELSE 'none' END;
    END IF;
  END LOOP;
END $$;
DROP TABLE jg_wide;

DROP TABLE jg_pbig, jg_lbig, jg_pempty;
DROP TABLE jg_li, jg_part, jg_toast, jg_otoast;
DROP FUNCTION jg_on, jg_check, jg_explain, jg_figures;
DROP FUNCTION aj_check(text, text), aj_error(text), aj_plan_has(text, text), aj_on(), aj_off(),
  aj_set(text, text);

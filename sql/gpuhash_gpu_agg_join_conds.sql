--
-- The GPU aggregate over a join: an aggregate's CASE condition over the
-- inner side alone evaluated once per inner row on the CPU into a bool
-- column of the dimension (src/agg/agg_join_conds.c; EXPLAIN's "Inner
-- Conditions On CPU"), the columns only it reads not shipped.  Every query
-- runs all PostgreSQL's, then with the joined GPU aggregate steered on; the
-- results are compared as multisets of text rows; jc_conds shows which
-- conditions went to the CPU and jc_dim the dimension's columns' bytes.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
-- the dimension from the inner plan's rows (from pages nothing runs on the CPU)
SET gpuhash.dimension_pages = off;

\i sql/agg_join_helpers.inc

-- q off, then on: the same multiset?  And did the plan on hold a joined GpuPreAgg (EXPLAIN's "GPU Join")?
CREATE FUNCTION jc_check(q text, OUT rows bigint, OUT same boolean, OUT gpu_join boolean)
LANGUAGE sql AS $$ SELECT * FROM aj_check(q, '%GPU Join:%') $$;

-- q's conditions evaluated on the CPU (EXPLAIN's line), or 'none'
CREATE FUNCTION jc_conds(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l text;
  c text := 'none';
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l LIKE '%Inner Conditions On CPU:%' THEN
      c := regexp_replace(l, '^.*Inner Conditions On CPU: ', '');
    END IF;
  END LOOP;
  RETURN c;
END $$;

-- q's dimension (EXPLAIN ANALYZE): rows, bytes shipped per row, rows folded
-- on the GPU and by the CPU
CREATE FUNCTION jc_dim(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
  n numeric;
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    l := regexp_replace(l, '^ *', '');
    IF l LIKE 'Inner Rows:%' THEN
      n := substring(l FROM '[0-9]+')::numeric;
      RETURN NEXT l;
    ELSIF l LIKE 'Dimension Shipped Bytes:%' THEN
      RETURN NEXT 'shipped bytes per row: ' ||
        round(substring(l FROM '[0-9]+')::numeric / nullif(n, 0), 1);
    ELSIF l ~ '^(Pages Refused|Rows Folded|Rows From CPU)' THEN
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- an outer side with NULL keys, an inner side with duplicate keys, a NULL
-- key, NULLs in the conditions' columns, dropped columns
CREATE TABLE jc_li (l_partkey int4, l_dropme text, l_quantity numeric(15,2),
  l_price numeric(15,2), l_discount numeric(15,2), l_shipdate date, l_note text)
  WITH (autovacuum_enabled = off);
INSERT INTO jc_li
SELECT CASE WHEN i % 89 = 0 THEN NULL ELSE i % 1300 END, 'x', 1 + i % 50,
       (900 + i % 10000) / 10.0, (i % 11) / 100.0, date '1995-01-01' + i % 365,
       (ARRAY['alpha', 'beta', NULL])[i % 3 + 1]
FROM generate_series(1, 15000) i;
ALTER TABLE jc_li DROP COLUMN l_dropme;
CREATE TABLE jc_part (p_partkey int4, p_gone int8, p_type varchar(25), p_brand char(10),
  p_size int4, p_name text) WITH (autovacuum_enabled = off);
INSERT INTO jc_part
SELECT i, i, (ARRAY['PROMO BRUSHED', 'STANDARD POLISHED', 'PROMO ANODIZED', 'ECONOMY PLATED', NULL])[i % 5 + 1],
       'Brand#' || (1 + i % 5), CASE WHEN i % 13 = 0 THEN NULL ELSE 1 + i % 50 END,
       'part ' || (i % 37)
FROM generate_series(1, 1200) i;
INSERT INTO jc_part VALUES
  (5, 0, 'PROMO DUP', 'Brand#9', 3, 'dup'), (5, 0, 'ECONOMY DUP', 'Brand#8', 7, 'dup b'),
  (7, 0, NULL, NULL, NULL, NULL), (NULL, 0, 'PROMO NULL', 'Brand#1', 1, 'null key');
ALTER TABLE jc_part DROP COLUMN p_gone;
VACUUM (ANALYZE) jc_li, jc_part;

-- a LIKE over the inner side's text (NULL p_type: the ELSE), numeric products
SELECT * FROM jc_check($$
  SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price * (1 - l_discount) ELSE 0 END)
         / sum(l_price * (1 - l_discount)) AS promo
  FROM jc_li, jc_part WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
    AND l_shipdate < date '1995-10-01' $$);
SELECT jc_conds($$
  SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price ELSE 0 END)
  FROM jc_li, jc_part WHERE l_partkey = p_partkey $$);
-- the text is not shipped: a key and a bool value a row
SELECT jc_dim($$
  SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price ELSE 0 END)
  FROM jc_li, jc_part WHERE l_partkey = p_partkey $$);
-- ELSE NULL, counts, min and max, several conditions, NOT, OR, IS NULL
SELECT * FROM jc_check($$
  SELECT count(CASE WHEN p_type LIKE '%PLATED' THEN l_quantity END),
         sum(CASE WHEN p_brand IN ('Brand#1', 'Brand#2') THEN l_quantity ELSE NULL END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
SELECT * FROM jc_check($$
  SELECT max(CASE WHEN NOT (p_size > 10) THEN l_shipdate END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
SELECT * FROM jc_check($$
  SELECT min(CASE WHEN p_size IS NULL OR p_name = 'part 3' THEN l_shipdate END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
SELECT * FROM jc_check($$
  SELECT sum(CASE WHEN p_type IS NOT NULL AND p_brand <> 'Brand#3' THEN 1 ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
SELECT jc_conds($$
  SELECT count(CASE WHEN p_type LIKE '%PLATED' THEN l_quantity END),
         sum(CASE WHEN p_brand IN ('Brand#1', 'Brand#2') THEN l_quantity ELSE NULL END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
-- grouped by an outer column and by an inner one
SELECT * FROM jc_check($$
  SELECT l_note, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END), count(*)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY l_note $$);
SELECT * FROM jc_check($$
  SELECT p_size, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END), count(*)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY p_size $$);
-- the condition's column read elsewhere too (grouped by it): the dimension
-- would only grow, so the GPU runs the condition
SELECT * FROM jc_check($$
  SELECT p_type, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY p_type $$);
SELECT jc_conds($$
  SELECT p_type, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY p_type $$);
-- arithmetic in the condition (it may overflow): not evaluated for inner
-- rows that join nothing, so left to the GPU's program
SELECT * FROM jc_check($$
  SELECT sum(CASE WHEN p_size * 2 > 40 THEN l_quantity ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
SELECT jc_conds($$
  SELECT sum(CASE WHEN p_size * 2 > 40 THEN l_quantity ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
-- a condition over both sides stays the GPU's
SELECT * FROM jc_check($$
  SELECT sum(CASE WHEN p_size > l_partkey - 1000 THEN l_price ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
SELECT jc_conds($$
  SELECT sum(CASE WHEN p_size > l_partkey - 1000 THEN l_price ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey $$);
-- with a further join clause over the inner side's other columns
SELECT * FROM jc_check($$
  SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END), count(*)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey AND p_size < l_partkey - 1000 $$);

-- refused outer pages: the CPU joins their tuples and runs the whole CASE
CREATE TABLE jc_toast (k int4, v numeric(10,2), t text) WITH (autovacuum_enabled = off);
INSERT INTO jc_toast SELECT i % 1300, i / 8.0,
  CASE WHEN i % 400 = 0 THEN repeat('part 3', 2000) ELSE 'part ' || (i % 37) END
FROM generate_series(1, 6000) i;
VACUUM (ANALYZE) jc_toast;
SELECT * FROM jc_check($$
  SELECT count(*), sum(CASE WHEN p_type LIKE 'PROMO%' THEN v ELSE 0 END)
  FROM jc_toast JOIN jc_part ON k = p_partkey AND t <> p_name $$);
SELECT jc_dim($$
  SELECT count(*), sum(CASE WHEN p_type LIKE 'PROMO%' THEN v ELSE 0 END)
  FROM jc_toast JOIN jc_part ON k = p_partkey AND t <> p_name $$) AS refused;

-- rescans: the inner side's parameter changes, the conditions re-evaluated
SELECT * FROM jc_check($$
  SELECT k, (SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END)
             FROM jc_li JOIN jc_part ON l_partkey = p_partkey WHERE p_size = k)
  FROM generate_series(0, 6) k $$);
SELECT * FROM jc_check($$
  SELECT x, s.* FROM (VALUES ('Brand#1'), ('Brand#4'), ('Brand#9')) v(x),
    LATERAL (SELECT sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_quantity ELSE 0 END)
             FROM jc_li JOIN jc_part ON l_partkey = p_partkey WHERE p_brand = v.x) s $$);

-- parallel: per participant and with the shared dimension
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM jc_check($$
  SELECT l_note, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price * (1 - l_discount) ELSE 0 END),
         count(CASE WHEN p_size IS NULL THEN 1 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY l_note $$);
SELECT jc_conds($$
  SELECT l_note, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price * (1 - l_discount) ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY l_note $$);
SET gpuhash.shared_dimension = off;
SELECT * FROM jc_check($$
  SELECT l_note, sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_price * (1 - l_discount) ELSE 0 END)
  FROM jc_li JOIN jc_part ON l_partkey = p_partkey GROUP BY l_note $$);
RESET gpuhash.shared_dimension;
SELECT * FROM jc_check($$
  SELECT count(*), sum(CASE WHEN p_type LIKE 'PROMO%' THEN v ELSE 0 END)
  FROM jc_toast JOIN jc_part ON k = p_partkey AND t <> p_name $$);

DROP TABLE jc_li, jc_part, jc_toast;
DROP FUNCTION jc_check, jc_conds, jc_dim;
DROP FUNCTION aj_check(text, text), aj_error(text), aj_plan_has(text, text), aj_on(), aj_off(),
  aj_set(text, text);

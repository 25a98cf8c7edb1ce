--
-- The GPU aggregate over a join (GpuPreAgg with an inner side): the outer
-- relation's pages walked and joined on the device to a dimension of the
-- inner side's rows, its partial aggregates finished by PostgreSQL.  Every
-- query runs twice: all PostgreSQL's (gpuhash.gpu_aggregate and
-- enable_gpuhashjoin off), then with the GPU aggregate on at no setup cost;
-- the results are compared as multisets of text rows (display scales
-- count), and ja_check says whether the second plan joined in a GpuPreAgg
-- (EXPLAIN's "GPU Join"), so that this file shows which shapes the node
-- takes without depending on the rest of the plan.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

\i sql/agg_join_helpers.inc

-- q off, then on: the same multiset?  And did the plan on hold a joined GpuPreAgg (EXPLAIN's "GPU Join")?
CREATE FUNCTION ja_check(q text, OUT rows bigint, OUT same boolean, OUT gpu_join boolean)
LANGUAGE sql AS $$ SELECT * FROM aj_check(q, '%GPU Join:%') $$;

-- q's EXPLAIN ANALYZE figures of the GpuPreAgg (GPU aggregate on): where
-- its rows were folded
CREATE FUNCTION ja_figures(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ '(GPU Join|GPU Declined|Inner Rows|Inner Batches|Dimension Bytes|Pages Refused|Rows Folded|Rows From CPU|Resident Groups|Groups Returned)' THEN
      l := regexp_replace(l, '^ *', '');
      IF l LIKE 'Dimension Bytes%' THEN
        l := regexp_replace(l, '[0-9]+$', 'N');
      END IF;
      RETURN NEXT l;
    END IF;
  END LOOP;
END $$;

-- A lineitem-like outer side (NULL part keys among them), a part-like inner
-- side with duplicate keys, keys no line has and a NULL key, orders and
-- suppliers for joins of other shapes.
CREATE TABLE ja_li (
  l_orderkey int8, l_partkey int4, l_suppkey int4, l_quantity numeric(15,2),
  l_extendedprice numeric(15,2), l_discount numeric(15,2), l_tax numeric(15,2),
  l_shipmode char(10), l_shipinstruct char(25), l_shipdate date, l_commitdate date,
  l_receiptdate date, l_big int8, l_note text) WITH (autovacuum_enabled = off);
INSERT INTO ja_li
SELECT i / 4, CASE WHEN i % 97 = 0 THEN NULL ELSE i % 2100 END, i % 50,
       1 + i % 50, (900 + i % 10000) * (1 + i % 50) / 100.0, (i % 11) / 100.0, (i % 9) / 100.0,
       (ARRAY['AIR', 'AIR REG', 'MAIL', 'SHIP', 'TRUCK', 'RAIL', 'FOB'])[i % 7 + 1],
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[i % 4 + 1],
       date '1992-01-01' + i % 2500, date '1992-01-01' + (i * 7) % 2520,
       date '1992-01-01' + i % 2500 + i % 30, i::int8 * 1000000000007 % 9000000000000000000,
       (ARRAY['alpha', 'beta', 'gamma', NULL])[i % 4 + 1]
FROM generate_series(1, 20000) i;
CREATE TABLE ja_part (
  p_partkey int4, p_name text, p_brand char(10), p_type varchar(25), p_size int4,
  p_container char(10), p_retail numeric(15,4), p_date date, p_big int8, p_suppkey int4)
  WITH (autovacuum_enabled = off);
INSERT INTO ja_part
SELECT i, 'part ' || (i % 37), 'Brand#' || (1 + i % 5) || (1 + i % 3),
       (ARRAY['PROMO BRUSHED', 'STANDARD POLISHED', 'PROMO ANODIZED', 'ECONOMY PLATED'])[i % 4 + 1],
       1 + i % 50, (ARRAY['SM CASE', 'SM BOX', 'MED BAG', 'MED BOX', 'LG CASE', 'LG PACK'])[i % 6 + 1],
       (i % 1000) / 16.0, date '1995-01-01' + i % 40, i::int8 * 3000000000001, i % 25
FROM generate_series(1, 2000) i;
-- duplicate keys (three rows of part 5, two of 7 with other values), a NULL key
INSERT INTO ja_part VALUES
  (5, 'dup five', 'Brand#99', 'PROMO DUP', 3, 'SM CASE', 1.2345, '1995-03-01', 7, 3),
  (5, 'dup five b', 'Brand#12', 'ECONOMY DUP', 7, 'SM BOX', 0.5, NULL, NULL, 4),
  (7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (NULL, 'null key', 'Brand#12', 'PROMO NULL', 1, 'SM CASE', 9.99, '1995-01-01', 1, 1);
CREATE TABLE ja_orders (o_orderkey int8, o_orderpriority char(15), o_orderdate date)
  WITH (autovacuum_enabled = off);
INSERT INTO ja_orders
SELECT i, (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[i % 5 + 1],
       date '1992-01-01' + i % 2400
FROM generate_series(0, 4999) i;
CREATE TABLE ja_supp (s_suppkey int4, s_nation int4, s_name char(12)) WITH (autovacuum_enabled = off);
INSERT INTO ja_supp SELECT i, i % 7, 'Supplier#' || i FROM generate_series(0, 24) i;
CREATE TABLE ja_empty (LIKE ja_part);
VACUUM (ANALYZE) ja_li, ja_part, ja_orders, ja_supp, ja_empty;

-- promotion effect: a CASE over the inner side's LIKE, numeric products
SELECT * FROM ja_check($$
  SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
         / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
  FROM ja_li, ja_part
  WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
    AND l_shipdate < date '1995-09-01' + interval '1' month $$);
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM ja_li, ja_part
WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
  AND l_shipdate < date '1995-09-01' + interval '1' month;
-- discounted revenue: OR-ed join clauses over both sides
SELECT * FROM ja_check($$
  SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue
  FROM ja_li, ja_part
  WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12'
         AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
         AND l_quantity >= 1 AND l_quantity <= 1 + 10 AND p_size BETWEEN 1 AND 5
         AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
     OR (p_partkey = l_partkey AND p_brand = 'Brand#23'
         AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
         AND l_quantity >= 10 AND l_quantity <= 10 + 10 AND p_size BETWEEN 1 AND 10
         AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
     OR (p_partkey = l_partkey AND p_brand = 'Brand#34'
         AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
         AND l_quantity >= 20 AND l_quantity <= 20 + 10 AND p_size BETWEEN 1 AND 15
         AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON') $$);
-- shipping modes and order priority: GROUP BY an outer char(n), CASE THEN 1 ELSE 0 over an inner one
SELECT * FROM ja_check($$
  SELECT l_shipmode,
         sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
         sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
  FROM ja_orders, ja_li
  WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate
    AND l_shipdate < l_commitdate AND l_receiptdate >= date '1994-01-01'
    AND l_receiptdate < date '1994-01-01' + interval '1' year
  GROUP BY l_shipmode $$);
-- a star: GROUP BY the inner side's int, date, char(n), text columns
SELECT * FROM ja_check('SELECT p_size, count(*), sum(l_quantity), avg(l_discount) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_size');
SELECT * FROM ja_check('SELECT p_date, count(*), sum(l_extendedprice), min(l_shipdate) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_date');
SELECT * FROM ja_check('SELECT p_brand, count(*), sum(l_quantity), max(l_big) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM ja_check('SELECT p_name, count(*), sum(l_tax) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_name');
SELECT * FROM ja_check('SELECT p_brand, l_shipmode, count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_brand, l_shipmode');
-- min/max, sums and averages of both sides' columns; int8 sums past int8
SELECT * FROM ja_check($$
  SELECT l_shipmode, min(p_size), max(p_size), min(p_date), max(p_date), min(l_shipdate), max(l_big),
         sum(p_big), sum(l_big), avg(p_big), avg(p_size), sum(p_size), count(p_name), count(p_date)
  FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY l_shipmode $$);
SELECT sum(p_big), sum(l_big), avg(p_big), min(p_date), max(p_size), count(*)
FROM ja_li JOIN ja_part ON l_partkey = p_partkey;
-- numeric scale mixes: an inner numeric(15,4) times outer numeric(15,2)s
SELECT * FROM ja_check($$
  SELECT l_shipmode, sum(l_quantity * p_retail), sum(p_retail), avg(p_retail),
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax))
  FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY l_shipmode $$);
-- CASE WHEN ... THEN x END (ELSE NULL), and THEN 1 ELSE 0 under count and sum
SELECT * FROM ja_check($$
  SELECT p_size % 3 AS k, sum(CASE WHEN l_shipmode = 'AIR' THEN p_retail END),
         count(CASE WHEN p_type LIKE '%DUP' THEN 1 END),
         sum(CASE WHEN p_date > l_shipdate THEN 1 ELSE 0 END)
  FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_size % 3 $$);
-- further join clauses over both sides, a plain aggregate
SELECT * FROM ja_check('SELECT count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND p_date > l_shipdate');
SELECT * FROM ja_check('SELECT count(*), sum(p_retail) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND p_suppkey = l_suppkey');
SELECT * FROM ja_check('SELECT count(*), sum(p_retail) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND (p_size > l_quantity OR p_name = l_note)');
-- the inner side a join itself
SELECT * FROM ja_check($$
  SELECT s_nation, count(*), sum(l_quantity), min(s_name)
  FROM ja_li, ja_part, ja_supp
  WHERE l_partkey = p_partkey AND p_suppkey = s_suppkey GROUP BY s_nation $$);
-- empty sides: an empty inner relation, an inner side no row passes, no outer row
SELECT * FROM ja_check('SELECT count(*), sum(l_quantity), min(p_size) FROM ja_li JOIN ja_empty ON l_partkey = p_partkey');
SELECT * FROM ja_check('SELECT p_size, count(*), sum(l_quantity) FROM ja_li JOIN ja_empty ON l_partkey = p_partkey GROUP BY p_size');
SELECT * FROM ja_check('SELECT count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE p_size > 1000');
SELECT * FROM ja_check('SELECT count(*), sum(p_retail), max(p_date) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE l_quantity > 1000');
SELECT * FROM ja_check('SELECT p_brand, count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE l_quantity > 1000 GROUP BY p_brand');
-- the keys: duplicates, keys missing on either side, NULLs on both
SELECT * FROM ja_check('SELECT l_partkey, count(*), sum(p_retail), min(p_name) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE l_partkey < 20 GROUP BY l_partkey');
SELECT l_partkey, count(*), sum(p_retail), min(p_name) FROM ja_li JOIN ja_part ON l_partkey = p_partkey
WHERE l_partkey IN (5, 7, 2050) GROUP BY l_partkey ORDER BY l_partkey;
SELECT * FROM ja_check('SELECT count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey');
-- cross-type keys: int8 outer key against an int4 inner one
SELECT * FROM ja_check('SELECT count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_orderkey = p_partkey');

-- refused pages: the outer side's text compressed in place where a clause
-- reads it (the CPU joins and folds those pages' rows)
CREATE TABLE ja_toast (k int4, v numeric(10,2), t text) WITH (autovacuum_enabled = off);
INSERT INTO ja_toast SELECT i % 2100, i / 8.0, CASE WHEN i % 500 = 0 THEN repeat('part 3', 2000) ELSE 'part ' || (i % 37) END
FROM generate_series(1, 6000) i;
VACUUM (ANALYZE) ja_toast;
SELECT * FROM ja_check('SELECT p_size, count(*), sum(v) FROM ja_toast JOIN ja_part ON k = p_partkey AND t <> p_name GROUP BY p_size');
SELECT * FROM ja_check('SELECT count(*), sum(CASE WHEN t LIKE ''part 3%'' THEN v ELSE 0 END) FROM ja_toast JOIN ja_part ON k = p_partkey');
SELECT ja_figures('SELECT p_size, count(*), sum(v) FROM ja_toast JOIN ja_part ON k = p_partkey AND t <> p_name GROUP BY p_size');

-- the dimension built in this backend (no GPU service): the same answers
SET gpuhash.use_service = off;
SELECT * FROM ja_check('SELECT p_size, count(*), sum(l_quantity), min(p_date), max(l_big) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_size');
SELECT * FROM ja_check('SELECT count(*), sum(CASE WHEN p_type LIKE ''PROMO%'' THEN l_extendedprice ELSE 0 END) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND p_date > l_shipdate');
SELECT * FROM ja_check('SELECT p_size, count(*), sum(v) FROM ja_toast JOIN ja_part ON k = p_partkey AND t <> p_name GROUP BY p_size');
SELECT ja_figures('SELECT p_size, count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_size');
RESET gpuhash.use_service;

-- more inner columns than a dimension holds: left to PostgreSQL
CREATE TABLE ja_wide (k int4, c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4, c7 int4,
  c8 int4, c9 int4, c10 int4, c11 int4, c12 int4, c13 int4, c14 int4, c15 int4, c16 int4, c17 int4);
INSERT INTO ja_wide SELECT i, i % 3, i % 5, i, i, i, i, i, i, i, i % 7, i % 11, i % 13, i % 17, i % 19, i % 23, i % 29, i % 31
FROM generate_series(0, 2099) i;
ANALYZE ja_wide;
SELECT * FROM ja_check($$
  SELECT c1, c2, count(*), sum(c3), sum(c4), sum(c5), sum(c6), min(c7), max(c8), avg(c9), sum(l_quantity)
  FROM ja_li JOIN ja_wide ON l_partkey = k AND c10 + c11 + c12 + c13 + c14 + c15 + c16 + c17 > l_suppkey
  GROUP BY c1, c2 $$);

-- long lists of constants in the scan's quals and in a condition (one
-- program's pool holds both where they are the walked relation's)
SELECT * FROM ja_check(format($$
  SELECT l_shipmode, count(*), sum(CASE WHEN p_type IN (%s) THEN l_quantity ELSE 0 END)
  FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE p_name IN (%s) GROUP BY l_shipmode $$,
  '''PROMO BRUSHED'', ''ECONOMY PLATED'', ' ||
  (SELECT string_agg(quote_literal('a condition filler ' || i), ',') FROM generate_series(1, 170) i),
  (SELECT string_agg(quote_literal('a scan qual filler ' || i), ',') FROM generate_series(1, 270) i) ||
  ', ''part 1'', ''part 2'', ''part 3'''));
SELECT ja_figures(format($$
  SELECT l_shipmode, count(*), sum(CASE WHEN p_type IN (%s) THEN l_quantity ELSE 0 END)
  FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE p_name IN (%s) GROUP BY l_shipmode $$,
  '''PROMO BRUSHED'', ''ECONOMY PLATED'', ' ||
  (SELECT string_agg(quote_literal('a condition filler ' || i), ',') FROM generate_series(1, 170) i),
  (SELECT string_agg(quote_literal('a scan qual filler ' || i), ',') FROM generate_series(1, 270) i) ||
  ', ''part 1'', ''part 2'', ''part 3'''));

-- a clause the GPU does not compile (a regular expression): the CPU joins
SELECT * FROM ja_check('SELECT p_brand, count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND p_name ~ ''part 1.'' GROUP BY p_brand');

-- rescans: under a correlated subquery (the inner side's parameter changes)
SELECT * FROM ja_check('SELECT k, (SELECT sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE p_size = k) FROM generate_series(0, 6) k');
SELECT * FROM ja_check('SELECT k, (SELECT count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE l_suppkey = k) FROM generate_series(0, 4) k');
-- under a nested loop: a lateral subquery per outer row
SELECT * FROM ja_check('SELECT x, s.* FROM (VALUES (1), (3), (5)) v(x), LATERAL (SELECT count(*), sum(p_retail) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE p_size = v.x AND l_suppkey < v.x * 5) s');

-- errors: an overflow in a clause raises PostgreSQL's error either way
SELECT aj_error('SELECT count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND p_size * 2000000000 > l_suppkey');

-- more inner rows than work_mem x hash_mem_multiplier hold: the planner
-- declines (the executor would raise an error past them)
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT aj_error('SELECT count(*), sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey');
RESET work_mem;
RESET hash_mem_multiplier;

-- an inner side that outgrows them at run time (its statistics say 50 rows,
-- it holds 40 050): a serial node splits its rows into batches and walks
-- the outer pages once a batch; every pair folded once, in its batch's pass
CREATE TABLE ja_grow (g_partkey int, g_tag text, g_m int) WITH (autovacuum_enabled = off);
INSERT INTO ja_grow SELECT i, 'tag ' || i, i % 13 FROM generate_series(1, 50) i;
ANALYZE ja_grow;
INSERT INTO ja_grow SELECT i % 3000, repeat('g', 30), i % 7 FROM generate_series(1, 40000) i;
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SET gpuhash.dimension_pages = off;
SELECT * FROM ja_check('SELECT l_suppkey, count(*), sum(l_quantity), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey GROUP BY l_suppkey');
SELECT * FROM ja_check('SELECT count(*), sum(g_m), sum(l_quantity) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey');
SELECT * FROM ja_figures('SELECT count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey');
-- the same in parallel, each participant with a dimension of its own: it
-- splits its rows likewise and walks again the blocks it was handed
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET gpuhash.shared_dimension = off;
SELECT * FROM ja_check('SELECT l_suppkey, count(*), sum(l_quantity), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey GROUP BY l_suppkey');
SELECT * FROM ja_check('SELECT count(*), sum(g_m), avg(l_quantity) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey WHERE l_quantity > 10');
SELECT l FROM ja_figures('SELECT count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey') l
WHERE l ~ '^(GPU Join|Inner Batches)';
-- groups resident in the service add up across the passes, read at the end
SELECT l FROM ja_figures('SELECT l_suppkey, count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey GROUP BY l_suppkey') l
WHERE l ~ '^(Inner Batches|Resident Groups|Groups Returned)';
SET max_parallel_workers_per_gather = 0;
SELECT l FROM ja_figures('SELECT l_suppkey, count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey GROUP BY l_suppkey') l
WHERE l ~ '^(Inner Batches|Resident Groups|Groups Returned)';
SET max_parallel_workers_per_gather = 2;
SELECT aj_plan_has('SELECT count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey',
                   '%Parallel Custom Scan (GpuPreAgg)%') AS parallel_preagg,
       aj_plan_has('SELECT count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey',
                   '%Dimension: shared%') AS shared;
-- one dimension shared by the participants: past the limit each
-- participant writes its further rows to a file, and then every one reads
-- all the rows into batches of its own
SET gpuhash.shared_dimension = on;
SELECT aj_plan_has('SELECT count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey',
                   '%Dimension: shared%') AS shared;
SELECT * FROM ja_check('SELECT l_suppkey, count(*), sum(l_quantity), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey GROUP BY l_suppkey');
SELECT * FROM ja_check('SELECT count(*), sum(g_m), avg(l_quantity) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey WHERE l_quantity > 10');
SELECT l FROM ja_figures('SELECT count(*), sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey') l
WHERE l ~ '^(GPU Join|Inner Batches)';
RESET gpuhash.shared_dimension;
RESET max_parallel_workers_per_gather;
-- a rescan (a subplan's) collects and splits its inner rows again, its
-- batches from the previous scan gone
SET work_mem = '256kB';
SELECT * FROM ja_check('SELECT k, (SELECT sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey WHERE l_quantity > k) FROM generate_series(20, 21) k');
SELECT l FROM ja_figures('SELECT k, (SELECT sum(g_m) FROM ja_li JOIN ja_grow ON l_partkey = g_partkey WHERE l_quantity > k) FROM generate_series(20, 21) k') l
WHERE l ~ '^(Inner Rows|Inner Batches)';
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpuhash.dimension_pages;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE ja_grow;

-- one key's rows beyond the limit at run time (statistics say 50 short
-- rows; 20 000 more of 40-byte pads share key 7, 1.7 MB of rows alone): no
-- doubling moves them apart, so their batch goes over the limit and the
-- batches double no more, as a hash join's
CREATE TABLE ja_skew (s_partkey int, s_m int, s_pad text) WITH (autovacuum_enabled = off);
INSERT INTO ja_skew SELECT i, i % 13, 'p' FROM generate_series(1, 50) i;
ANALYZE ja_skew;
INSERT INTO ja_skew SELECT 7, i % 5, repeat('s', 39) || i % 2 FROM generate_series(1, 20000) i;
INSERT INTO ja_skew SELECT 1000 + i % 900, i % 3, repeat('t', 40) FROM generate_series(1, 9000) i;
SET work_mem = '1MB';
SET hash_mem_multiplier = 1;
SET gpuhash.dimension_pages = off;
SELECT * FROM ja_check('SELECT s_pad, count(*), sum(l_quantity), sum(s_m) FROM ja_li JOIN ja_skew ON l_partkey = s_partkey GROUP BY s_pad');
SELECT * FROM ja_check('SELECT s_pad, l_suppkey, sum(s_m) FROM ja_li JOIN ja_skew ON l_partkey = s_partkey WHERE l_quantity > 10 GROUP BY s_pad, l_suppkey');
SELECT l FROM ja_figures('SELECT s_pad, count(*) FROM ja_li JOIN ja_skew ON l_partkey = s_partkey GROUP BY s_pad') l
WHERE l ~ '^(GPU Join|Inner Rows|Inner Batches)';
RESET gpuhash.dimension_pages;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE ja_skew;

-- parallel plans: every participant runs the inner side and builds its
-- dimension; the Finalize Aggregate above the Gather combines
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM ja_check('SELECT p_brand, count(*), sum(l_quantity), avg(p_size), max(p_date) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM ja_check($$
  SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
         / sum(l_extendedprice * (1 - l_discount))
  FROM ja_li, ja_part WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01' $$);
SELECT * FROM ja_check('SELECT s_nation, count(*), sum(l_quantity) FROM ja_li, ja_part, ja_supp WHERE l_partkey = p_partkey AND p_suppkey = s_suppkey GROUP BY s_nation');
SELECT * FROM ja_check('SELECT count(*), sum(l_quantity) FROM ja_li JOIN ja_empty ON l_partkey = p_partkey');
SELECT * FROM ja_check('SELECT k, (SELECT sum(l_quantity) FROM ja_li JOIN ja_part ON l_partkey = p_partkey WHERE p_size = k) FROM generate_series(0, 3) k');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- ---- The plans ----
SET gpuhash.gpu_aggregate = on;
SET gpuhash.gpu_aggregate_join = on;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
SET gpuhash.page_cpu_cost = -1;
SET gpuhash.match_row_cost = 10;
SET gpuhash.page_match_cost = 10;
EXPLAIN (COSTS OFF)
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount))
FROM ja_li, ja_part
WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-10-01';
EXPLAIN (COSTS OFF)
SELECT p_brand, count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey AND p_date > l_shipdate
WHERE l_quantity < 20 GROUP BY p_brand;
-- in parallel: each participant's GpuPreAgg runs the inner plan whole
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF)
SELECT p_size, count(*), sum(l_quantity), avg(p_size), max(p_date)
FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_size;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- inner sides whose plan level setrefs removes or whose output it renames:
-- an aggregated subquery (a trivial subquery scan, its child's columns
-- then), a UNION ALL (an Append), a partitioned table of one partition (a
-- one-child Append) and of two; with rows, and empty
SELECT * FROM ja_check($$
  SELECT count(*), sum(s.n), min(l_quantity) FROM ja_li
  JOIN (SELECT p_size AS sz, count(*) AS n FROM ja_part GROUP BY p_size) s ON l_suppkey = s.sz$$);
SELECT * FROM ja_check($$
  SELECT s.sz, count(*), sum(s.n) FROM ja_li
  JOIN (SELECT p_size AS sz, count(*) AS n FROM ja_part GROUP BY p_size) s ON l_suppkey = s.sz AND l_partkey > s.n
  GROUP BY s.sz$$);
SELECT * FROM ja_check($$
  SELECT min(l_big), count(*), sum(s.n) FROM ja_li
  JOIN (SELECT p_size AS sz, count(*) AS n FROM ja_empty GROUP BY p_size) s ON l_suppkey = s.sz$$);
SELECT * FROM ja_check($$
  SELECT u.k % 7, count(*), sum(l_quantity), max(u.v) FROM ja_li
  JOIN (SELECT p_partkey AS k, p_size AS v FROM ja_part UNION ALL
        SELECT p_partkey + 1, p_size FROM ja_part WHERE p_size < 10) u ON l_partkey = u.k
  GROUP BY u.k % 7$$);
CREATE TABLE ja_pt (k int4, v int8) PARTITION BY RANGE (k);
CREATE TABLE ja_pt1 PARTITION OF ja_pt FOR VALUES FROM (0) TO (1000);
INSERT INTO ja_pt SELECT i, i * 3 FROM generate_series(0, 999) i;
ANALYZE ja_pt;
SELECT * FROM ja_check('SELECT count(*), sum(v), sum(l_quantity) FROM ja_li JOIN ja_pt ON l_partkey = k');
CREATE TABLE ja_pt2 PARTITION OF ja_pt FOR VALUES FROM (1000) TO (3000);
INSERT INTO ja_pt SELECT i, -i FROM generate_series(1000, 2999, 3) i;
ANALYZE ja_pt;
SELECT * FROM ja_check('SELECT v % 5, count(*), sum(v), sum(l_quantity) FROM ja_li JOIN ja_pt ON l_partkey = k GROUP BY v % 5');
DROP TABLE ja_pt;

SET max_parallel_workers_per_gather = 0;
-- ANALYZE's figures of the join (the dimension's bytes vary with the device)
SELECT ja_figures('SELECT p_size, count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_size');
-- group keys longer than their slots in the GPU's packed key (four text keys share
-- its 48 bytes): the pages that read one go to the CPU
SELECT ja_figures('SELECT p_brand, p_type, p_container, l_shipinstruct, count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_brand, p_type, p_container, l_shipinstruct');
-- JSON keeps the device the rows were folded on
CREATE FUNCTION ja_json(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  j json;
BEGIN
  PERFORM aj_on();
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO j;
  RETURN CASE WHEN j::text LIKE '%"Device"%' AND j::text LIKE '%"GPU Join"%' THEN 'Device and GPU Join'
              ELSE 'missing: ' || j::text END;
END $$;
SELECT ja_json('SELECT p_brand, count(*) FROM ja_li JOIN ja_part ON l_partkey = p_partkey GROUP BY p_brand');

RESET gpuhash.gpu_aggregate;
RESET gpuhash.setup_cost;
RESET gpuhash.min_gain;
RESET gpuhash.page_cpu_cost;
RESET gpuhash.match_row_cost;
RESET gpuhash.page_match_cost;
DROP TABLE ja_li, ja_part, ja_orders, ja_supp, ja_empty, ja_toast, ja_wide;
DROP FUNCTION ja_check(text);
DROP FUNCTION ja_figures(text);
DROP FUNCTION ja_json(text);
DROP FUNCTION aj_check(text, text), aj_error(text), aj_plan_has(text, text), aj_on(), aj_off(),
  aj_set(text, text);

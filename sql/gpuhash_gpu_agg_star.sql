--
-- The GPU aggregate over a star (GpuPreAgg with several dimensions): the
-- walked relation's pages joined on the device to two or more dimensions,
-- each by its own key over the walked relation's columns, the clauses
-- across dimensions run per combination.  Every query runs with
-- PostgreSQL's plans (off) and with the GPU aggregate steered on; the
-- results are compared as multisets of text rows, and st_check says whether
-- the plan on joined a star (EXPLAIN's "GPU Star Dimension 2").
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

\i sql/agg_join_helpers.inc

CREATE FUNCTION st_check(q text, OUT rows bigint, OUT same boolean, OUT star boolean)
LANGUAGE sql AS $$ SELECT * FROM aj_check(q, '%GPU Star Dimension 2%') $$;

-- the star's figures of q (steered on): its dimensions and where rows went
CREATE FUNCTION st_figures(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l ~ '(GPU Star|GPU Join Filter|GPU Declined|Dimension [0-9] Rows|Dimension [0-9] Batches|Rows Folded|Rows From CPU|Pages Refused)' THEN
      RETURN NEXT regexp_replace(l, '^ *', '');
    END IF;
  END LOOP;
END $$;

-- TPC-H's shape, small: lines (NULL part keys among them), orders (a NULL
-- key, keys no line has), customers, suppliers, parts (duplicate keys:
-- fan-out), nations and regions.
CREATE TABLE st_region (r_regionkey int4, r_name text);
INSERT INTO st_region VALUES (0, 'AFRICA'), (1, 'AMERICA'), (2, 'ASIA'), (3, 'EUROPE');
CREATE TABLE st_nation (n_nationkey int4, n_name text, n_regionkey int4);
INSERT INTO st_nation VALUES (0, 'ALGERIA', 0), (1, 'BRAZIL', 1), (2, 'CHINA', 2), (3, 'FRANCE', 3),
  (4, 'GERMANY', 3), (5, 'JAPAN', 2), (6, 'KENYA', 0), (7, 'PERU', 1), (8, 'INDIA', 2);
CREATE TABLE st_supp (s_suppkey int4, s_nationkey int4, s_acctbal numeric(12,2), s_name text);
INSERT INTO st_supp SELECT i, i % 9, i * 10.25, 'part ' || i FROM generate_series(0, 39) i;
CREATE TABLE st_cust (c_custkey int4, c_nationkey int4, c_mkt int4);
INSERT INTO st_cust SELECT i, (i * 7) % 9, i % 5 FROM generate_series(0, 299) i;
CREATE TABLE st_ord (o_orderkey int4, o_custkey int4, o_orderdate date, o_prio int4,
  o_total numeric(15,2));
INSERT INTO st_ord SELECT i, i % 300, date '1994-01-01' + i % 900, i % 5, i * 1.25
FROM generate_series(0, 5200) i;
INSERT INTO st_ord VALUES (NULL, 1, date '1994-01-01', 1, 1.00);
CREATE TABLE st_part (p_partkey int4, p_brand int4, p_size int4, p_retail numeric(15,4));
INSERT INTO st_part SELECT i, i % 7, i % 50, i / 3.0 FROM generate_series(0, 299) i;
INSERT INTO st_part SELECT i, 9, 1, 1.5 FROM generate_series(0, 299, 10) i;
CREATE TABLE st_li (l_orderkey int4, l_partkey int4, l_suppkey int4, l_quantity numeric(15,2),
  l_extendedprice numeric(15,2), l_discount numeric(15,2), l_shipdate date)
  WITH (autovacuum_enabled = off);
INSERT INTO st_li
SELECT i / 4, CASE WHEN i % 97 = 0 THEN NULL ELSE i % 300 END, i % 40, 1 + i % 50,
       (900 + i % 10000) * (1 + i % 50) / 100.0, (i % 11) / 100.0, date '1994-01-01' + i % 1000
FROM generate_series(1, 24000) i;
ANALYZE st_region, st_nation, st_supp, st_cust, st_ord, st_part, st_li;

-- two dimensions: orders and suppliers, no clause between them
SELECT * FROM st_check($$
SELECT o_prio, s_nationkey, count(*), sum(l_extendedprice * (1 - l_discount))
FROM st_li, st_ord, st_supp WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 $$);
SELECT * FROM st_figures($$
SELECT o_prio, s_nationkey, count(*), sum(l_extendedprice * (1 - l_discount))
FROM st_li, st_ord, st_supp WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 $$);

-- three dimensions, group keys and aggregates from each (numeric sums of
-- three scales), parts with duplicate keys (a line's combinations fan out),
-- NULL part keys on the lines
SELECT * FROM st_check($$
SELECT p_brand, s_nationkey, min(o_orderdate), sum(p_retail), sum(s_acctbal), sum(o_total),
       count(*), sum(l_quantity), avg(p_size)
FROM st_li, st_ord, st_supp, st_part
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND l_partkey = p_partkey
GROUP BY 1, 2 $$);

-- a plain aggregate (one group), and a group key of the walked relation
SELECT * FROM st_check($$
SELECT count(*), sum(l_quantity * p_retail), max(o_orderdate)
FROM st_li, st_ord, st_part WHERE l_orderkey = o_orderkey AND l_partkey = p_partkey $$);
SELECT * FROM st_check($$
SELECT l_suppkey, count(*), sum(p_size)
FROM st_li, st_supp, st_part WHERE l_suppkey = s_suppkey AND l_partkey = p_partkey
GROUP BY 1 $$);

-- clauses across dimensions: an inequality of two dimensions' columns, and
-- one over the walked relation and two dimensions
SELECT * FROM st_check($$
SELECT o_prio, count(*), sum(l_quantity)
FROM st_li, st_ord, st_supp, st_part
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND l_partkey = p_partkey
  AND o_custkey > s_nationkey * 30 AND p_size + o_prio < l_suppkey
GROUP BY 1 $$);
SELECT * FROM st_figures($$
SELECT o_prio, count(*), sum(l_quantity)
FROM st_li, st_ord, st_supp, st_part
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND l_partkey = p_partkey
  AND o_custkey > s_nationkey * 30 AND p_size + o_prio < l_suppkey
GROUP BY 1 $$);

-- an empty dimension
SELECT * FROM st_check($$
SELECT o_prio, count(*), sum(l_quantity)
FROM st_li, st_ord, st_supp
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND s_acctbal < 0
GROUP BY 1 $$);
SELECT * FROM st_check($$
SELECT count(*), sum(l_quantity)
FROM st_li, st_ord, st_supp
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND s_acctbal < 0 $$);

-- HAVING (pushed to the resident groups where it is over the lines' aggregates)
SELECT * FROM st_check($$
SELECT o_custkey, s_nationkey, sum(l_quantity), count(*)
FROM st_li, st_ord, st_supp WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 HAVING sum(l_quantity) > 60 $$);

-- TPC-H's local supplier volume: customers and suppliers of one nation, the
-- orders' dimension a join of orders and customers, the suppliers' one of
-- suppliers, nations and regions, c_nationkey = s_nationkey across them
SELECT * FROM st_check($$
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*)
FROM st_cust, st_ord, st_li, st_supp, st_nation, st_region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1995-06-01'
GROUP BY n_name $$);

-- TPC-H's volume shipping: two nations' pairs across the dimensions
SELECT * FROM st_check($$
SELECT n1.n_nationkey AS supp_nation, n2.n_nationkey AS cust_nation,
       sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*)
FROM st_supp, st_li, st_ord, st_cust, st_nation n1, st_nation n2
WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
  AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
  AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY')
       OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')
       OR (n1.n_name = 'CHINA' AND n2.n_name = 'JAPAN'))
  AND l_shipdate BETWEEN date '1994-06-01' AND date '1996-12-31'
GROUP BY 1, 2 $$);

-- group keys wider than a word: names as char(25) (TPC-H's n_name) and a
-- year column; the local supplier volume by the suppliers' nation name and
-- the orders' year (keys of two dimensions), the volume shipping by both
-- nations' names and the lines' year (keys of two dimensions and of R)
CREATE TABLE st_nation25 (n_nationkey int4, n_name char(25), n_regionkey int4);
INSERT INTO st_nation25
SELECT n_nationkey, CASE n_nationkey WHEN 8 THEN 'UNITED KINGDOM' ELSE n_name END, n_regionkey
FROM st_nation;
CREATE TABLE st_ord_y AS SELECT *, extract(year FROM o_orderdate)::int4 AS o_year FROM st_ord;
CREATE TABLE st_li_y WITH (autovacuum_enabled = off) AS
SELECT *, extract(year FROM l_shipdate)::int4 AS l_year FROM st_li;
ANALYZE st_nation25, st_ord_y, st_li_y;
SELECT * FROM st_check($$
SELECT n_name, o_year, sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*)
FROM st_cust, st_ord_y, st_li_y, st_supp, st_nation25, st_region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' AND o_orderdate >= date '1994-01-01' AND o_orderdate < date '1996-01-01'
GROUP BY n_name, o_year $$);
SELECT * FROM st_check($$
SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation, l_year,
       sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*)
FROM st_supp, st_li_y, st_ord, st_cust, st_nation25 n1, st_nation25 n2
WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
  AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
  AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY')
       OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')
       OR (n1.n_name = 'UNITED KINGDOM' AND n2.n_name = 'JAPAN'))
  AND l_shipdate BETWEEN date '1994-06-01' AND date '1996-12-31'
GROUP BY 1, 2, 3 $$);
SELECT * FROM st_figures($$
SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation, l_year,
       sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*)
FROM st_supp, st_li_y, st_ord, st_cust, st_nation25 n1, st_nation25 n2
WHERE s_suppkey = l_suppkey AND o_orderkey = l_orderkey AND c_custkey = o_custkey
  AND s_nationkey = n1.n_nationkey AND c_nationkey = n2.n_nationkey
  AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY')
       OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE')
       OR (n1.n_name = 'UNITED KINGDOM' AND n2.n_name = 'JAPAN'))
  AND l_shipdate BETWEEN date '1994-06-01' AND date '1996-12-31'
GROUP BY 1, 2, 3 $$);
DROP TABLE st_nation25, st_ord_y, st_li_y;

-- TPC-H's product type profit: four dimensions, one keyed on two columns
-- (parts-suppliers), its equalities with the suppliers' dimension implied
-- by both keys (no clause across them)
CREATE TABLE st_ps (ps_partkey int4, ps_suppkey int4, ps_cost numeric(12,2));
INSERT INTO st_ps SELECT p, s, (p * 3 + s) / 7.0
FROM generate_series(0, 299) p, generate_series(0, 39) s WHERE (p + s) % 4 = 0;
ANALYZE st_ps;
SELECT * FROM st_check($$
SELECT n_name, count(*), sum(l_extendedprice * (1 - l_discount)), sum(ps_cost), min(o_orderdate)
FROM st_part, st_supp, st_li, st_ps, st_ord, st_nation
WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey
  AND p_partkey = l_partkey AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey
  AND p_size < 40
GROUP BY n_name $$);
SELECT * FROM st_figures($$
SELECT n_name, count(*), sum(l_extendedprice * (1 - l_discount)), sum(ps_cost), min(o_orderdate)
FROM st_part, st_supp, st_li, st_ps, st_ord, st_nation
WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey
  AND p_partkey = l_partkey AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey
  AND p_size < 40
GROUP BY n_name $$);

-- rescans: the aggregate in a subquery run once per outer row, and a cursor
SELECT * FROM st_check($$
SELECT g, (SELECT sum(l_quantity) + g FROM st_li, st_ord, st_supp
           WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND o_prio < g)
FROM generate_series(1, 3) g $$);
BEGIN;
SELECT aj_on();
DECLARE st_cur SCROLL CURSOR FOR
SELECT count(*), sum(l_quantity) FROM st_li, st_ord, st_supp
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey;
FETCH ALL st_cur;
FETCH FIRST st_cur;
CLOSE st_cur;
COMMIT;
SELECT count(*), sum(l_quantity) FROM st_li, st_ord, st_supp
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey;

-- refused pages: the walked relation's text compressed in place where a
-- clause across it and a dimension reads it (the CPU joins those pages'
-- rows over every dimension)
CREATE TABLE st_toast (k int4, k2 int4, v numeric(10,2), t text) WITH (autovacuum_enabled = off);
INSERT INTO st_toast SELECT i % 300, i % 40, i / 8.0,
  CASE WHEN i % 500 = 0 THEN repeat('part 3', 2000) ELSE 'part ' || (i % 37) END
FROM generate_series(1, 6000) i;
VACUUM (ANALYZE) st_toast;
SELECT * FROM st_check($$
SELECT p_brand, s_nationkey, count(*), sum(v), sum(p_retail)
FROM st_toast, st_part, st_supp WHERE k = p_partkey AND k2 = s_suppkey AND t <> s_name
GROUP BY 1, 2 $$);
SELECT * FROM st_figures($$
SELECT p_brand, s_nationkey, count(*), sum(v), sum(p_retail)
FROM st_toast, st_part, st_supp WHERE k = p_partkey AND k2 = s_suppkey AND t <> s_name
GROUP BY 1, 2 $$);
-- no clause reads the compressed text: the walker takes every page
SELECT * FROM st_check($$
SELECT count(*), sum(v), sum(p_retail)
FROM st_toast, st_part, st_supp WHERE k = p_partkey AND k2 = s_suppkey $$);

-- in parallel: a dimension per participant
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM st_check($$
SELECT o_prio, s_nationkey, count(*), sum(l_extendedprice * (1 - l_discount))
FROM st_li, st_ord, st_supp WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 $$);
SELECT * FROM st_check($$
SELECT p_brand, s_nationkey, min(o_orderdate), sum(p_retail), sum(s_acctbal), count(*)
FROM st_li, st_ord, st_supp, st_part
WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey AND l_partkey = p_partkey
  AND o_custkey <> s_nationkey * 30
GROUP BY 1, 2 $$);
-- (the join of the five other relations has a partial path, so one shared
-- dimension of it is the other way to run this one: off, for the star)
SET gpuhash.shared_dimension = off;
SELECT * FROM st_check($$
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue, count(*)
FROM st_cust, st_ord, st_li, st_supp, st_nation, st_region
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey AND n_regionkey = r_regionkey
  AND r_name = 'ASIA' GROUP BY n_name $$);
RESET gpuhash.shared_dimension;
SELECT * FROM st_check($$
SELECT o_custkey, s_nationkey, sum(l_quantity), count(*)
FROM st_li, st_ord, st_supp WHERE l_orderkey = o_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 HAVING sum(l_quantity) > 60 $$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- a dimension that outgrows work_mem x hash_mem_multiplier at run time (its
-- statistics say 50 rows, it holds 20 050): the dimension that holds most
-- goes to batches, the others stay, and the pages are walked once a batch,
-- serially and by each participant over the blocks it was handed
CREATE TABLE st_ord_grow (g_orderkey int4, g_prio int4) WITH (autovacuum_enabled = off);
INSERT INTO st_ord_grow SELECT i, i % 5 FROM generate_series(1, 50) i;
ANALYZE st_ord_grow;
INSERT INTO st_ord_grow SELECT i % 6000, i % 5 FROM generate_series(1, 20000) i;
SET work_mem = '256kB';
SET hash_mem_multiplier = 1;
SELECT * FROM st_check($$
SELECT g_prio, s_nationkey, count(*), sum(l_quantity), sum(s_acctbal)
FROM st_li, st_ord_grow, st_supp WHERE l_orderkey = g_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 $$);
SELECT l FROM st_figures($$
SELECT g_prio, s_nationkey, count(*), sum(l_quantity), sum(s_acctbal)
FROM st_li, st_ord_grow, st_supp WHERE l_orderkey = g_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 $$) l WHERE l ~ '(Rows|Batches)';
-- the growing dimension second: its batches, the first's rows kept; and a
-- subplan's rescans, each collecting and batching again
SELECT * FROM st_check($$
SELECT p_brand, count(*), sum(l_quantity), sum(g_prio)
FROM st_li, st_part, st_ord_grow WHERE l_orderkey = g_orderkey AND l_partkey = p_partkey
GROUP BY 1 $$);
SELECT l FROM st_figures($$
SELECT p_brand, count(*), sum(l_quantity), sum(g_prio)
FROM st_li, st_part, st_ord_grow WHERE l_orderkey = g_orderkey AND l_partkey = p_partkey
GROUP BY 1 $$) l WHERE l ~ '(Rows|Batches)';
SELECT * FROM st_check($$
SELECT k, (SELECT sum(g_prio) FROM st_li, st_part, st_ord_grow
           WHERE l_orderkey = g_orderkey AND l_partkey = p_partkey AND p_size > k)
FROM generate_series(10, 11) k $$);
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM st_check($$
SELECT g_prio, s_nationkey, count(*), sum(l_quantity), sum(s_acctbal)
FROM st_li, st_ord_grow, st_supp WHERE l_orderkey = g_orderkey AND l_suppkey = s_suppkey
GROUP BY 1, 2 $$);
SELECT * FROM st_check($$
SELECT count(*), sum(l_extendedprice), sum(p_retail)
FROM st_li, st_ord_grow, st_part WHERE l_orderkey = g_orderkey AND l_partkey = p_partkey $$);
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE st_ord_grow;

-- integer arithmetic in the arguments, as the Star Schema Benchmark sums
-- lo_revenue - lo_supplycost over four dimensions and lo_extendedprice *
-- lo_discount over one, NULL operands among them; a product outside int4
-- is PostgreSQL's own error
CREATE TABLE st_lo (lo_custkey int4, lo_partkey int4, lo_suppkey int4, lo_orderdate int4,
  lo_revenue int4, lo_supplycost int4, lo_extendedprice int4, lo_discount int4, lo_big int4)
  WITH (autovacuum_enabled = off);
INSERT INTO st_lo
SELECT i % 300, i % 300, i % 40, 19940101 + i % 28, 1000 + i % 9000, 500 + i % 700,
       CASE WHEN i % 101 = 0 THEN NULL ELSE 900 + i % 10000 END, i % 11, i * 70000
FROM generate_series(1, 24000) i;
CREATE TABLE st_date (d_datekey int4, d_year int4);
INSERT INTO st_date SELECT 19940101 + i, 1994 + i % 3 FROM generate_series(0, 27) i;
ANALYZE st_lo, st_date;
SELECT * FROM st_check($$
SELECT d_year, c_nationkey, sum(lo_revenue - lo_supplycost), count(*)
FROM st_lo, st_date, st_cust, st_supp, st_part
WHERE lo_orderdate = d_datekey AND lo_custkey = c_custkey AND lo_suppkey = s_suppkey
  AND lo_partkey = p_partkey AND p_brand < 5 AND s_nationkey < 6
GROUP BY 1, 2 $$);
SELECT * FROM aj_check($$
SELECT sum(lo_extendedprice * lo_discount), count(lo_extendedprice * lo_discount)
FROM st_lo, st_date
WHERE lo_orderdate = d_datekey AND d_year = 1995 AND lo_discount BETWEEN 1 AND 3 $$,
  '%GPU Join:%');
-- operands from both sides of the join
SELECT * FROM aj_check($$
SELECT d_year, sum(lo_discount * d_year), max(d_year - lo_discount) FROM st_lo, st_date
WHERE lo_orderdate = d_datekey GROUP BY 1 $$, '%GPU Join:%');
SELECT * FROM st_check($$
SELECT d_year, sum(lo_revenue - p_size), sum(s_suppkey * lo_discount)
FROM st_lo, st_date, st_supp, st_part
WHERE lo_orderdate = d_datekey AND lo_suppkey = s_suppkey AND lo_partkey = p_partkey
GROUP BY 1 $$);
SELECT aj_error($$
SELECT d_year, sum(lo_big * lo_discount) FROM st_lo, st_date
WHERE lo_orderdate = d_datekey GROUP BY 1 $$);
SELECT aj_error($$
SELECT d_year, c_nationkey, sum(lo_big * lo_discount)
FROM st_lo, st_date, st_cust, st_supp
WHERE lo_orderdate = d_datekey AND lo_custkey = c_custkey AND lo_suppkey = s_suppkey
GROUP BY 1, 2 $$);

-- an outer join in the query: no star
SELECT * FROM st_check($$
SELECT o_prio, count(*), sum(l_quantity)
FROM st_li JOIN st_ord ON l_orderkey = o_orderkey LEFT JOIN st_supp ON l_suppkey = s_suppkey
GROUP BY 1 $$);

DROP TABLE st_region, st_nation, st_supp, st_cust, st_ord, st_part, st_li, st_toast, st_ps, st_lo, st_date;

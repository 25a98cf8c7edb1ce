--
-- The GPU aggregate over a join in parallel, its dimension shared: the
-- participants read the inner side with its partial path and all probe one
-- dimension (src/agg/agg_join_par.c).  Each query runs all PostgreSQL's,
-- then with the GPU aggregate on; the results are compared as multisets of
-- text rows, and jp_check says whether the second plan shared its
-- dimension (EXPLAIN's "Dimension: shared").  The GPU join's matches are
-- dear here, so that the plans aggregate over the join rather than join on
-- the GPU (the join stays on: its hook records the joins).
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET work_mem = '64MB';

\i sql/agg_join_helpers.inc

-- q's plan with the GPU aggregate on: its joined GpuPreAgg's dimension,
-- 'shared' (EXPLAIN's "Dimension: shared"), 'per participant' (parallel) or
-- 'serial'; 'none' without one
CREATE FUNCTION jp_dim(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  l text;
  d text := 'none';
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l LIKE '%Dimension: shared%' THEN
      d := 'shared';
    ELSIF l LIKE '%Parallel Custom Scan (GpuPreAgg)%' THEN
      d := 'per participant';
    ELSIF l LIKE '%Custom Scan (GpuPreAgg)%' THEN
      d := 'serial';
    END IF;
  END LOOP;
  RETURN d;
END $$;

CREATE FUNCTION jp_check(q text, OUT rows bigint, OUT same boolean, OUT dim text)
LANGUAGE plpgsql AS $$
DECLARE
  bad bigint;
BEGIN
  PERFORM aj_off();
  EXECUTE 'CREATE TEMP TABLE jp_a AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM aj_on();
  EXECUTE 'CREATE TEMP TABLE jp_b AS SELECT r__::text AS t FROM (' || q || ') r__';
  SELECT count(*) INTO rows FROM jp_b;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM jp_a EXCEPT ALL SELECT * FROM jp_b) UNION ALL
    (SELECT * FROM jp_b EXCEPT ALL SELECT * FROM jp_a)) x;
  same := bad = 0;
  dim := jp_dim(q);
  DROP TABLE jp_a, jp_b;
END $$;

-- the service's dimensions (src/service/dim_selftest.c), after the sweep
CREATE FUNCTION gpuhash_dim_service_count() RETURNS int4
AS '$libdir/gpuhash', 'gpuhash_dim_service_count' LANGUAGE C;
CREATE FUNCTION jp_dims_become(n integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..500 LOOP
    IF gpuhash_dim_service_count() = n THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END $$;
SELECT jp_dims_become(0);

-- an outer side with NULL keys; an inner side with duplicate keys, keys no
-- line has and a NULL key
CREATE TABLE jp_li (l_partkey int4, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
  l_discount numeric(15,2), l_shipmode char(10), l_shipinstruct char(25), l_shipdate date)
  WITH (autovacuum_enabled = off);
INSERT INTO jp_li
SELECT CASE WHEN i % 97 = 0 THEN NULL ELSE i % 2100 END, 1 + i % 50,
       (900 + i % 10000) * (1 + i % 50) / 100.0, (i % 11) / 100.0,
       (ARRAY['AIR', 'AIR REG', 'MAIL', 'SHIP', 'TRUCK', 'RAIL', 'FOB'])[i % 7 + 1],
       (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[i % 4 + 1],
       date '1995-08-01' + i % 90
FROM generate_series(1, 30000) i;
CREATE TABLE jp_part (p_partkey int4, p_name text, p_brand char(10), p_type varchar(25),
  p_size int4, p_container char(10)) WITH (autovacuum_enabled = off);
INSERT INTO jp_part
SELECT i, 'part ' || (i % 37), 'Brand#' || (1 + i % 5) || (1 + i % 3),
       (ARRAY['PROMO BRUSHED', 'STANDARD POLISHED', 'PROMO ANODIZED', 'ECONOMY PLATED'])[i % 4 + 1],
       1 + i % 50, (ARRAY['SM CASE', 'SM BOX', 'MED BAG', 'MED BOX', 'LG CASE', 'LG PACK'])[i % 6 + 1]
FROM generate_series(1, 2000) i;
INSERT INTO jp_part VALUES
  (5, 'dup five', 'Brand#12', 'PROMO DUP', 3, 'SM CASE'),
  (5, 'dup five b', 'Brand#12', 'ECONOMY DUP', 7, 'SM BOX'),
  (7, NULL, NULL, NULL, NULL, NULL),
  (NULL, 'null key', 'Brand#12', 'PROMO NULL', 1, 'SM CASE');
-- an inner side past a staging chunk of the service (4 MB by default):
-- 160000 rows of a key and two values, joined by a larger outer side
CREATE TABLE jp_big (b_key int4, b_grp int4, b_val int8) WITH (autovacuum_enabled = off);
INSERT INTO jp_big SELECT i, i % 13, i * 7 FROM generate_series(1, 160000) i;
INSERT INTO jp_big SELECT i, 99, i FROM generate_series(1, 1000) i;
CREATE TABLE jp_lbig (k int4, q int4) WITH (autovacuum_enabled = off);
INSERT INTO jp_lbig SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i % 200000 END, i % 10
FROM generate_series(1, 400000) i;
CREATE TABLE jp_empty (LIKE jp_part);
-- refused pages: a text compressed in place where a clause reads it
CREATE TABLE jp_toast (k int4, v numeric(10,2), t text) WITH (autovacuum_enabled = off);
INSERT INTO jp_toast SELECT i % 2100, i / 8.0,
  CASE WHEN i % 50 = 0 THEN repeat('part 3', 2000) ELSE 'part ' || (i % 37) END
FROM generate_series(1, 8000) i;
VACUUM (ANALYZE) jp_li, jp_part, jp_big, jp_lbig, jp_empty, jp_toast;

-- the plan: the inner side's Parallel Seq Scan under the GpuPreAgg
BEGIN;
SELECT aj_on();
EXPLAIN (COSTS OFF)
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM jp_li, jp_part
WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
  AND l_shipdate < date '1995-09-01' + interval '1' month;
COMMIT;
-- gpuhash.shared_dimension off: no shared dimension (here a serial GpuPreAgg,
-- the inner side's cheapest path being a Gather)
SET gpuhash.shared_dimension = off;
SELECT jp_dim('SELECT p_brand, count(*) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_brand');
RESET gpuhash.shared_dimension;
SELECT jp_dim('SELECT p_brand, count(*) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_brand');

-- promotion effect: a CASE over the inner side's LIKE, numeric products
SELECT * FROM jp_check($$
  SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
         / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
  FROM jp_li, jp_part
  WHERE l_partkey = p_partkey AND l_shipdate >= date '1995-09-01'
    AND l_shipdate < date '1995-09-01' + interval '1' month $$);
-- discounted revenue: OR-ed join clauses over both sides
SELECT * FROM jp_check($$
  SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue
  FROM jp_li, jp_part
  WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12'
         AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
         AND l_quantity >= 1 AND l_quantity <= 1 + 10 AND p_size BETWEEN 1 AND 5
         AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
     OR (p_partkey = l_partkey AND p_brand = 'Brand#23'
         AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
         AND l_quantity >= 10 AND l_quantity <= 10 + 10 AND p_size BETWEEN 1 AND 10
         AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON') $$);
-- group keys of the inner side, duplicate and NULL keys on both sides
SELECT * FROM jp_check('SELECT p_brand, count(*), sum(l_quantity), avg(p_size) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM jp_check('SELECT p_name, count(*), sum(l_quantity) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_name');
SELECT * FROM jp_check('SELECT count(*), sum(l_quantity) FROM jp_li JOIN jp_part ON l_partkey = p_partkey WHERE p_partkey IN (5, 7)');
-- an empty inner side
SELECT * FROM jp_check('SELECT count(*), sum(l_quantity) FROM jp_li JOIN jp_empty ON l_partkey = p_partkey');
SELECT * FROM jp_check('SELECT count(*), sum(l_quantity) FROM jp_li JOIN jp_part ON l_partkey = p_partkey WHERE p_size < 0');
SELECT * FROM jp_check('SELECT p_size, count(*) FROM jp_li JOIN jp_part ON l_partkey = p_partkey WHERE p_size < 0 GROUP BY p_size');
-- an inner side past a staging chunk
SELECT * FROM jp_check('SELECT b_grp, count(*), sum(b_val), sum(q) FROM jp_lbig JOIN jp_big ON k = b_key GROUP BY b_grp');
-- refused pages joined on the CPU against every participant's rows
SELECT * FROM jp_check('SELECT p_size, count(*), sum(v) FROM jp_toast JOIN jp_part ON k = p_partkey AND t <> p_name GROUP BY p_size');
SELECT * FROM jp_check('SELECT count(*), sum(CASE WHEN t LIKE ''part 3%'' THEN v ELSE 0 END) FROM jp_toast JOIN jp_part ON k = p_partkey');
-- more workers; the leader not participating
SET max_parallel_workers_per_gather = 4;
SELECT * FROM jp_check('SELECT p_brand, count(*), sum(l_quantity) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_brand');
SET parallel_leader_participation = off;
SELECT * FROM jp_check('SELECT p_brand, count(*), sum(l_quantity) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_brand');
SELECT * FROM jp_check('SELECT b_grp, count(*), sum(b_val) FROM jp_lbig JOIN jp_big ON k = b_key GROUP BY b_grp');
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 2;

-- a rescan: the Gather on the inner side of a nested loop, run again for
-- each outer row (ReInitializeDSM: the dimension freed, the coordination
-- anew), as select_parallel.sql makes one
SET enable_material = off;
SELECT * FROM jp_check($$
  SELECT * FROM (SELECT count(*) AS n, sum(l_quantity) AS q
                 FROM jp_li JOIN jp_part ON l_partkey = p_partkey) ss
    RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true $$);
SELECT * FROM jp_check($$
  SELECT * FROM (SELECT b_grp, count(*) AS n, sum(b_val) AS q
                 FROM jp_lbig JOIN jp_big ON k = b_key GROUP BY b_grp) ss
    RIGHT JOIN (VALUES (1), (2)) v(x) ON x = b_grp $$);
BEGIN;
SELECT aj_on();
EXPLAIN (COSTS OFF)
  SELECT * FROM (SELECT count(*) AS n, sum(l_quantity) AS q
                 FROM jp_li JOIN jp_part ON l_partkey = p_partkey) ss
    RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true;
COMMIT;
RESET enable_material;

-- no GPU service: each participant builds its own copy from the shared rows
SET gpuhash.use_service = off;
SELECT * FROM jp_check('SELECT p_size, count(*), sum(l_quantity) FROM jp_li JOIN jp_part ON l_partkey = p_partkey GROUP BY p_size');
SELECT * FROM jp_check('SELECT p_size, count(*), sum(v) FROM jp_toast JOIN jp_part ON k = p_partkey AND t <> p_name GROUP BY p_size');
SET enable_material = off;
SELECT * FROM jp_check($$
  SELECT * FROM (SELECT count(*) AS n, sum(l_quantity) AS q
                 FROM jp_li JOIN jp_part ON l_partkey = p_partkey) ss
    RIGHT JOIN (VALUES (1), (2), (3)) v(x) ON true $$);
RESET enable_material;
RESET gpuhash.use_service;

-- an error in a participant mid-query (a division by zero in an
-- aggregate's argument, wherever it is evaluated): the dimension is freed
\set VERBOSITY terse
BEGIN;
SELECT aj_on();
SELECT p_size, sum(l_quantity / (p_size - 3)) FROM jp_li JOIN jp_part ON l_partkey = p_partkey
GROUP BY p_size;
ROLLBACK;
\set VERBOSITY default

-- no dimension left in the service
SELECT jp_dims_become(0);

RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;
DROP TABLE jp_li, jp_part, jp_big, jp_lbig, jp_empty, jp_toast;
DROP FUNCTION jp_check(text), jp_dim(text), jp_dims_become(integer),
  gpuhash_dim_service_count();
DROP FUNCTION aj_check(text, text), aj_error(text), aj_plan_has(text, text), aj_on(), aj_off(),
  aj_set(text, text);

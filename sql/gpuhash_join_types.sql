-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Join types: LEFT, RIGHT, FULL, SEMI (EXISTS, IN), ANTI (NOT EXISTS) and
-- semi joins whose subquery side is unique-ified.  Each with NULL keys on
-- either side, duplicates, empty sides, extra join clauses that reject hash
-- matches, disjoint keys, WHERE clauses above an outer join on its nullable
-- side, the corners of int8, int4 = int8 keys and outer joins inside bigger
-- join trees.  Then TPC-H shapes (Q4, Q13, Q18, Q21, Q22) on small tables.
--
SET client_min_messages = warning;

-- The shapes below were chosen for joins costed without the charge for
-- inner rows whose columns are kept (gpuhash.kept_row_cost, tested in
-- gpuhash_explain): it moves several of them to other build sides.
SET gpuhash.kept_row_cost = 0;
SET gpuhash.kept_join_row_cost = 0;

-- jt_a: keys 0..499 (0..99 match nothing in jt_b), duplicated, 20 NULL keys
CREATE TABLE jt_a (id int4, k int4, k8 int8, x int4, t text);
INSERT INTO jt_a SELECT g, g % 500, (g % 500)::int8 * 4294967311, g % 10, 'a' || g
FROM generate_series(1, 2000) g;
INSERT INTO jt_a SELECT 2000 + g, NULL, NULL, g % 10, 'anull' || g FROM generate_series(1, 20) g;
-- jt_b: keys 100..549 (500..549 match nothing in jt_a), duplicated, 10 NULL keys;
-- x is NULL on some matched rows so that "b.x IS NULL" is not only the null-extended rows
CREATE TABLE jt_b (id int4, k int4, k8 int8, x int4, t text);
INSERT INTO jt_b SELECT g, (g * 7) % 450 + 100, ((g * 7) % 450 + 100)::int8 * 4294967311,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g % 10 END, 'b' || g
FROM generate_series(1, 600) g;
INSERT INTO jt_b SELECT 600 + g, NULL, NULL, g % 10, 'bnull' || g FROM generate_series(1, 10) g;
-- keys disjoint from jt_a's
CREATE TABLE jt_far (id int4, k int4, x int4);
INSERT INTO jt_far SELECT g, 100000 + g % 300, g % 10 FROM generate_series(1, 400) g;
INSERT INTO jt_far VALUES (401, NULL, 1);
CREATE TABLE jt_empty (id int4, k int4, k8 int8, x int4, t text);
-- a third table for join trees
CREATE TABLE jt_c (id int4, k int4, tag text);
INSERT INTO jt_c SELECT g, g % 700, 'c' || g FROM generate_series(1, 1500) g;
-- the corners of int8, duplicated, and int4 keys to join with them
CREATE TABLE jt_c8 (tag text, c int8);
INSERT INTO jt_c8 VALUES ('zero', 0), ('zero2', 0), ('m1', -1), ('one', 1),
  ('max', 9223372036854775807), ('max2', 9223372036854775807),
  ('min', -9223372036854775808), ('min2', -9223372036854775808),
  ('2^32', 4294967296), ('int4max', 2147483647), ('int4min', -2147483648),
  ('only8', 123456789012), ('null', NULL), ('null2', NULL);
CREATE TABLE jt_d8 (tag text, c int8);
INSERT INTO jt_d8 VALUES ('z', 0), ('max', 9223372036854775807), ('min', -9223372036854775808),
  ('min again', -9223372036854775808), ('five', 5), ('minus max', -9223372036854775807), ('n', NULL);
CREATE TABLE jt_c4 (tag text, c int4);
INSERT INTO jt_c4 VALUES ('z', 0), ('z2', 0), ('m1', -1), ('max4', 2147483647), ('min4', -2147483648),
  ('seven', 7), ('n', NULL);
ANALYZE jt_a;
ANALYZE jt_b;
ANALYZE jt_far;
ANALYZE jt_empty;
ANALYZE jt_c;
ANALYZE jt_c8;
ANALYZE jt_d8;
ANALYZE jt_c4;

-- LEFT JOIN
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_b b LEFT JOIN jt_a a ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k8 = b.k8');
-- an empty inner side costs a nested loop the same: take it out of the race
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT a.id, e.id FROM jt_a a LEFT JOIN jt_empty e ON a.k = e.k');
RESET enable_nestloop;
SELECT * FROM gh_check('SELECT e.id, b.id FROM jt_empty e LEFT JOIN jt_b b ON e.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k AND b.id < 0');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k AND a.id > b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k AND (a.id + b.id) % 3 = 0');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k AND a.x < 3');
SELECT * FROM gh_check('SELECT a.id, f.id FROM jt_a a LEFT JOIN jt_far f ON a.k = f.k');
SELECT * FROM gh_check('SELECT a.id, b.id, b.x FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k WHERE b.x IS NULL');
SELECT * FROM gh_check('SELECT a.id, b.id, b.x FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k WHERE coalesce(b.x, 0) < 5');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k WHERE b.id IS NULL OR b.id % 2 = 0');
-- a strict WHERE on the nullable side makes it an inner join, b.k IS NULL an anti join
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k WHERE b.x < 5');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k WHERE b.k IS NULL');
SELECT * FROM gh_check('SELECT a.k, count(b.id), sum(b.x) FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k GROUP BY a.k');

-- RIGHT JOIN
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_b b RIGHT JOIN jt_a a ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, e.id FROM jt_a a RIGHT JOIN jt_empty e ON a.k = e.k');
-- an empty inner side costs a nested loop the same: take it out of the race
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT e.id, b.id FROM jt_empty e RIGHT JOIN jt_b b ON e.k = b.k');
RESET enable_nestloop;
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k AND a.id > b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k AND a.id % 4 = b.id % 4');
SELECT * FROM gh_check('SELECT f.id, b.id FROM jt_far f RIGHT JOIN jt_b b ON f.k = b.k');
SELECT * FROM gh_check('SELECT a.id, a.x, b.id FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k WHERE a.x IS NULL');
SELECT * FROM gh_check('SELECT a.id, a.x, b.id FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k WHERE coalesce(a.x, 0) < 5');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a RIGHT JOIN jt_b b ON a.k8 = b.k8 AND a.id < 1000');

-- FULL JOIN
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_b b FULL JOIN jt_a a ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k8 = b.k8');
SELECT * FROM gh_check('SELECT a.id, e.id FROM jt_a a FULL JOIN jt_empty e ON a.k = e.k');
SELECT * FROM gh_check('SELECT e.id, b.id FROM jt_empty e FULL JOIN jt_b b ON e.k = b.k');
SELECT * FROM gh_check('SELECT e.id, e2.id FROM jt_empty e FULL JOIN jt_empty e2 ON e.k = e2.k');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k AND a.id > b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k AND a.x = b.x');
SELECT * FROM gh_check('SELECT a.id, f.id FROM jt_a a FULL JOIN jt_far f ON a.k = f.k');
SELECT * FROM gh_check('SELECT a.id, b.id, b.x FROM jt_a a FULL JOIN jt_b b ON a.k = b.k WHERE b.x IS NULL');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k WHERE coalesce(b.x, 0) < 5 AND coalesce(a.x, 0) < 5');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k WHERE a.id IS NULL OR b.id IS NULL');
SELECT * FROM gh_check('SELECT coalesce(a.k, b.k), count(*) FROM jt_a a FULL JOIN jt_b b ON a.k = b.k GROUP BY 1');

-- SEMI: EXISTS and IN
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)');
SELECT * FROM gh_check('SELECT b.id FROM jt_b b WHERE EXISTS (SELECT 1 FROM jt_a a WHERE b.k = a.k)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k8 = a.k8)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k AND b.id < a.id)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k AND b.x = a.x)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_empty e WHERE e.k = a.k)');
SELECT * FROM gh_check('SELECT e.id FROM jt_empty e WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = e.k)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_far f WHERE f.k = a.k)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT b.k FROM jt_b b)');
SELECT * FROM gh_check('SELECT b.id FROM jt_b b WHERE b.k IN (SELECT a.k FROM jt_a a WHERE a.x < 2)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT e.k FROM jt_empty e)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE (a.k, a.x) IN (SELECT b.k, b.x FROM jt_b b)');
SELECT * FROM gh_check('SELECT e.id FROM jt_empty e WHERE e.k IN (SELECT b.k FROM jt_b b)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT f.k FROM jt_far f)');

-- SEMI with the subquery side unique-ified (duplicated keys, few distinct)
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT b.k FROM jt_b b WHERE b.x = 3)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT b.k % 120 FROM jt_b b)');
SELECT * FROM gh_check('SELECT c.id FROM jt_c c WHERE c.k IN (SELECT a.k FROM jt_a a WHERE a.id < 300)');
SELECT * FROM gh_check('SELECT a.id, a.t FROM jt_a a WHERE a.k8 IN (SELECT b.k8 FROM jt_b b WHERE b.id % 50 = 1)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT f.k - 99900 FROM jt_far f)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT f.k + 1 FROM jt_far f)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT e.k % 120 FROM jt_empty e)');
SELECT * FROM gh_check('SELECT e.id FROM jt_empty e WHERE e.k IN (SELECT b.k % 120 FROM jt_b b)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT b.k % 120 FROM jt_b b) AND a.id % 2 = 0');

-- ANTI: NOT EXISTS
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)');
SELECT * FROM gh_check('SELECT b.id FROM jt_b b WHERE NOT EXISTS (SELECT 1 FROM jt_a a WHERE b.k = a.k)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k8 = a.k8)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k AND b.id < a.id)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k AND b.x = a.x)');
-- an empty inner side costs a nested loop the same: take it out of the race
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_empty e WHERE e.k = a.k)');
RESET enable_nestloop;
SELECT * FROM gh_check('SELECT e.id FROM jt_empty e WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = e.k)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_far f WHERE f.k = a.k)');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k AND b.id < 0)');
-- NOT IN is no anti join (NULL semantics): a hashed SubPlan, checked all the same
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE a.k NOT IN (SELECT b.k FROM jt_b b WHERE b.k IS NOT NULL)');

-- the corners of int8, and int4 = int8 across widths
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c8 a LEFT JOIN jt_d8 b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c8 a RIGHT JOIN jt_d8 b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c8 a FULL JOIN jt_d8 b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag FROM jt_c8 a WHERE EXISTS (SELECT 1 FROM jt_d8 b WHERE a.c = b.c)');
SELECT * FROM gh_check('SELECT a.tag FROM jt_c8 a WHERE NOT EXISTS (SELECT 1 FROM jt_d8 b WHERE a.c = b.c)');
SELECT * FROM gh_check('SELECT a.tag FROM jt_c8 a WHERE a.c IN (SELECT b.c FROM jt_d8 b)');
SELECT * FROM gh_check('SELECT a.tag FROM jt_c8 a WHERE a.c IN (SELECT b.c + 0 FROM jt_d8 b)');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c8 a LEFT JOIN jt_c4 b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c4 b LEFT JOIN jt_c8 a ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c8 a RIGHT JOIN jt_c4 b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c4 b RIGHT JOIN jt_c8 a ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM jt_c8 a FULL JOIN jt_c4 b ON b.c = a.c');
SELECT * FROM gh_check('SELECT b.tag FROM jt_c4 b WHERE EXISTS (SELECT 1 FROM jt_c8 a WHERE a.c = b.c)');
SELECT * FROM gh_check('SELECT b.tag FROM jt_c4 b WHERE b.c IN (SELECT a.c FROM jt_c8 a)');
SELECT * FROM gh_check('SELECT a.tag FROM jt_c8 a WHERE a.c IN (SELECT b.c FROM jt_c4 b)');
SELECT * FROM gh_check('SELECT b.tag FROM jt_c4 b WHERE b.c IN (SELECT a.c * 1 FROM jt_c8 a)');
SELECT * FROM gh_check('SELECT b.tag FROM jt_c4 b WHERE NOT EXISTS (SELECT 1 FROM jt_c8 a WHERE a.c = b.c)');
SELECT * FROM gh_check('SELECT a.tag FROM jt_c8 a WHERE NOT EXISTS (SELECT 1 FROM jt_c4 b WHERE a.c = b.c)');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k8 / 4294967311');
SELECT * FROM gh_check('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k8 = b.k');
SELECT * FROM gh_check('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k8 / 4294967311)');
BEGIN;
SELECT gh_force_on();
SELECT a.tag, b.tag FROM jt_c8 a FULL JOIN jt_d8 b ON a.c = b.c ORDER BY a.c, a.tag, b.tag;
COMMIT;

-- outer joins inside bigger join trees
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k JOIN jt_c c ON c.id = a.id');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_c c JOIN jt_a a ON c.k = a.k LEFT JOIN jt_b b ON b.k = a.k AND b.x > c.id % 10');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_a a LEFT JOIN (jt_b b JOIN jt_c c ON c.k = b.k) ON a.k = b.k');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k LEFT JOIN jt_c c ON c.k = b.id');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k JOIN jt_c c ON c.id = b.id');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_c c JOIN jt_a a ON c.id = a.id RIGHT JOIN jt_b b ON a.k = b.k AND a.x < 5');
SELECT * FROM gh_check('SELECT a.id, b.id, c.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k FULL JOIN jt_c c ON c.k = coalesce(a.k, b.k)');
SELECT * FROM gh_check('SELECT c.id, a.id FROM jt_c c JOIN jt_a a ON a.id = c.id
                        WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)
                          AND NOT EXISTS (SELECT 1 FROM jt_far f WHERE f.k = c.k + 100000)');
SELECT * FROM gh_check('SELECT c.id, a.id FROM jt_c c JOIN jt_a a ON a.id = c.id
                        WHERE a.k IN (SELECT b.k % 120 FROM jt_b b) AND c.k IN (SELECT b.k FROM jt_b b)');
SELECT * FROM gh_check('SELECT a.id, x.cnt FROM jt_a a LEFT JOIN
                        (SELECT b.k, count(*) cnt FROM jt_b b JOIN jt_c c ON c.k = b.k GROUP BY b.k) x ON x.k = a.k');

-- plans
SELECT * FROM gh_explain('SELECT a.id, b.id FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k AND a.id > b.id');
SELECT * FROM gh_explain('SELECT a.id, b.id FROM jt_a a FULL JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_explain('SELECT a.id FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)');
SELECT * FROM gh_explain('SELECT a.id FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)');
SELECT * FROM gh_explain('SELECT a.id FROM jt_a a WHERE a.k IN (SELECT b.k FROM jt_b b WHERE b.x = 3)');

--
-- TPC-H shapes on small tables
--
CREATE TABLE jt_nation (n_nationkey int4, n_name text, n_regionkey int4, n_comment text);
INSERT INTO jt_nation
SELECT g, CASE g WHEN 20 THEN 'SAUDI ARABIA' ELSE 'NATION ' || g END, g % 5, 'nation comment ' || g
FROM generate_series(0, 24) g;
CREATE TABLE jt_supplier (s_suppkey int4, s_name text, s_nationkey int4, s_acctbal numeric(15,2), s_comment text);
INSERT INTO jt_supplier
SELECT g, 'Supplier#' || lpad(g::text, 4, '0'), CASE WHEN g % 4 = 0 THEN 20 ELSE g % 25 END,
       ((g * 7919) % 11000 - 1000) / 1.0, 'supplier comment ' || g
FROM generate_series(1, 40) g;
CREATE TABLE jt_customer (c_custkey int4, c_name text, c_nationkey int4, c_phone text,
                          c_acctbal numeric(15,2), c_mktsegment text, c_comment text);
INSERT INTO jt_customer
SELECT g, 'Customer#' || lpad(g::text, 5, '0'), g % 25,
       (10 + g % 25) || '-' || lpad(((g * 37) % 1000)::text, 3, '0') || '-' || lpad(((g * 91) % 1000)::text, 3, '0')
         || '-' || lpad(((g * 53) % 10000)::text, 4, '0'),
       ((g * 7907) % 11000 - 1000) / 1.0,
       (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'])[1 + g % 5],
       'customer comment ' || g
FROM generate_series(1, 300) g;
-- as in TPC-H, a third of the customers (custkey % 3 = 0) have no orders
CREATE TABLE jt_orders (o_orderkey int4, o_custkey int4, o_orderstatus char(1), o_totalprice numeric(15,2),
                        o_orderdate date, o_orderpriority text, o_comment text);
INSERT INTO jt_orders
SELECT g, c, (ARRAY['F', 'O', 'P'])[1 + g % 3], (g * 7717) % 400000 / 1.0 + 900,
       date '1993-01-01' + (g * 13) % 2000,
       (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[1 + (g * 7) % 5],
       CASE WHEN g % 7 = 0 THEN 'pending special deposits requests ' || g
            WHEN g % 11 = 0 THEN 'special requests, then ' || g
            ELSE 'regular order comment ' || g END
FROM (SELECT g, 1 + m + m / 2 AS c
      FROM (SELECT g, ((g::int8 * g * 7 + g * 3) % 1013) % 200 AS m FROM generate_series(1, 2000) g) y) x;
CREATE TABLE jt_lineitem (l_orderkey int4, l_partkey int4, l_suppkey int4, l_linenumber int4,
                          l_quantity numeric(15,2), l_extendedprice numeric(15,2),
                          l_shipdate date, l_commitdate date, l_receiptdate date, l_comment text);
-- h: a deterministic scramble of (order, line); about 30% of the lines arrive late
INSERT INTO jt_lineitem
SELECT o, (o * 13 + n * 7) % 500 + 1, h % 40 + 1, n,
       1 + (h / 3) % 50, (1 + (h / 3) % 50) * 1.5 * (1 + o % 100),
       d + 10, d + 30,
       d + 30 + CASE WHEN (h / 40) % 10 < 3 THEN 1 + (h / 400) % 10 ELSE -((h / 400) % 10) END,
       'lineitem comment ' || o || '/' || n
FROM (SELECT g AS o, date '1993-01-01' + (g * 13) % 2000 AS d FROM generate_series(1, 2000) g) ord,
     generate_series(1, 1 + (o * 5) % 6) n,
     LATERAL (SELECT ((o::int8 * 1103515245 + n::int8 * 907633409 + 12345) % 2147483648 / 65536)::int4 AS h) hh;
ANALYZE jt_nation;
ANALYZE jt_supplier;
ANALYZE jt_customer;
ANALYZE jt_orders;
ANALYZE jt_lineitem;

-- Q4: EXISTS semi join of orders with late lineitems
SELECT * FROM gh_check($$
  SELECT o_orderpriority, count(*) AS order_count FROM jt_orders
  WHERE o_orderdate >= date '1994-01-01' AND o_orderdate < date '1994-01-01' + interval '6 month'
    AND EXISTS (SELECT * FROM jt_lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
  GROUP BY o_orderpriority ORDER BY o_orderpriority$$);
SELECT * FROM gh_check($$
  SELECT o_orderkey FROM jt_orders
  WHERE EXISTS (SELECT * FROM jt_lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)$$);
SELECT * FROM gh_explain($$
  SELECT o_orderpriority, count(*) AS order_count FROM jt_orders
  WHERE o_orderdate >= date '1994-01-01' AND o_orderdate < date '1994-01-01' + interval '6 month'
    AND EXISTS (SELECT * FROM jt_lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
  GROUP BY o_orderpriority ORDER BY o_orderpriority$$);

-- Q13: customer LEFT JOIN orders with a NOT LIKE in the ON clause
SELECT * FROM gh_check($$
  SELECT c_count, count(*) AS custdist
  FROM (SELECT c_custkey, count(o_orderkey)
        FROM jt_customer LEFT OUTER JOIN jt_orders
          ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
        GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
  GROUP BY c_count ORDER BY custdist DESC, c_count DESC$$);
SELECT * FROM gh_check($$
  SELECT c_custkey, o_orderkey FROM jt_customer LEFT OUTER JOIN jt_orders
    ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'$$);
SELECT * FROM gh_explain($$
  SELECT c_count, count(*) AS custdist
  FROM (SELECT c_custkey, count(o_orderkey)
        FROM jt_customer LEFT OUTER JOIN jt_orders
          ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
        GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
  GROUP BY c_count ORDER BY custdist DESC, c_count DESC$$);

-- Q18: IN (SELECT ... GROUP BY ... HAVING)
SELECT * FROM gh_check($$
  SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
  FROM jt_customer, jt_orders, jt_lineitem
  WHERE o_orderkey IN (SELECT l_orderkey FROM jt_lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 150)
    AND c_custkey = o_custkey AND o_orderkey = l_orderkey
  GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
  ORDER BY o_totalprice DESC, o_orderdate, o_orderkey$$);
SELECT * FROM gh_explain($$
  SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
  FROM jt_customer, jt_orders, jt_lineitem
  WHERE o_orderkey IN (SELECT l_orderkey FROM jt_lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 150)
    AND c_custkey = o_custkey AND o_orderkey = l_orderkey
  GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
  ORDER BY o_totalprice DESC, o_orderdate, o_orderkey$$);

-- Q21: EXISTS and NOT EXISTS on lineitem with <> on the supplier
SELECT * FROM gh_check($$
  SELECT s_name, count(*) AS numwait
  FROM jt_supplier, jt_lineitem l1, jt_orders, jt_nation
  WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
    AND l1.l_receiptdate > l1.l_commitdate
    AND EXISTS (SELECT * FROM jt_lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
    AND NOT EXISTS (SELECT * FROM jt_lineitem l3
                    WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receiptdate > l3.l_commitdate)
    AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
  GROUP BY s_name ORDER BY numwait DESC, s_name$$);
SELECT * FROM gh_check($$
  SELECT l1.l_orderkey, l1.l_linenumber FROM jt_lineitem l1
  WHERE l1.l_receiptdate > l1.l_commitdate
    AND EXISTS (SELECT * FROM jt_lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
    AND NOT EXISTS (SELECT * FROM jt_lineitem l3
                    WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receiptdate > l3.l_commitdate)$$);
SELECT * FROM gh_explain($$
  SELECT s_name, count(*) AS numwait
  FROM jt_supplier, jt_lineitem l1, jt_orders, jt_nation
  WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
    AND l1.l_receiptdate > l1.l_commitdate
    AND EXISTS (SELECT * FROM jt_lineitem l2
                WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
    AND NOT EXISTS (SELECT * FROM jt_lineitem l3
                    WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                      AND l3.l_receiptdate > l3.l_commitdate)
    AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
  GROUP BY s_name ORDER BY numwait DESC, s_name$$);

-- Q22: NOT EXISTS orders, a substring IN list and an uncorrelated average
SELECT * FROM gh_check($$
  SELECT cntrycode, count(*) AS numcust, sum(c_acctbal) AS totacctbal
  FROM (SELECT substring(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal FROM jt_customer
        WHERE substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17')
          AND c_acctbal > (SELECT avg(c_acctbal) FROM jt_customer
                           WHERE c_acctbal > 0.00
                             AND substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17'))
          AND NOT EXISTS (SELECT * FROM jt_orders WHERE o_custkey = c_custkey)) AS custsale
  GROUP BY cntrycode ORDER BY cntrycode$$);
SELECT * FROM gh_check($$
  SELECT c_custkey, c_phone FROM jt_customer
  WHERE NOT EXISTS (SELECT * FROM jt_orders WHERE o_custkey = c_custkey)$$);
SELECT * FROM gh_explain($$
  SELECT cntrycode, count(*) AS numcust, sum(c_acctbal) AS totacctbal
  FROM (SELECT substring(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal FROM jt_customer
        WHERE substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17')
          AND c_acctbal > (SELECT avg(c_acctbal) FROM jt_customer
                           WHERE c_acctbal > 0.00
                             AND substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17'))
          AND NOT EXISTS (SELECT * FROM jt_orders WHERE o_custkey = c_custkey)) AS custsale
  GROUP BY cntrycode ORDER BY cntrycode$$);

-- the TPC-H answers themselves, with the GPU joins preferred
BEGIN;
SELECT gh_force_on();
SELECT c_count, count(*) AS custdist
FROM (SELECT c_custkey, count(o_orderkey)
      FROM jt_customer LEFT OUTER JOIN jt_orders
        ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
      GROUP BY c_custkey) AS c_orders (c_custkey, c_count)
GROUP BY c_count ORDER BY custdist DESC, c_count DESC;
SELECT s_name, count(*) AS numwait
FROM jt_supplier, jt_lineitem l1, jt_orders, jt_nation
WHERE s_suppkey = l1.l_suppkey AND o_orderkey = l1.l_orderkey AND o_orderstatus = 'F'
  AND l1.l_receiptdate > l1.l_commitdate
  AND EXISTS (SELECT * FROM jt_lineitem l2
              WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
  AND NOT EXISTS (SELECT * FROM jt_lineitem l3
                  WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                    AND l3.l_receiptdate > l3.l_commitdate)
  AND s_nationkey = n_nationkey AND n_name = 'SAUDI ARABIA'
GROUP BY s_name ORDER BY numwait DESC, s_name;
COMMIT;

-- count(*) over each join type: the parent reads no column of the joined
-- rows, so none is formed (executor.c); every match and every unmatched row
-- still counts, in hash batches and across rescans too
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a LEFT JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a RIGHT JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a FULL JOIN jt_b b ON a.k = b.k');
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a WHERE EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)');
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a WHERE NOT EXISTS (SELECT 1 FROM jt_b b WHERE b.k = a.k)');
SELECT * FROM gh_check('SELECT count(*) FROM jt_a a FULL JOIN jt_empty e ON a.k = e.k');
SELECT * FROM gh_check('SELECT count(*) FROM jt_empty e RIGHT JOIN jt_b b ON e.k = b.k');
SET work_mem = '64kB';
SELECT * FROM gh_check('SELECT count(*) FROM jt_c c FULL JOIN jt_a a ON c.k = a.k');
RESET work_mem;
SELECT * FROM gh_check('SELECT x.x, (SELECT count(*) FROM jt_a a FULL JOIN jt_b b ON a.k = b.k + x.x) FROM generate_series(0, 3) x');
-- an inner join's count(*) hands out its matches without the state
-- machine's turns (executor.c): 10^9 matches of one key are still
-- cancelled by a timeout (each row is a call through ExecCustomScan, which
-- checks for interrupts)
CREATE TABLE jt_one (k int4);
INSERT INTO jt_one SELECT 1 FROM generate_series(1, 31623);
ANALYZE jt_one;
BEGIN;
SELECT gh_force_on();
SET LOCAL max_parallel_workers_per_gather = 0;
SET LOCAL statement_timeout = '500ms';
SELECT count(*) FROM jt_one a JOIN jt_one b ON a.k = b.k;
ROLLBACK;
DROP TABLE jt_one;

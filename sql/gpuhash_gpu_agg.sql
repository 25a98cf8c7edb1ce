--
-- The GPU aggregate (GpuPreAgg, issue 55): partial aggregates computed over
-- an absorbed heap scan, finished by PostgreSQL's own Finalize Aggregate.
-- Every query runs with gpuhash.gpu_aggregate off and on; the results are
-- compared as multisets (as text, so display scales count), so that what
-- this file expects does not depend on the plan.  What may go wrong: each
-- aggregate and type, NULLs, empty input, one group and many, numeric
-- display scales, NaN and infinities, int8 sums past int8, avg of integers,
-- HAVING, grouping by expressions and GROUPING SETS (left to PostgreSQL),
-- FILTER and DISTINCT (left to PostgreSQL), parallel and serial plans,
-- rescans, TPC-H-shaped queries, MVCC on the page path.  The plans
-- themselves are shown in the last part.
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

-- set_config that does nothing where the setting does not exist (before
-- the GPU aggregate is built, both runs are PostgreSQL's)
CREATE FUNCTION ga_set(name text, val text, local boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config(name, val, local);
EXCEPTION WHEN OTHERS THEN
  NULL;
END $$;

-- q with the GPU aggregate off and on: same multiset of rows?
CREATE FUNCTION ga_check(q text, OUT rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  bad bigint;
BEGIN
  PERFORM ga_set('gpuhash.gpu_aggregate', 'off');
  EXECUTE 'CREATE TEMP TABLE ga_off AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM ga_set('gpuhash.gpu_aggregate', 'on');
  PERFORM ga_set('gpuhash.setup_cost', '0');
  PERFORM ga_set('gpuhash.min_gain', '0');
  EXECUTE 'CREATE TEMP TABLE ga_on AS SELECT r__::text AS t FROM (' || q || ') r__';
  SELECT count(*) INTO rows FROM ga_on;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM ga_off EXCEPT ALL SELECT * FROM ga_on) UNION ALL
    (SELECT * FROM ga_on EXCEPT ALL SELECT * FROM ga_off)) x;
  same := bad = 0;
  DROP TABLE ga_off, ga_on;
END $$;

-- q with the GPU aggregate off and on: the same error?
CREATE FUNCTION ga_error(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  e_off text;
  e_on text;
BEGIN
  BEGIN
    PERFORM ga_set('gpuhash.gpu_aggregate', 'off');
    EXECUTE q;
  EXCEPTION WHEN OTHERS THEN
    e_off := SQLERRM;
  END;
  BEGIN
    PERFORM ga_set('gpuhash.gpu_aggregate', 'on');
    PERFORM ga_set('gpuhash.setup_cost', '0');
    PERFORM ga_set('gpuhash.min_gain', '0');
    EXECUTE q;
  EXCEPTION WHEN OTHERS THEN
    e_on := SQLERRM;
  END;
  RETURN CASE WHEN e_off IS NOT DISTINCT FROM e_on THEN coalesce(e_on, 'no error')
              ELSE format('off: %s / on: %s', e_off, e_on) END;
END $$;

-- Every type an aggregate or a group key takes, with NULLs; float values
-- are binary fractions whose sums are exact in any order.
CREATE TABLE ga_t (
  g int4, g2 int2, g8 int8, gb bool, gd date, gc char(1), gs char(3), gt text,
  gv varchar(5), i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  n numeric(15,2), n4 numeric(12,4), nu numeric, d date, ts timestamp,
  tz timestamptz, tm time) WITH (autovacuum_enabled = off);
INSERT INTO ga_t
SELECT i % 7, (i % 5 - 2)::int2, i % 3 * 1000000000000, i % 2 = 0,
       date '2020-01-01' + i % 4, substr('ANR', i % 3 + 1, 1),
       (ARRAY['ab', 'ab ', 'b', 'abc', ''])[i % 5 + 1],
       (ARRAY['a', 'a ', 'b', '', ' ', 'long text value'])[i % 6 + 1],
       (ARRAY['x', 'x ', 'yy', 'zzzzz'])[i % 4 + 1],
       (i % 2001 - 1000)::int2, i * 7919 % 100003 - 50000, i::int8 * 1000003 - 5000000,
       (i % 16) / 4.0, (i % 1000) / 1024.0,
       ((i * 37) % 100000) / 100.0 - 300, ((i * 13) % 1000000) / 10000.0,
       CASE i % 3 WHEN 0 THEN 1.0 WHEN 1 THEN 1.00 ELSE i / 8.0 END,
       date '2000-01-01' + i % 3000, timestamp '2000-01-01' + i * interval '37 minutes',
       timestamptz '2000-01-01 00:00+00' + i * interval '41 minutes', time '00:00' + i * interval '7 seconds'
FROM generate_series(1, 20000) i;
-- NULLs in every column, in rows of their own and mixed
INSERT INTO ga_t (g, gc) VALUES (NULL, NULL), (1, NULL), (NULL, 'A');
UPDATE ga_t SET i4 = NULL, n = NULL, f8 = NULL, gt = NULL WHERE g8 = 0 AND i2 % 10 = 0;
CREATE TABLE ga_empty (LIKE ga_t);
VACUUM (ANALYZE) ga_t, ga_empty;

-- every aggregate, one group
SELECT * FROM ga_check($$
  SELECT count(*), count(i4), count(gt), sum(i2), sum(i4), sum(i8), sum(f4), sum(f8), sum(n), sum(n4),
         avg(i2), avg(i4), avg(i8), avg(f4), avg(f8), avg(n), avg(n4),
         min(i2), max(i2), min(i4), max(i4), min(i8), max(i8), min(f4), max(f4), min(f8), max(f8),
         min(n), max(n), min(d), max(d), min(ts), max(ts), min(tz), max(tz), min(tm), max(tm)
  FROM ga_t $$);
-- the same values, printed (GPU aggregate at its default)
SELECT count(*), count(i4), sum(i2), sum(i4), sum(i8), sum(f4), sum(f8), sum(n), sum(n4),
       avg(i2), avg(i4), avg(i8), avg(n), min(d), max(ts), max(tm)
FROM ga_t;
-- no rows: an empty relation, and quals no row passes
SELECT * FROM ga_check('SELECT count(*), count(i4), sum(i4), sum(i8), sum(n), avg(i4), avg(n), avg(f4), sum(f4), min(d), max(f8) FROM ga_empty');
SELECT * FROM ga_check('SELECT count(*), count(i4), sum(i4), sum(i8), sum(n), avg(i4), avg(n), min(d), max(f8) FROM ga_t WHERE g > 100');
SELECT * FROM ga_check('SELECT gc, count(*), sum(n) FROM ga_empty GROUP BY gc');
SELECT * FROM ga_check('SELECT gc, count(*), sum(n) FROM ga_t WHERE i4 > 1000000 GROUP BY gc');
-- every group key type, NULL keys grouping together
SELECT * FROM ga_check('SELECT g, count(*), sum(i4), avg(n), min(ts) FROM ga_t GROUP BY g');
SELECT * FROM ga_check('SELECT g2, count(*), sum(i8), max(f8) FROM ga_t GROUP BY g2');
SELECT * FROM ga_check('SELECT g8, count(*), sum(n), avg(i2) FROM ga_t GROUP BY g8');
SELECT * FROM ga_check('SELECT gb, count(*), sum(n4), min(d) FROM ga_t GROUP BY gb');
SELECT * FROM ga_check('SELECT gd, count(*), sum(i4), max(tz) FROM ga_t GROUP BY gd');
SELECT * FROM ga_check('SELECT gc, count(*), sum(n), avg(n) FROM ga_t GROUP BY gc');
-- char(3): 'ab' and 'ab ' are one group; text and varchar: two
SELECT * FROM ga_check('SELECT gs, count(*), sum(i4) FROM ga_t GROUP BY gs');
SELECT gs, length(gs), octet_length(gs), count(*) FROM ga_t GROUP BY gs ORDER BY gs;
SELECT * FROM ga_check('SELECT gt, count(*), sum(i4) FROM ga_t GROUP BY gt');
SELECT gt, length(gt), count(*) FROM ga_t GROUP BY gt ORDER BY gt;
SELECT * FROM ga_check('SELECT gv, count(*), sum(i4) FROM ga_t GROUP BY gv');
-- several keys packed together
SELECT * FROM ga_check('SELECT gc, gb, g2, count(*), sum(n), avg(i4) FROM ga_t GROUP BY gc, gb, g2');
SELECT * FROM ga_check('SELECT g, gd, gc, count(*), sum(i8), min(f4) FROM ga_t GROUP BY gc, g, gd');
-- many groups
SELECT * FROM ga_check('SELECT i4, count(*), sum(n) FROM ga_t GROUP BY i4');
SELECT * FROM ga_check('SELECT i8, count(*), sum(f8), avg(n4) FROM ga_t GROUP BY i8');
-- group columns not in the output, aggregates in expressions
SELECT * FROM ga_check('SELECT sum(n) * 2, count(*) + 1, coalesce(max(i4), -1) FROM ga_t GROUP BY g, gc');
-- HAVING
SELECT * FROM ga_check('SELECT gc, sum(n) FROM ga_t GROUP BY gc HAVING sum(n) > 0');
SELECT * FROM ga_check('SELECT g, count(*) FROM ga_t GROUP BY g HAVING count(*) > 2860 AND min(i2) < 0');
-- grouping by expressions and GROUPING SETS (left to PostgreSQL)
SELECT * FROM ga_check('SELECT g % 3, sum(n), count(*) FROM ga_t GROUP BY g % 3');
SELECT * FROM ga_check('SELECT gt || ''.'', sum(i4) FROM ga_t GROUP BY gt || ''.''');
SELECT * FROM ga_check('SELECT gc, gb, sum(n), count(*) FROM ga_t GROUP BY GROUPING SETS ((gc), (gb), ())');
SELECT * FROM ga_check('SELECT gc, g, sum(i4) FROM ga_t GROUP BY ROLLUP (gc, g)');
-- FILTER, DISTINCT, ORDER BY in the aggregate (left to PostgreSQL), beside others
SELECT * FROM ga_check('SELECT gc, sum(i4) FILTER (WHERE g > 3), count(DISTINCT g), sum(n), string_agg(gv, '','' ORDER BY i4, i8) FROM ga_t GROUP BY gc');
-- numeric display scales: 1.0 + 1.00 is 2.00; NaN and infinities
SELECT * FROM ga_check('SELECT g, sum(nu), avg(nu), min(nu), max(nu) FROM ga_t GROUP BY g');
SELECT sum(nu), avg(nu), min(nu), max(nu) FROM ga_t WHERE i4 % 3 = 0 AND nu < 2;
CREATE TABLE ga_special (k int, n numeric(10,2), nu numeric, f4 float4, f8 float8, i8 int8);
INSERT INTO ga_special VALUES
  (1, 1.5, 1.0, 1.5, 1.5, 9223372036854775807), (1, 'NaN', 1.00, 'NaN', 'NaN', 9223372036854775807),
  (2, 2.25, 'Infinity', 'Infinity', 'Infinity', -9223372036854775808), (2, -2.25, 2.125, 1, 1, -9223372036854775808),
  (3, NULL, '-Infinity', '-Infinity', '-Infinity', 5), (3, 3, 'Infinity', 'Infinity', 'Infinity', 7),
  (4, NULL, NULL, NULL, NULL, NULL), (5, 0.01, 0.000, -0.0, -0.0, 0);
SELECT * FROM ga_check('SELECT k, count(*), count(n), sum(n), avg(n), sum(nu), avg(nu), sum(f4), avg(f4), sum(f8), min(f8), max(f4), sum(i8), avg(i8) FROM ga_special GROUP BY k');
SELECT k, sum(n), avg(n), sum(nu), sum(f8), max(f4), sum(i8), avg(i8) FROM ga_special GROUP BY k ORDER BY k;
-- int8 sums past int8, avg of integers (numeric results)
SELECT * FROM ga_check('SELECT sum(i8), avg(i8), count(i8) FROM (SELECT i8 FROM ga_special) s');
SELECT * FROM ga_check('SELECT g, avg(i2), avg(i4), avg(i8) FROM ga_t GROUP BY g');
-- float overflow raises an error either way
CREATE TABLE ga_big (f4 float4, f8 float8);
INSERT INTO ga_big VALUES (3e38, 1e308), (3e38, 1e308);
SELECT ga_error('SELECT sum(f8) FROM ga_big');
SELECT ga_error('SELECT sum(f4) FROM ga_big');
SELECT * FROM ga_check('SELECT avg(f4), count(*) FROM ga_big');
-- float4 subnormals are kept as float4pl keeps them, one by one and summed
CREATE TABLE ga_tiny (k int, f4 float4);
INSERT INTO ga_tiny VALUES (1, 1e-40), (2, 1.5e-38), (2, -1e-38), (3, 1e-45), (3, 1e-45);
SELECT * FROM ga_check('SELECT k, sum(f4), count(*) FROM ga_tiny GROUP BY k');
SELECT k, sum(f4) FROM ga_tiny GROUP BY k ORDER BY k;

-- rescans: the aggregate under a correlated subquery
SELECT * FROM ga_check('SELECT k, (SELECT sum(n) FROM ga_t WHERE g = k), (SELECT count(*) FROM ga_t t WHERE t.gc = s.c) FROM generate_series(-1, 7) k, (VALUES (''A''), (''N''), (NULL)) s(c)');

-- TPC-H-shaped: pricing summary and forecast revenue over a lineitem-like table
CREATE TABLE ga_li (
  l_orderkey int8, l_quantity numeric(15,2), l_extendedprice numeric(15,2),
  l_discount numeric(15,2), l_tax numeric(15,2), l_returnflag char(1),
  l_linestatus char(1), l_shipdate date) WITH (autovacuum_enabled = off);
INSERT INTO ga_li
SELECT i / 4, 1 + i % 50, (900 + i % 100000) * (1 + i % 50) / 100.0, (i % 11) / 100.0, (i % 9) / 100.0,
       substr('ANR', i % 3 + 1, 1), substr('FO', i % 2 + 1, 1), date '1992-01-01' + i % 2500
FROM generate_series(1, 30000) i;
VACUUM (ANALYZE) ga_li;
SELECT * FROM ga_check($$
  SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
         sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
         sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
         avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc,
         count(*) AS count_order
  FROM ga_li WHERE l_shipdate <= date '1998-12-01' - interval '90' day
  GROUP BY l_returnflag, l_linestatus $$);
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc,
       count(*) AS count_order
FROM ga_li WHERE l_shipdate <= date '1998-12-01' - interval '90' day
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus;
SELECT * FROM ga_check($$
  SELECT sum(l_extendedprice * l_discount) AS revenue FROM ga_li
  WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year
    AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24 $$);
SELECT sum(l_extendedprice * l_discount) AS revenue FROM ga_li
WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1994-01-01' + interval '1' year
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24;
-- the charge's factors in other orders, and a product's NULL operands
SELECT * FROM ga_check('SELECT l_returnflag, sum((1 + l_tax) * (l_extendedprice * (1 - l_discount))), sum((1 - l_discount) * l_extendedprice) FROM ga_li GROUP BY l_returnflag');
SELECT * FROM ga_check('SELECT l_linestatus, sum(l_quantity * (1 - nullif(l_discount, 0.05))) FROM ga_li GROUP BY l_linestatus');
-- grouped by the order: many groups of four rows
SELECT * FROM ga_check('SELECT l_orderkey, sum(l_quantity), count(*) FROM ga_li GROUP BY l_orderkey');
SELECT * FROM ga_check('SELECT l_orderkey FROM ga_li GROUP BY l_orderkey HAVING sum(l_quantity) > 150');

-- parallel plans: the node's groups per participant, combined by the
-- Finalize Aggregate above the Gather
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM ga_check('SELECT count(*), sum(i4), sum(i8), sum(n), avg(n4), avg(i2), min(d), max(f8), sum(f4) FROM ga_t');
SELECT * FROM ga_check('SELECT gc, gb, count(*), sum(n), avg(i8), min(ts) FROM ga_t GROUP BY gc, gb');
SELECT * FROM ga_check('SELECT gt, count(*), sum(i4) FROM ga_t GROUP BY gt');
SELECT * FROM ga_check('SELECT i4, count(*), sum(n) FROM ga_t GROUP BY i4');
SELECT * FROM ga_check('SELECT count(*), sum(n) FROM ga_empty');
SELECT * FROM ga_check($$
  SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
         avg(l_discount), count(*)
  FROM ga_li WHERE l_shipdate <= date '1998-09-02' GROUP BY l_returnflag, l_linestatus $$);
SELECT * FROM ga_check('SELECT k, (SELECT sum(n) FROM ga_t WHERE g = k) FROM generate_series(-1, 7) k');
SELECT * FROM ga_check('SELECT g, sum(i4 * i2), avg(i8 - i4), count(i2 + g2) FROM ga_t GROUP BY g');
SELECT ga_error('SELECT gc, sum(i2 * i2) FROM ga_t GROUP BY gc');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- MVCC on the page path: the transaction's own deletes and updates (a row
-- updated then deleted), an aborted insert, pages not all-visible
CREATE TABLE ga_mv (k int, v numeric(10,2), c char(1)) WITH (autovacuum_enabled = off);
INSERT INTO ga_mv SELECT i, i / 4.0, substr('XYZ', i % 3 + 1, 1) FROM generate_series(1, 5000) i;
VACUUM (FREEZE) ga_mv;
SELECT * FROM ga_check('SELECT c, count(*), sum(v), min(k) FROM ga_mv GROUP BY c');
BEGIN;
DELETE FROM ga_mv WHERE k % 10 = 0;
UPDATE ga_mv SET v = v + 1 WHERE k % 10 = 1;
UPDATE ga_mv SET v = 0 WHERE k = 7;
DELETE FROM ga_mv WHERE k = 7;
SELECT * FROM ga_check('SELECT c, count(*), sum(v), min(k) FROM ga_mv GROUP BY c');
SELECT c, count(*), sum(v), min(k) FROM ga_mv GROUP BY c ORDER BY c;
COMMIT;
BEGIN;
INSERT INTO ga_mv SELECT i, 1000, 'W' FROM generate_series(1, 3000) i;
ROLLBACK;
SELECT * FROM ga_check('SELECT c, count(*), sum(v), min(k) FROM ga_mv GROUP BY c');
SELECT c, count(*), sum(v), min(k) FROM ga_mv GROUP BY c ORDER BY c;
BEGIN;
INSERT INTO ga_mv VALUES (-1, 5, 'X');
SELECT * FROM ga_check('SELECT c, count(*), sum(v), min(k) FROM ga_mv GROUP BY c');
ROLLBACK;
VACUUM ga_mv;
SELECT * FROM ga_check('SELECT count(*), sum(v) FROM ga_mv');

-- integer arithmetic in an argument: col + col2, col - col2, col * col2
-- over int2, int4 and int8, cross-type too, NULL operands, under every
-- aggregate; a result outside the operator's type raises PostgreSQL's own
-- error, under count() too
SELECT * FROM ga_check($$
  SELECT g, sum(i4 * i2), sum(i4 - i2), sum(i4 + i4), sum(i8 * i2), sum(i2 - i2), sum(i8 - i4),
         sum(i2 * g2), avg(i4 * i2), avg(i8 + i8), avg(i2 + g2), min(i4 - i2), max(i2 * i4),
         min(i8 * i2), count(i4 * i2), count(i2 + i2)
  FROM ga_t GROUP BY g $$);
SELECT * FROM ga_check('SELECT gc, sum(i4 * i2) FROM ga_t WHERE g > 100 GROUP BY gc');
SELECT sum(i4 * i2), sum(i8 - i4), avg(i4 + i2), min(i2 * g2) FROM ga_t;
SELECT ga_error('SELECT sum(i2 * i2) FROM ga_t');
SELECT ga_error('SELECT count(i4 * i4) FROM ga_t');
SELECT ga_error('SELECT g, sum(i8 * i8) FROM ga_t GROUP BY g');
SELECT ga_error('SELECT sum(i4 - i4) FROM ga_t');

-- ---- The plans (regenerate this part's expected output once GpuPreAgg is
-- ---- built: it shows where the node appears and what it folds) ----
SELECT ga_set('gpuhash.gpu_aggregate', 'on', false);
SELECT ga_set('gpuhash.setup_cost', '0', false);
SELECT ga_set('gpuhash.min_gain', '0', false);
EXPLAIN (COSTS OFF)
SELECT l_returnflag, l_linestatus, sum(l_quantity), sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)),
       avg(l_discount), count(*)
FROM ga_li WHERE l_shipdate <= date '1998-09-02' GROUP BY l_returnflag, l_linestatus;
EXPLAIN (COSTS OFF)
SELECT sum(l_extendedprice * l_discount) FROM ga_li
WHERE l_shipdate >= date '1994-01-01' AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24;
EXPLAIN (COSTS OFF) SELECT g, sum(i4 * i2), count(i8 - i4) FROM ga_t GROUP BY g;
-- declined: a FILTER, an unconstrained numeric, avg(float8)
EXPLAIN (COSTS OFF) SELECT gc, sum(i4) FILTER (WHERE g > 3) FROM ga_t GROUP BY gc;
EXPLAIN (COSTS OFF) SELECT sum(nu) FROM ga_t;
EXPLAIN (COSTS OFF) SELECT avg(f8) FROM ga_t;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT gc, gb, count(*), sum(n) FROM ga_t GROUP BY gc, gb;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

DROP TABLE ga_t, ga_empty, ga_special, ga_big, ga_li, ga_mv;
DROP FUNCTION ga_check(text);
DROP FUNCTION ga_error(text);
DROP FUNCTION ga_set(text, text, boolean);

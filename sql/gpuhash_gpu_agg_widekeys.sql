--
-- GpuPreAgg's wide group keys (cuda/gpuhash_agg.h): group columns whose
-- packed bits pass 64 are packed into GH_AGG_KEY_WORDS words, text and
-- char(n) columns into slots of their declared length (src/agg/agg_keys.c).
-- Every query runs natively, with the GPU aggregate, and with the GPU
-- aggregate and resident groups; the three must give the same multiset of
-- rows (as text).  wk_same says whether the plan folded in a GpuPreAgg and,
-- serially, whether pages were refused (a value longer than its slot: the
-- CPU reads that page, the result the same).  Over a join: the helpers of
-- the aggregate-over-a-join tests.
--
SET client_min_messages = warning;
SET gpuhash.device = host;
SET extra_float_digits = 0;
SET max_parallel_workers_per_gather = 0;

\i sql/agg_join_helpers.inc

CREATE FUNCTION wk_digest(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT count(*) || '' '' || md5(coalesce(string_agg(t::text, ''|'' ORDER BY t::text), '''')) FROM (%s) t', q) INTO r;
  RETURN r;
END $$;

-- native, GpuPreAgg, GpuPreAgg with resident groups: the same rows?
-- (GpuPreAgg): the plan folds on the GPU side; (refused): pages went to the CPU
CREATE FUNCTION wk_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE native text; plain text; res text; plan text := '';
  l text;
BEGIN
  SET LOCAL gpuhash.gpu_aggregate = off;
  native := wk_digest(q);
  SET LOCAL gpuhash.gpu_aggregate = on;
  SET LOCAL gpuhash.setup_cost = 0;
  SET LOCAL gpuhash.min_gain = 0;
  SET LOCAL gpuhash.resident_groups = off;
  plain := wk_digest(q);
  SET LOCAL gpuhash.resident_groups = on;
  res := wk_digest(q);
  FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
    IF l LIKE '%GpuPreAgg%' AND plan = '' THEN plan := ' (GpuPreAgg)'; END IF;
    IF l LIKE '%GPU Declined%' THEN plan := plan || ' (declined)'; END IF;
    IF l ~ 'Pages Refused: [1-9]' AND current_setting('max_parallel_workers_per_gather') = '0' THEN
      plan := plan || ' (refused)';
    END IF;
  END LOOP;
  RETURN CASE WHEN native = plain AND plain = res THEN 'same: ' || split_part(res, ' ', 1) || ' rows'
         ELSE 'DIFFERENT: native ' || native || ', without ' || plain || ', resident ' || res END || plan;
END $$;

-- text keys of every length up to a wide key's 48 bytes and one past it,
-- '' and NULL, trailing spaces (two groups in text, one in char(n))
CREATE TABLE wk_t (
  i int4, i4 int4, i8 int8, i8b int8, d date, sp int2, t text, c char(12),
  v varchar(20), n numeric(12,2), q int4, m int4, m8 int8, mt text)
  WITH (autovacuum_enabled = off);
INSERT INTO wk_t
SELECT i, CASE WHEN i % 101 = 0 THEN NULL ELSE i % 50 END,
       CASE WHEN i % 103 = 0 THEN NULL ELSE (i % 7) * 10000000000 - 30000000000 END,
       CASE WHEN i % 107 = 0 THEN NULL ELSE i % 11 - 5 END,
       CASE WHEN i % 109 = 0 THEN NULL ELSE date '1995-01-01' + i % 30 END,
       (i % 3)::int2,
       (ARRAY['', 'a', 'a ', 'abc', repeat('x', 47), repeat('y', 48), 'ünïcødé', NULL, ' '])[i % 9 + 1],
       (ARRAY['AB', 'AB  ', 'ABCDEFGHIJKL', NULL, '', 'é'])[i % 6 + 1],
       (ARRAY['varchar', 'varchar ', '', repeat('v', 20), NULL, 'ß'])[i % 6 + 1],
       (i % 1000) / 8.0, i % 5,
       i % 20000, (i % 20000)::int8 * 1000000007, 'group ' || (i % 20000)
FROM generate_series(1, 60000) i;
VACUUM ANALYZE wk_t;
-- the same with one text value a byte past the 48 (its page refused)
CREATE TABLE wk_long (LIKE wk_t) WITH (autovacuum_enabled = off);
INSERT INTO wk_long SELECT * FROM wk_t;
UPDATE wk_long SET t = repeat('z', 49) WHERE i = 30000;
VACUUM ANALYZE wk_long;

-- integer keys of 96, 128 and 192 bits; date and int
SELECT wk_same('SELECT i4, i8, count(*), sum(n) FROM wk_t GROUP BY i4, i8');
SELECT wk_same('SELECT i8, i8b, count(*), sum(q), min(d) FROM wk_t GROUP BY i8, i8b');
SELECT wk_same('SELECT i8, i8b, i4, d, count(*), sum(n), max(i) FROM wk_t GROUP BY i8, i8b, i4, d');
SELECT wk_same('SELECT d, i4, count(*), avg(n) FROM wk_t GROUP BY d, i4');
SELECT wk_same('SELECT d, i8, sp, count(*), sum(n) FROM wk_t GROUP BY d, i8, sp');
-- text alone: 48 bytes (47 and exactly 48 fit), then one byte longer
SELECT wk_same('SELECT t, count(*), sum(n) FROM wk_t GROUP BY t');
SELECT wk_same('SELECT t, count(*), sum(n) FROM wk_long GROUP BY t');
-- char(12) and varchar(20): their declared length in UTF8's bytes
SELECT wk_same('SELECT c, count(*), sum(q) FROM wk_t GROUP BY c');
SELECT wk_same('SELECT v, i4, count(*), sum(q) FROM wk_t GROUP BY v, i4');
-- two text keys share the 48 bytes: the longest values' pages refused
SELECT wk_same('SELECT t, c, count(*), sum(n) FROM wk_t GROUP BY t, c');
SELECT wk_same('SELECT c, v, i8, count(*), min(i) FROM wk_t GROUP BY c, v, i8');
-- trailing spaces: two text groups, one char(n) group
SELECT quote_literal(t), count(*) FROM wk_t WHERE t IN ('a', 'a ') GROUP BY t ORDER BY 1;
SELECT c, count(*) FROM wk_t WHERE c = 'AB' GROUP BY c;
SELECT wk_same('SELECT t, c, v, count(*) FROM wk_t WHERE t LIKE ''a%'' OR t = '''' GROUP BY t, c, v');
-- many groups (the resident set grows) with wide keys, and HAVING
SELECT wk_same('SELECT m, m8, count(*), sum(n) FROM wk_t GROUP BY m, m8');
SELECT wk_same('SELECT mt, m8, count(*), max(t) FROM wk_t GROUP BY mt, m8');
SELECT wk_same('SELECT i8, i8b, i4, count(*), sum(n) FROM wk_t GROUP BY i8, i8b, i4 HAVING count(*) > 5');
SELECT wk_same('SELECT mt, m8, sum(q) FROM wk_t GROUP BY mt, m8 HAVING sum(q) > 7');
SELECT wk_same('SELECT t, c, sum(q) FROM wk_t GROUP BY t, c HAVING sum(q) >= 2000');
SELECT wk_same('SELECT i, c, sum(q) FROM wk_t GROUP BY i, c HAVING min(d) < date ''1995-01-05''');

-- parallel: each participant's groups, combined
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT wk_same('SELECT i8, i8b, i4, d, count(*), sum(n) FROM wk_t GROUP BY i8, i8b, i4, d');
SELECT wk_same('SELECT t, c, count(*), sum(n) FROM wk_t GROUP BY t, c');
SELECT wk_same('SELECT t, count(*) FROM wk_long GROUP BY t');
SELECT wk_same('SELECT m, m8, count(*), sum(n) FROM wk_t GROUP BY m, m8');
SELECT wk_same('SELECT mt, m8, count(*) FROM wk_t GROUP BY mt, m8 HAVING count(*) > 2');
SELECT wk_same('SELECT i8, i8b, i4, count(*) FROM wk_t GROUP BY i8, i8b, i4 HAVING count(*) > 5');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- over a join (the joined GpuPreAgg): group keys of the inner side
CREATE TABLE wk_cust (c_custkey int4, c_name varchar(25), c_mktsegment char(10), c_nation char(25))
  WITH (autovacuum_enabled = off);
INSERT INTO wk_cust
SELECT i, 'Customer#' || lpad(i::text, 9, '0'),
       (ARRAY['BUILDING', 'AUTOMOBILE', 'MACHINERY', 'HOUSEHOLD', 'FURNITURE'])[i % 5 + 1],
       (ARRAY['ALGERIA', 'ARGENTINA', 'UNITED KINGDOM', 'UNITED STATES', NULL, ''])[i % 6 + 1]
FROM generate_series(1, 1500) i;
CREATE TABLE wk_ord (o_orderkey int8, o_custkey int4, o_orderdate date, o_shippriority int4,
                     o_totalprice numeric(15,2)) WITH (autovacuum_enabled = off);
INSERT INTO wk_ord
SELECT i, 1 + i % 1500, date '1992-01-01' + i % 2400, CASE WHEN i % 97 = 0 THEN NULL ELSE i % 2 END,
       (i % 50000) / 4.0
FROM generate_series(1, 15000) i;
CREATE TABLE wk_li (l_orderkey int8, l_extendedprice numeric(15,2), l_discount numeric(15,2),
                    l_shipdate date, l_returnflag char(1)) WITH (autovacuum_enabled = off);
INSERT INTO wk_li
SELECT 1 + i / 4 % 15000, (900 + i % 10000) / 10.0, (i % 11) / 100.0,
       date '1992-01-01' + i % 2500, substr('ANR', i % 3 + 1, 1)
FROM generate_series(1, 60000) i;
VACUUM ANALYZE wk_cust, wk_ord, wk_li;

-- the shipping-priority shape: (l_orderkey, o_orderdate, o_shippriority), 128 bits
SELECT * FROM aj_check($$
  SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
  FROM wk_ord, wk_li
  WHERE l_orderkey = o_orderkey AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
  GROUP BY l_orderkey, o_orderdate, o_shippriority $$, '%GPU Join:%');
-- the returned-items shape: (custkey, name, nation) of the inner side
SELECT * FROM aj_check($$
  SELECT c_custkey, c_name, c_nation, sum(o_totalprice), count(*)
  FROM wk_ord JOIN wk_cust ON o_custkey = c_custkey
  WHERE o_orderdate >= date '1993-10-01'
  GROUP BY c_custkey, c_name, c_nation $$, '%GPU Join:%');
SELECT * FROM aj_check($$
  SELECT c_nation, c_mktsegment, count(*), sum(o_totalprice)
  FROM wk_ord JOIN wk_cust ON o_custkey = c_custkey GROUP BY c_nation, c_mktsegment $$, '%GPU Join:%');
SELECT * FROM aj_check($$
  SELECT c_nation, o_orderdate, o_shippriority, count(*)
  FROM wk_ord JOIN wk_cust ON o_custkey = c_custkey
  GROUP BY c_nation, o_orderdate, o_shippriority HAVING count(*) > 1 $$, '%GPU Join:%');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM aj_check($$
  SELECT l_orderkey, o_orderdate, o_shippriority, sum(l_extendedprice * (1 - l_discount))
  FROM wk_ord, wk_li
  WHERE l_orderkey = o_orderkey AND o_orderdate < date '1995-03-15' AND l_shipdate > date '1995-03-15'
  GROUP BY l_orderkey, o_orderdate, o_shippriority $$, '%GPU Join:%');
SELECT * FROM aj_check($$
  SELECT c_custkey, c_nation, sum(o_totalprice)
  FROM wk_ord JOIN wk_cust ON o_custkey = c_custkey GROUP BY c_custkey, c_nation $$, '%GPU Join:%');
RESET max_parallel_workers_per_gather;

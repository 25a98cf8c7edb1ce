-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Rescans and parameters: join keys, join filters and pseudoconstant quals
-- that read a parameter of an outer query level (correlated subqueries,
-- LATERAL), which change between rescans of the same GpuHashJoin; the first
-- outer row read before the build; pseudoconstant quals gating the join.
--
SET client_min_messages = warning;
CREATE TABLE rs_p (id int4, d int4, s text);
INSERT INTO rs_p VALUES (1, 0, ''), (2, 1, 'x'), (3, 5, 'y'), (4, -3, ''), (5, NULL, NULL);
CREATE TABLE rs_a (k int4, t text, x int4);
CREATE TABLE rs_b (k int4, t text, x int4);
INSERT INTO rs_a SELECT g, 'v' || g, g % 4 FROM generate_series(1, 10) g;
INSERT INTO rs_b SELECT g, 'v' || g, g % 3 FROM generate_series(1, 10) g;
-- bigger sides for the key filter (an outer row it rules out is never probed)
CREATE TABLE rs_big (k int4);
INSERT INTO rs_big SELECT g FROM generate_series(1, 5000) g;
CREATE TABLE rs_small (k int4);
INSERT INTO rs_small SELECT g * 7 FROM generate_series(1, 300) g;
CREATE TABLE rs_empty (k int4);
ANALYZE rs_p;
ANALYZE rs_a;
ANALYZE rs_b;
ANALYZE rs_big;
ANALYZE rs_small;
ANALYZE rs_empty;
-- the joins below are small: keep nested loops out of the race
SET enable_nestloop = off;

-- the inner key reads the outer query's p.d: each rescan needs a new table
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k + p.d) FROM rs_p p');
SELECT * FROM gh_explain('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k + p.d) FROM rs_p p');
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k + p.d = b.k) FROM rs_p p');
-- LATERAL
SELECT * FROM gh_check('SELECT p.id, x.c FROM rs_p p, LATERAL (SELECT count(*) c FROM rs_a a JOIN rs_b b ON a.k = b.k + p.d) x');
SELECT * FROM gh_check('SELECT p.id, x.* FROM rs_p p, LATERAL (SELECT a.k, b.k FROM rs_a a JOIN rs_b b ON a.k = b.k * coalesce(p.d, 1)) x');
-- fingerprint keys (text) that read the parameter
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.t = b.t || p.s) FROM rs_p p');
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.t || p.s = b.t AND a.k = b.k) FROM rs_p p');
-- the join filter reads it
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k AND b.x > p.d) FROM rs_p p');
-- every join type
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a LEFT JOIN rs_b b ON a.k = b.k + p.d) FROM rs_p p');
SELECT * FROM gh_check('SELECT p.id, (SELECT count(b.k) FROM rs_a a RIGHT JOIN rs_b b ON a.k = b.k + p.d) FROM rs_p p');
SELECT * FROM gh_check('SELECT p.id, (SELECT count(a.k) + 100 * count(b.k) FROM rs_a a FULL JOIN rs_b b ON a.k = b.k + p.d) FROM rs_p p');
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a WHERE EXISTS (SELECT 1 FROM rs_b b WHERE a.k = b.k + p.d)) FROM rs_p p');
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a WHERE NOT EXISTS (SELECT 1 FROM rs_b b WHERE a.k = b.k + p.d)) FROM rs_p p');
-- the key filter is rebuilt with the table
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_big g JOIN rs_small s ON g.k = s.k + p.d) FROM rs_p p');
SET gpuhash.outer_filter = off;
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_big g JOIN rs_small s ON g.k = s.k + p.d) FROM rs_p p');
RESET gpuhash.outer_filter;
-- a parameter that only the outer side reads keeps the table
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_big g JOIN rs_small s ON g.k - p.d = s.k) FROM rs_p p');

-- an empty outer side: no table is built, so the inner keys' errors are not raised
SELECT * FROM gh_check($$SELECT count(*) FROM rs_empty e WHERE NOT EXISTS (SELECT 1 FROM rs_b b
  WHERE extract(epoch FROM timestamp 'infinity' - (timestamp '2000-01-01' + b.k * interval '1 day'))::int4 = e.k)$$);
SELECT * FROM gh_check($$SELECT count(*) FROM rs_empty e JOIN rs_b b
  ON extract(epoch FROM timestamp 'infinity' - (timestamp '2000-01-01' + b.k * interval '1 day'))::int4 = e.k$$);
-- ... while a right join still needs its inner rows
SELECT * FROM gh_check('SELECT count(*) FROM rs_empty e RIGHT JOIN rs_b b ON b.k = e.k');

-- pseudoconstant quals: the join gates itself, once per scan
SELECT * FROM gh_explain('SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k WHERE now() IS NULL');
SELECT * FROM gh_check('SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k WHERE now() IS NULL');
SELECT * FROM gh_check('SELECT a.k, b.k FROM rs_a a JOIN rs_b b ON a.k = b.k WHERE now() IS NOT NULL');
SELECT * FROM gh_check('SELECT a.k, b.k FROM rs_a a LEFT JOIN rs_b b ON a.k = b.k + 3 WHERE now() IS NOT NULL');
SELECT * FROM gh_check('SELECT a.k, b.k FROM rs_a a FULL JOIN rs_b b ON a.k = b.k + 3 WHERE now() IS NULL');
-- a gate that reads an outer parameter: evaluated again at each rescan
SELECT * FROM gh_check('SELECT p.id, (SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k WHERE p.d > 0) FROM rs_p p');
-- a generic plan's parameter (gh_force_on's settings last for its transaction)
BEGIN;
SELECT gh_force_on();
SET LOCAL plan_cache_mode = force_generic_plan;
PREPARE rs_q(int4) AS SELECT count(*) FROM rs_a a JOIN rs_b b ON a.k = b.k WHERE $1 IS NOT NULL;
SELECT * FROM gh_explain('EXECUTE rs_q(1)');
EXECUTE rs_q(1);
EXECUTE rs_q(NULL);
EXECUTE rs_q(2);
DEALLOCATE rs_q;
COMMIT;
RESET enable_nestloop;

-- a parallel GpuHashJoin (absorbed outer scan, inner HashAggregate without
-- parameters) under a nested loop: each rescan of its Gather reads the inner
-- side again (fuzzer seed 175: every scan after the first joined nothing)
CREATE TABLE rs_l (j jsonb);
INSERT INTO rs_l VALUES ('4'), ('{"a": 111}');
CREATE TABLE rs_d (i8 int8);
INSERT INTO rs_d VALUES (36);
CREATE TABLE rs_w (i8 int8, b bool, o oid, tx text, vc varchar(12), ch char(5), nu numeric,
  f4 float4, f8 float8, u uuid, iv interval, ar int4[], j jsonb);
INSERT INTO rs_w SELECT ((g * 17) % 5000)::int8 + CASE WHEN g % 13 = 0 THEN 4294967296 ELSE 0 END,
  g % 3 = 0, ((g * 11) % 5000)::oid, 'k' || ((g * 7) % 5000), ('k' || ((g * 7) % 5000))::varchar(12),
  ('k' || ((g * 7) % 5000))::char(5), round(((g * 7) % 5000)::numeric, g % 3),
  ((g * 7) % 5000)::float4, ((g * 7) % 5000)::float8,
  ('00000000-0000-0000-0000-' || lpad(to_hex(((g * 7) % 5000)), 12, '0'))::uuid,
  ((g * 7) % 5000) * interval '1 day', ARRAY[((g * 7) % 5000)], jsonb_build_object('a', ((g * 7) % 5000))
FROM generate_series(1, 50000) g;
ANALYZE rs_l;
ANALYZE rs_d;
ANALYZE rs_w;
SET enable_hashjoin = off;
SET enable_material = off;
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT count(*) FROM rs_l a1 LEFT JOIN (rs_w a2 JOIN (SELECT DISTINCT i8 AS o1 FROM rs_d) s4 ON a2.i8 = s4.o1) ON s4.o1 > 0', false);
RESET enable_hashjoin;
RESET enable_material;
RESET enable_nestloop;

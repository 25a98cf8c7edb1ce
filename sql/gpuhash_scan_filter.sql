-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- An absorbed scan's quals evaluated in place (scan_filter.c): comparisons
-- of int2, int4, int8, date, timestamp and timestamptz columns with
-- constants and with each other, date against timestamp, and NULL tests,
-- read from the heap tuple without deforming it.  What the tuple walk can
-- get wrong: columns behind short, long, compressed and TOASTed varlenas,
-- the NULL bitmap, dropped columns, columns added after the rows were
-- written (missing attributes), integer extremes and infinite dates.  Each
-- query with the GPU join off and forced on.
--
SET client_min_messages = warning;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;

-- how many of q's outer (and inner) scan clauses the join reads in place
CREATE FUNCTION sf_in_place(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (VERBOSE, FORMAT JSON, COSTS OFF) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  RETURN concat_ws(', ', 'outer ' || (n->>'Outer Filter In Place'),
                   'inner ' || (n->>'Inner Filter In Place'));
END;
$$;

CREATE TABLE sf_t (k int4, pre text, gone int4, num numeric, flag char(1), a int2, b int4,
                   c int8, d date, d2 date, ts timestamp, tz timestamptz, cmp text);
ALTER TABLE sf_t ALTER COLUMN pre SET STORAGE EXTERNAL;
INSERT INTO sf_t
SELECT g % 500,
       CASE WHEN g % 11 = 0 THEN NULL
            WHEN g % 97 = 0 THEN repeat('t', 3000)          -- TOASTed, out of line
            WHEN g % 5 = 0 THEN repeat('l', 200 + g % 50)  -- 4-byte header
            ELSE 'p' || g END,                            -- 1-byte header
       g, (g % 1000) / 7.0, CASE WHEN g % 2 = 0 THEN 'x' END,
       ((g * 37) % 65536 - 32768)::int2,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g * 7919 % 200003 - 100000 END,
       CASE g % 1000 WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807
                     WHEN 3 THEN 0 ELSE g::int8 * 1000003 - 10000000000 END,
       CASE g % 997 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity'::date
                    WHEN 2 THEN NULL ELSE date '2000-01-01' + g % 3000 END,
       date '2000-01-01' + g % 3000 + (g % 7 - 3),
       CASE g % 991 WHEN 0 THEN 'infinity'::timestamp WHEN 1 THEN '-infinity'::timestamp
                    ELSE timestamp '2000-01-01' + g * interval '37 minutes' END,
       timestamptz '2000-01-01 00:00+00' + g * interval '41 minutes',
       CASE WHEN g % 17 = 0 THEN repeat('c', 4000) END       -- compressed in line
FROM generate_series(1, 20000) g;
-- each integer's extremes; infinite dates and timestamps, and the last date,
-- beyond timestamp's range
INSERT INTO sf_t (k, a, b, c, d, d2, ts)
VALUES (1, 32767, 2147483647, 9223372036854775807, '2000-01-01', '2000-01-01', NULL),
       (2, -32768, -2147483648, -9223372036854775808, '2000-01-01', '2000-01-01', NULL),
       (3, 0, 0, 0, 'infinity', 'infinity', 'infinity'),
       (4, 0, 0, 0, '-infinity', '-infinity', '-infinity'),
       (5, 0, 0, 0, '5874897-12-31', '294276-12-31', '294276-12-31 23:59:59');
CREATE TABLE sf_i (k int4, w text, since date);
INSERT INTO sf_i SELECT g, 'w' || g, date '2000-01-01' + g * 5 FROM generate_series(0, 299) g;
INSERT INTO sf_i SELECT g, 'dup' || g, NULL FROM generate_series(0, 49) g;
ANALYZE sf_t;
ANALYZE sf_i;

-- dates behind varlenas and NULLs; date against timestamp (a date plus an interval)
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d BETWEEN date ''2001-01-01'' AND date ''2004-12-31''');
SELECT * FROM gh_check('SELECT t.k, t.d, i.w FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d BETWEEN date ''2001-01-01'' AND date ''2004-12-31''');
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= date ''2002-01-01'' AND t.d < date ''2002-01-01'' + interval ''1'' year');
SELECT * FROM gh_check('SELECT t.k, t.d, i.w FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= date ''2002-01-01'' AND t.d < date ''2002-01-01'' + interval ''1'' year');
SELECT * FROM gh_check('SELECT t.k, t.ts FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.ts >= date ''2000-06-01'' AND t.ts < date ''2000-09-01''');
SELECT * FROM gh_check('SELECT t.k, t.ts FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.ts > timestamp ''2000-06-01 12:34:56.789'' AND t.ts <= timestamp ''2000-07-01 01:00''');
SELECT * FROM gh_check('SELECT t.k, t.tz FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.tz > timestamptz ''2000-02-01 00:00+00'' AND t.tz <> timestamptz ''2000-02-03 00:00+00''');
-- two columns of the row; every operator
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < t.d2');
SELECT * FROM gh_check('SELECT t.k, t.d, t.d2 FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < t.d2');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d = t.d2');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d <> t.d2 AND t.d >= t.d2');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d <= t.d2 AND t.d > date ''2003-03-03''');
-- integers: extremes, cross types, the constant on the left
SELECT * FROM gh_check('SELECT t.k, t.a FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.a < 0 AND t.a >= -32768');
SELECT * FROM gh_check('SELECT t.k, t.a FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.a >= 32767');
SELECT * FROM gh_check('SELECT t.k, t.a FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.a <= -32768::int8');
SELECT * FROM gh_check('SELECT t.k, t.b FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b = 2147483647 OR t.b < -2147483647');
SELECT * FROM gh_check('SELECT t.k, t.b FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b > 50000::int8 AND t.b <= 30000::int2 * 3');
SELECT * FROM gh_check('SELECT t.k, t.a FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.a > -1000::int4 AND t.a < 2000::int8');
SELECT * FROM gh_check('SELECT t.k, t.c FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.c = -9223372036854775808 OR t.c = 9223372036854775807');
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.c <= 0 AND t.c > -9223372036854775808 AND t.c <> 0::int2');
SELECT * FROM gh_check('SELECT t.k, t.c FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.c <= 0 AND t.c > -9223372036854775808 AND t.c <> 0::int2');
SELECT * FROM gh_check('SELECT t.k, t.b FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE 5 < t.b AND 100 >= t.a');
SELECT * FROM gh_check('SELECT t.k, t.a, t.b FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b < t.a AND t.c > t.b');
-- NULL tests, a varlena column's too
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b IS NULL AND t.pre IS NOT NULL');
SELECT * FROM gh_check('SELECT t.k, t.pre FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b IS NULL AND t.pre IS NOT NULL');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d IS NULL OR t.b IS NULL');
SELECT * FROM gh_check('SELECT t.k, t.flag FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.flag IS NULL AND t.cmp IS NOT NULL');
-- infinite dates and timestamps, against dates and timestamps
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d > date ''2007-12-31''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < ''-infinity''::timestamp OR t.d <= timestamp ''2000-01-02''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= ''infinity''::timestamp');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < ''infinity''::date AND t.d > ''-infinity''::date');
SELECT * FROM gh_check('SELECT t.k, t.ts FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.ts >= ''infinity''::date OR t.ts < date ''2000-01-01''');
-- dates beyond timestamp's range compare without an error
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < timestamp ''294276-12-31 23:59:59''');
-- a date column against finite timestamp constants is compared as dates:
-- each operator, at a day's start and within a day, before 2000 too, each
-- bound's own day among the joined rows; infinite dates and the last date too
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= timestamp ''2003-01-05 00:00:00.000001'' AND t.d < timestamp ''2003-05-07''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= timestamp ''2003-01-05 00:00:00.000001'' AND t.d < timestamp ''2003-05-07''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d > timestamp ''2003-04-25'' AND t.d <= timestamp ''2003-12-31 23:59:59.999999''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d > timestamp ''2006-11-15 12:00''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d <= timestamp ''2000-01-05''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < timestamp ''2000-02-01 00:00:01''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d = timestamp ''2004-02-29''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d = timestamp ''2004-03-01 00:00:01''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= timestamp ''2008-03-01''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d <> timestamp ''2007-01-05'' AND t.d <> timestamp ''2007-01-06 06:00'' AND t.d > date ''2007-01-01''');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d >= timestamp ''1999-12-31 23:00'' AND t.d < timestamp ''2000-01-03 00:00:00.5''');
-- a clause not read in place first: the rest run after it, as a Seq Scan's
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.pre LIKE ''p1%'' AND t.b > 10');
SELECT * FROM gh_check('SELECT t.k, t.pre FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b > 10 AND t.pre LIKE ''p1%''');
SELECT * FROM gh_check('SELECT t.k, t.num FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d > date ''2002-01-01'' AND t.num > 100');
-- a parameter is not a constant: the outer query's value, per rescan
SELECT * FROM gh_check('SELECT p.x, (SELECT count(*) FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b > p.x AND t.a < 0)
                        FROM (VALUES (0), (-50000), (90000)) p(x)');
-- each join type, and the inner side's own filter
SELECT * FROM gh_check('SELECT t.k, i.w FROM sf_t t LEFT JOIN sf_i i ON t.k = i.k WHERE t.d < date ''2001-01-01''');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t WHERE EXISTS (SELECT 1 FROM sf_i i WHERE i.k = t.k) AND t.c > 0');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t WHERE NOT EXISTS (SELECT 1 FROM sf_i i WHERE i.k = t.k AND i.since > date ''2001-01-01'') AND t.c > 0');
SELECT * FROM gh_check('SELECT t.k, i.w FROM sf_t t FULL JOIN (SELECT * FROM sf_i WHERE since < date ''2002-06-01'') i ON t.k = i.k WHERE t.b IS NULL OR t.k IS NULL');
SELECT sf_in_place('SELECT t.k, i.w FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE i.since >= date ''2000-06-01'' AND t.a > 0');
SELECT * FROM gh_check('SELECT t.k, i.w FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE i.since >= date ''2000-06-01'' AND t.a > 0');

-- text and char(n) equality, IN lists: short, long, out-of-line (EXTERNAL)
-- and compressed values; char(n)'s trailing spaces; varchar through texteq
ALTER TABLE sf_t ADD COLUMN vc varchar(20), ADD COLUMN mode char(10);
UPDATE sf_t SET vc = CASE WHEN k % 7 = 0 THEN NULL ELSE 'v' || (k % 9) END,
                mode = (ARRAY['MAIL', 'SHIP', 'AIR', 'RAIL', 'TRUCK  X'])[1 + k % 5];
VACUUM ANALYZE sf_t;
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.flag = ''x'' AND t.mode IN (''MAIL'', ''SHIP'') AND t.vc <> ''v3''');
SELECT * FROM gh_check('SELECT t.k, t.mode, t.vc FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.flag = ''x'' AND t.mode IN (''MAIL'', ''SHIP'') AND t.vc <> ''v3''');
SELECT * FROM gh_check('SELECT t.k, t.mode FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.mode = ''AIR      ''');
SELECT * FROM gh_check('SELECT t.k, t.mode FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.mode IN (''TRUCK  X  '', ''AIR'')');
SELECT * FROM gh_check('SELECT t.k, t.mode FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.mode = ''RAIL   ''::char(7)');
SELECT * FROM gh_check('SELECT t.k, t.mode FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.mode <> ''TRUCK  X'' AND t.flag IS NULL');
SELECT * FROM gh_check('SELECT t.k, t.vc FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.vc IN (''v1'', NULL, ''v8'')');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE ''v2'' = t.vc');
SELECT * FROM gh_check('SELECT t.k, t.pre FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.pre = ''p1234'' OR t.pre = ''p17''');
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.pre = repeat(''t'', 3000)');
SELECT * FROM gh_check('SELECT t.k, md5(t.pre) FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.pre = repeat(''t'', 3000)');
SELECT * FROM gh_check('SELECT t.k, md5(t.pre) FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.pre <> repeat(''t'', 3000)');
SELECT * FROM gh_check('SELECT t.k, md5(t.pre) FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.pre IN (repeat(''t'', 3000), repeat(''l'', 220), ''p102'')');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.cmp = repeat(''c'', 4000) AND t.b > 0');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.cmp IN (repeat(''c'', 3999), repeat(''c'', 4000))');
-- integer and date IN lists, with a NULL element
SELECT * FROM gh_check('SELECT t.k, t.b FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.a IN (1, -1, 37, NULL, -32768)');
SELECT * FROM gh_check('SELECT t.k, t.c FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.c IN (0, 9223372036854775807, -9223372036854775808)');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d IN (date ''2000-01-05'', date ''2003-07-01'', ''infinity'')');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b IN (5, NULL) OR t.b IS NULL');
-- a nondeterministic collation compares more than bytes: not in place
CREATE COLLATION sf_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.vc = ''V1'' COLLATE sf_ci');
SELECT * FROM gh_check('SELECT t.k, t.vc FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.vc = ''V1'' COLLATE sf_ci');
SELECT * FROM gh_check('SELECT t.k, t.vc FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.vc = ''v1'' COLLATE "C"');
DROP COLLATION sf_ci;

-- fixed-width columns before the compared ones: at fixed offsets in a row
-- without NULLs, not in one with them
CREATE TABLE sf_f (k int4, x int4, y int4, d date, z int8);
INSERT INTO sf_f SELECT g % 400, CASE WHEN g % 3 = 0 THEN NULL ELSE g END, g * 11,
                        date '2000-01-01' + g % 900, CASE WHEN g % 4 = 0 THEN NULL ELSE g END
FROM generate_series(1, 10000) g;
ANALYZE sf_f;
SELECT sf_in_place('SELECT f.k FROM sf_f f JOIN sf_i i ON f.k = i.k WHERE f.d > date ''2001-01-01'' AND f.y < 90000');
SELECT * FROM gh_check('SELECT f.k, f.d FROM sf_f f JOIN sf_i i ON f.k = i.k WHERE f.d > date ''2001-01-01'' AND f.y < 90000');
SELECT * FROM gh_check('SELECT f.k, f.d FROM sf_f f JOIN sf_i i ON f.k = i.k WHERE f.d < date ''2000-03-01''');
SELECT * FROM gh_check('SELECT f.k, f.z FROM sf_f f JOIN sf_i i ON f.k = i.k WHERE f.z > 5000 AND f.x < 9000');
DROP TABLE sf_f;

-- a dropped column before the compared ones, and columns added with a
-- default after the rows were written: no value stored for them
ALTER TABLE sf_t DROP COLUMN gone;
ALTER TABLE sf_t ADD COLUMN e int4 DEFAULT 42;
ALTER TABLE sf_t ADD COLUMN e2 date DEFAULT '2001-01-01';
ALTER TABLE sf_t ADD COLUMN e3 int8;
INSERT INTO sf_t (k, pre, a, b, c, d, e, e2, e3)
SELECT g % 500, 'new' || g, g::int2, g, g, date '2001-01-01' + g, g % 50, date '2000-01-01' + g, g
FROM generate_series(1, 3000) g;
ANALYZE sf_t;
SELECT * FROM gh_check('SELECT t.k, t.e FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.e = 42');
SELECT * FROM gh_check('SELECT t.k, t.e2 FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.e2 < date ''2002-01-01'' AND t.e > 40');
SELECT * FROM gh_check('SELECT t.k, t.e3 FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.e3 IS NULL AND t.d > date ''2001-06-01''');
SELECT * FROM gh_check('SELECT t.k, t.e3 FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.e3 >= 2500 OR t.e3 IS NULL AND t.b < 0');
SELECT * FROM gh_check('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.b > t.e AND t.c < 10000');
-- earlier updates and deletes, an aborted insert
UPDATE sf_t SET d = d + 400 WHERE b % 3 = 0 AND d < date '3000-01-01';
DELETE FROM sf_t WHERE a % 5 = 0;
BEGIN;
INSERT INTO sf_t (k, d) SELECT g % 500, date '2003-01-01' FROM generate_series(1, 2000) g;
ROLLBACK;
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d BETWEEN date ''2002-06-01'' AND date ''2003-06-01''');

-- parallel: each participant filters its own blocks
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM gh_check('SELECT t.k, t.d, i.w FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < t.d2 AND t.c > 0');
SELECT * FROM gh_check('SELECT count(*), sum(t.b) FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.ts < date ''2000-10-01''');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;

-- switched off: the quals run as a Seq Scan's
SET gpuhash.scan_filter_in_place = off;
SELECT sf_in_place('SELECT t.k FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < t.d2');
SELECT * FROM gh_check('SELECT t.k, t.d FROM sf_t t JOIN sf_i i ON t.k = i.k WHERE t.d < t.d2');
RESET gpuhash.scan_filter_in_place;
DROP TABLE sf_t, sf_i;
DROP FUNCTION sf_in_place(text);

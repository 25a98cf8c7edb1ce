--
-- The page path of an absorbed outer scan (page_scan.c, issue 53): heap
-- pages go to the page walker, which deforms, filters, keys and probes them;
-- the CPU forms only the rows that join.  Every query runs natively, with
-- the GPU join and gpuhash.page_scan off (the tuple path), and with it on;
-- the three results are compared as multisets.  "pages" says how the page
-- path read the outer pages: all-visible ones as they are, others checked
-- by heapam's page-mode visibility, some refused by the walker and read by
-- the tuple path (a TOASTed value, a missing attribute by reference, an
-- overflow).  What may go wrong: every column type and qual form, NULLs,
-- MVCC (updates and deletes after the snapshot, aborted inserts, HOT
-- chains), TOAST, dropped and added columns, cursors, rescans, parallel
-- plans, outer joins, errors raised by quals.
--
SET client_min_messages = warning;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE EXTENSION IF NOT EXISTS pg_visibility;

-- q natively, on the tuple path and on the page path: same multiset?
CREATE FUNCTION ps_check(q text, OUT rows bigint, OUT same boolean, OUT pages text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
  bad bigint;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'CREATE TEMP TABLE ps_native AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_scan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE ps_tuples AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM set_config('gpuhash.page_scan', 'on', true);
  EXECUTE 'CREATE TEMP TABLE ps_pages AS SELECT r__::text AS t FROM (' || q || ') r__';
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  pages := CASE WHEN n IS NULL THEN 'no GPU join'
                WHEN coalesce((n->>'Pages All-Visible')::int, 0) +
                     coalesce((n->>'Pages Checked')::int, 0) = 0 THEN 'tuple path'
                ELSE concat_ws(', ',
                       CASE WHEN (n->>'Pages All-Visible')::int > 0 THEN 'all-visible' END,
                       CASE WHEN (n->>'Pages Checked')::int > 0 THEN 'checked' END,
                       CASE WHEN (n->>'Pages Refused')::int > 0 THEN 'refused' END) END;
  SELECT count(*) INTO rows FROM ps_pages;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM ps_native EXCEPT ALL SELECT * FROM ps_pages) UNION ALL
    (SELECT * FROM ps_pages EXCEPT ALL SELECT * FROM ps_native) UNION ALL
    (SELECT * FROM ps_tuples EXCEPT ALL SELECT * FROM ps_pages) UNION ALL
    (SELECT * FROM ps_pages EXCEPT ALL SELECT * FROM ps_tuples)) x;
  same := bad = 0;
  DROP TABLE ps_native, ps_tuples, ps_pages;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
END;
$$;

-- q natively, then with the GPU join forced and the page path off, then on
-- (the same error, or none, all three ways)
CREATE FUNCTION ps_error(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text := '';
  mode text;
BEGIN
  FOREACH mode IN ARRAY ARRAY['native', 'off', 'on'] LOOP
    IF mode = 'native' THEN
      PERFORM set_config('enable_gpuhashjoin', 'off', true);
    ELSE
      PERFORM gh_force_on();
      PERFORM set_config('gpuhash.page_scan', mode, true);
    END IF;
    BEGIN
      EXECUTE 'SELECT count(*) FROM (' || q || ') x';
      r := r || mode || ': no error; ';
    EXCEPTION WHEN OTHERS THEN
      r := r || mode || ': ' || SQLERRM || '; ';
    END;
  END LOOP;
  RETURN r;
END;
$$;

-- the GPU join's EXPLAIN lines about the outer scan's quals
CREATE FUNCTION ps_filters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM gh_force_on();
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ '(Outer Scan|Outer Filter|GPU Filter):' THEN
      RETURN NEXT btrim(l);
    END IF;
  END LOOP;
END;
$$;

CREATE TABLE ps_t (id int4, k int4, k8 int8, k2 int2, ko oid, kb bool,
                   a int2, b int4, c int8, o oid, flag bool, r4 float4, r8 float8,
                   n numeric, d date, tm time, ts timestamp, tz timestamptz,
                   s text, vc varchar(20), ch char(6), big text)
  WITH (fillfactor = 70, autovacuum_enabled = off);
ALTER TABLE ps_t ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO ps_t
SELECT g, g % 400, (g % 300)::int8 * 1000000007, (g % 200 - 100)::int2, (g % 50)::oid,
       g % 2 = 0,
       CASE WHEN g % 19 = 0 THEN NULL ELSE ((g * 37) % 65536 - 32768)::int2 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g * 7919 % 200003 - 100000 END,
       CASE g % 1000 WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807
                     ELSE g::int8 * 1000003 - 10000000000 END,
       (g * 7)::oid,
       CASE WHEN g % 7 = 0 THEN NULL ELSE g % 3 = 0 END,
       CASE g % 101 WHEN 0 THEN 'NaN'::float4 WHEN 1 THEN '-0'::float4 WHEN 2 THEN 'Infinity'
                    WHEN 3 THEN NULL ELSE (g % 1000) / 8.0 END,
       CASE g % 103 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-Infinity' WHEN 2 THEN 0
                    ELSE g / 3.0 END,
       CASE g % 107 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN NULL WHEN 2 THEN 'Infinity'
                    WHEN 3 THEN '-Infinity' WHEN 4 THEN 1e30
                    ELSE (g % 2000) / 7.0 - 100 END,
       CASE g % 997 WHEN 0 THEN 'infinity'::date WHEN 1 THEN '-infinity'::date
                    WHEN 2 THEN NULL ELSE date '2000-01-01' + g % 3000 END,
       time '00:00' + (g % 1440) * interval '1 minute',
       CASE g % 991 WHEN 0 THEN 'infinity'::timestamp
                    ELSE timestamp '2000-01-01' + g * interval '37 minutes' END,
       timestamptz '2000-01-01 00:00+00' + g * interval '41 minutes',
       CASE WHEN g % 11 = 0 THEN NULL
            WHEN g % 5 = 0 THEN repeat('long', 40 + g % 30) || g
            WHEN g % 17 = 0 THEN 'é_' || (g % 10) || 'ü'
            ELSE 'p' || (g % 500) END,
       CASE WHEN g % 9 = 0 THEN NULL ELSE 'v' || (g % 23) END,
       (ARRAY['MAIL', 'SHIP', 'AIR', 'RAIL', 'TRUCK'])[1 + g % 5],
       CASE WHEN g % 1500 = 0 THEN repeat('t', 3000)         -- out of line
            WHEN g % 1700 = 0 THEN NULL
            ELSE 'b' || (g % 77) END
FROM generate_series(1, 30000) g;
CREATE TABLE ps_i (k int4, k8 int8, k2 int2, ko oid, kb bool, w text) WITH (autovacuum_enabled = off);
INSERT INTO ps_i SELECT g, g::int8 * 1000000007, (g - 100)::int2, g::oid, g % 2 = 0, 'w' || g
FROM generate_series(0, 299) g;
INSERT INTO ps_i SELECT g, NULL, NULL, NULL, NULL, 'dup' || g FROM generate_series(0, 39) g;
INSERT INTO ps_i VALUES (NULL, NULL, NULL, NULL, NULL, 'nulls');
VACUUM (FREEZE, ANALYZE) ps_t;
VACUUM (FREEZE, ANALYZE) ps_i;
-- every page of the outer table all-visible
SELECT count(*) FILTER (WHERE NOT all_visible) AS not_all_visible
FROM pg_visibility_map('ps_t');

-- the quals the walker runs, and those left to the CPU
SELECT ps_filters('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n > 12.5 AND t.d BETWEEN ''2001-01-01'' AND ''2003-01-01'' AND t.s LIKE ''p1%''');
SELECT ps_filters('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND md5(t.s) > ''a'' AND t.a < 0');
SELECT ps_filters('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND 100 / t.a > 1 AND t.c > 0');
SELECT ps_filters('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE (t.flag OR t.r8 > 100) AND NOT (t.ch IN (''MAIL'', ''AIR'')) AND t.o IS NOT NULL');

-- integers, oid, cross types, extremes, column against column
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.a < 0 AND t.b >= 100');
SELECT * FROM ps_check('SELECT t.id, t.c FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.c > 5::int2 OR t.c = -9223372036854775808');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.o <> 7 AND t.o < 100000 AND t.a <= t.b');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b BETWEEN -500 AND 40000 AND t.c >= t.b');
-- booleans: a column as a qual, comparisons and boolean tests (NULLs)
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.flag');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE NOT t.flag');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.flag IS NOT TRUE AND t.kb = true');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.flag IS UNKNOWN OR t.flag IS FALSE');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE (t.a > 0) IS NOT FALSE');
-- floats: NaN, infinities, -0, float4 against float8
SELECT * FROM ps_check('SELECT t.id, t.r4 FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.r4 > 60.5');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.r4 = 0 OR t.r4 = ''NaN''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.r8 < t.r4 AND t.r8 >= ''-Infinity''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.r8 BETWEEN 10 AND 5000.25 AND t.r8 <> ''NaN''::float8');
-- numerics: both header forms, NaN, infinities, constants of every scale
SELECT * FROM ps_check('SELECT t.id, t.n FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n > 12.5');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n BETWEEN -3.142857 AND 0.0001 OR t.n = ''NaN''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n >= ''Infinity'' OR t.n < -99.9 OR t.n = 1e30');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n IN (0, 1, 10.142857142857142857, NULL)');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n <> 100000000000000000000.5');
-- dates, times, timestamps; date against timestamp; infinities
SELECT * FROM ps_check('SELECT t.id, t.d FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.d BETWEEN ''2001-01-01'' AND ''2003-01-01''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.d < timestamp ''2002-02-02 12:00'' AND t.ts > date ''2000-03-01''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.tm >= ''12:00'' AND t.tz < ''2000-02-01 00:00+00''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.d > ''2007-12-31'' OR t.ts = ''infinity''');
-- text, varchar, char(n): equality, IN lists, ordering under "C", LIKE
SELECT * FROM ps_check('SELECT t.id, t.s FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s = ''p17'' OR t.vc = ''v3''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.ch IN (''MAIL'', ''AIR   '') AND t.vc <> ''v1''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s < ''p2'' COLLATE "C" AND t.ch >= ''RAIL'' COLLATE "C"');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s LIKE ''p1%''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s LIKE ''%ng1_''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s NOT LIKE ''p%'' AND t.vc LIKE ''v_''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s LIKE ''é\_%ü'' OR t.s LIKE ''__3ü''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s LIKE ''%''');
-- IN lists, NOT IN, with NULLs
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.a IN (1, -1, 37, NULL)');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b NOT IN (5, 6, 7) AND t.d NOT IN (''2001-01-01'', NULL)');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b NOT IN (5, 6, 7) AND t.s NOT IN (''p1'', ''p2'')');
-- arithmetic inside comparisons
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b + 1 > 100 AND t.b - t.k < 50000');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b * 2 < t.c AND t.c - 1 > -1000');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.d + 30 < date ''2002-01-01'' AND t.d - 7 > ''2000-06-01''');
-- AND/OR/NOT trees
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE (t.a < 0 OR t.d IS NULL) AND NOT (t.flag AND t.r4 > 1)');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE NOT (t.b > 0 OR t.b IS NULL) OR (t.s = ''p5'' AND t.n > 0)');
-- NULL tests
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b IS NULL AND t.s IS NOT NULL');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n IS NULL OR t.r4 IS NULL OR t.d IS NULL');
-- clauses left to the CPU: safe ones after the walker's, one that may fail
-- (then every row that passes the walker's clauses comes back, and the
-- clauses after it stay on the CPU)
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND md5(t.s) > ''8'' AND t.a < 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND 1000 / t.a > 1 AND t.c > 0');
-- errors: a division by zero on a row that joins nothing; an overflow the
-- walker refuses; both come out as a Seq Scan raises them
SELECT ps_error('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND 100 / (t.k - 399) > 0');
SELECT ps_error('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b * 100000 > 0');
SELECT ps_error('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.d + 2147483000 > ''2000-01-01''');
-- a hashed subplan's test (NOT IN an uncorrelated subquery) right after the
-- walker's clauses: the walker hands back joining rows only, and the
-- subplan runs once a row passes the walker's clauses, joining or not: it
-- raises its error where a Seq Scan would, and not where no row reaches it;
-- a NULL in the subquery, a cross-type test, text (its hash may raise: every
-- row back), a clause after it, and the tuple path's test of the same clause
SELECT v.n, c.* FROM (VALUES
  (1, 't.b > 0 AND t.k NOT IN (SELECT k FROM ps_i WHERE k % 7 = 0)'),
  (2, 't.k NOT IN (SELECT k FROM ps_i WHERE k % 7 = 0 OR k IS NULL)'),
  (3, 't.k8 NOT IN (SELECT k FROM ps_i WHERE k < 250) AND t.a > 0'),
  (4, 't.a IS NOT NULL AND t.s NOT IN (SELECT w FROM ps_i WHERE k < 100)')) v(n, w),
  LATERAL ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE ' || v.w) c
ORDER BY v.n;
SELECT * FROM ps_filters('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND t.k NOT IN (SELECT k FROM ps_i WHERE k % 7 = 0) AND t.c > 0');
SELECT ps_error('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k + 100000 WHERE t.b > 0 AND t.k NOT IN (SELECT 1 / (k - k) FROM ps_i WHERE k = 1)');
SELECT ps_error('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 1000000 AND t.k NOT IN (SELECT 1 / (k - k) FROM ps_i WHERE k = 1)');
-- a clause after the test that may raise (every row back: the subplan runs
-- at the first row, not on a row of NULLs that would reach the clause);
-- and where the tuple path's clauses differ from the walker's CPU clauses
-- (no in-place filter), the subplan would have two states: no page path
CREATE FUNCTION ps_chk(int) RETURNS bool LANGUAGE plpgsql COST 1000 AS $$
BEGIN
  IF $1 IS NULL THEN RAISE EXCEPTION 'ps_chk saw a NULL'; END IF;
  RETURN $1 % 3 <> 0;
END $$;
SELECT ps_error('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND t.k NOT IN (SELECT k FROM ps_i WHERE false) AND ps_chk(t.id)');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND t.k NOT IN (SELECT k FROM ps_i WHERE false) AND ps_chk(t.id)');
SET gpuhash.scan_filter_in_place = off;
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND t.k NOT IN (SELECT k FROM ps_i WHERE k % 7 = 0)');
RESET gpuhash.scan_filter_in_place;
-- rescans whose parameter changes the subplan's rows: its table is
-- rebuilt for each, the same value twice included
SELECT * FROM ps_check('SELECT o.x, (SELECT count(*) FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0 AND t.k NOT IN (SELECT k FROM ps_i WHERE k % o.x = 0)) FROM (VALUES (3), (5), (7), (5)) o(x)');
-- no staging slot stays held (read into, or in flight) after those errors
SELECT staging_in_use_mb AS staging_held FROM gpuhash_info() LIMIT 1;
-- keys: int8, int2, oid, bool, two columns packed
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k8 = i.k8 WHERE t.a > 0');
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k2 = i.k2 WHERE t.s LIKE ''p%''');
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.ko = i.ko WHERE t.flag');
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k AND t.k2 = i.k2 WHERE t.b > 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN (SELECT DISTINCT kb FROM ps_i WHERE kb) i ON t.kb = i.kb WHERE t.b > 0');
-- outer joins: every row that passes the quals comes out
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t LEFT JOIN ps_i i ON t.k = i.k WHERE t.d < ''2001-01-01''');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t WHERE NOT EXISTS (SELECT 1 FROM ps_i i WHERE i.k = t.k) AND t.n > 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t WHERE EXISTS (SELECT 1 FROM ps_i i WHERE i.k8 = t.k8) AND t.s LIKE ''%5''');
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t FULL JOIN (SELECT * FROM ps_i WHERE k < 350) i ON t.k = i.k WHERE t.b IS NULL OR t.id IS NULL');
-- outer keys with NULLs (a NULL key matches nothing, yet comes out of a
-- left or anti join), and a cross-type key
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.a = i.k2');
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t LEFT JOIN ps_i i ON t.a = i.k2 WHERE t.b > 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t WHERE NOT EXISTS (SELECT 1 FROM ps_i i WHERE i.k2 = t.a)');
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k8 WHERE t.b IS NOT NULL');
-- no qual at all
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k');

-- TOAST: a needed value stored out of line or compressed refuses its page
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.big LIKE ''t%'' OR t.big = ''b5''');
UPDATE ps_t SET big = repeat('c', 5000) WHERE id % 2100 = 0;   -- compressed in line
SELECT * FROM ps_check('SELECT t.id, length(t.big) FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.big <> ''b3''');

-- pages that are not all-visible: updates (HOT ones: fillfactor 70), deletes,
-- an aborted insert
UPDATE ps_t SET b = b + 1 WHERE id % 10 = 0;
UPDATE ps_t SET k = (k + 1) % 400 WHERE id % 37 = 0;
DELETE FROM ps_t WHERE id % 23 = 0;
BEGIN;
INSERT INTO ps_t (id, k, b) SELECT g, g % 400, 1 FROM generate_series(100001, 102000) g;
ROLLBACK;
SELECT count(*) FILTER (WHERE NOT all_visible) > 0 AS some_not_all_visible
FROM pg_visibility_map('ps_t');
SELECT * FROM ps_check('SELECT t.id, t.b FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0');
SELECT * FROM ps_check('SELECT t.id, t.k, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.a < 0 OR t.n > 50');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t LEFT JOIN ps_i i ON t.k = i.k WHERE t.id % 3 = 0');

-- a snapshot taken before another session's committed updates and deletes
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM ps_t;
SELECT dblink_exec('dbname=' || current_database() || ' port=' || current_setting('port') ||
                   ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1),
                   'UPDATE ps_t SET b = -b, k = (k + 7) % 400 WHERE id % 11 = 1; ' ||
                   'DELETE FROM ps_t WHERE id % 29 = 0; ' ||
                   'INSERT INTO ps_t (id, k, b) SELECT g, g % 400, 5 FROM generate_series(200001, 201000) g');
SELECT * FROM ps_check('SELECT t.id, t.b, t.k FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t WHERE NOT EXISTS (SELECT 1 FROM ps_i i WHERE i.k = t.k) AND t.b < 0');
COMMIT;
SELECT * FROM ps_check('SELECT t.id, t.b, t.k FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0');
-- SERIALIZABLE reads tuple by tuple (predicate locks)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.b > 0');
COMMIT;

-- an all-visible page takes concurrent inserts (into line pointers VACUUM
-- left unused) after its items were listed, while the join's cursor holds
-- it pinned: the cursor does not see them, its pages copied or read in
-- place (gpuhash.page_in_place)
CREATE TABLE ps_v (id int4, k int4, pad text) WITH (autovacuum_enabled = off);
INSERT INTO ps_v SELECT g, g % 300, 'x' FROM generate_series(1, 100) g;
DELETE FROM ps_v WHERE id % 4 = 0;
VACUUM (FREEZE, ANALYZE) ps_v;
SELECT * FROM ps_check('SELECT t.id, i.w FROM ps_v t JOIN ps_i i ON t.k = i.k');
CREATE FUNCTION ps_insert_between(mode text, OUT native bigint, OUT seen bigint,
                                  OUT new_seen bigint, OUT same_page boolean,
                                  OUT reused_lp boolean)
LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  r record;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  SELECT count(*) INTO native FROM ps_v t JOIN ps_i i ON t.k = i.k;
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_in_place', mode, true);
  OPEN c FOR SELECT t.id FROM ps_v t JOIN ps_i i ON t.k = i.k;
  FETCH c INTO r;   -- the page read: pinned, its items listed
  seen := CASE WHEN FOUND THEN 1 ELSE 0 END;
  new_seen := 0;
  PERFORM dblink_exec('dbname=' || current_database() || ' port=' || current_setting('port') ||
                      ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1),
                      'INSERT INTO ps_v SELECT g, g % 40, ''new'' FROM generate_series(1001, 1020) g');
  LOOP
    FETCH c INTO r;
    EXIT WHEN NOT FOUND;
    seen := seen + 1;
    IF r.id > 1000 THEN new_seen := new_seen + 1; END IF;
  END LOOP;
  CLOSE c;
  SELECT bool_and((ctid::text::point)[0] = 0), bool_or((ctid::text::point)[1] < 100)
  INTO same_page, reused_lp FROM ps_v WHERE id > 1000;
END;
$$;
SELECT all_visible FROM pg_visibility_map('ps_v');
SELECT * FROM ps_insert_between('off');
DELETE FROM ps_v WHERE id > 1000;
VACUUM (FREEZE, ANALYZE) ps_v;
SELECT all_visible FROM pg_visibility_map('ps_v');
SELECT * FROM ps_insert_between('on');
DROP FUNCTION ps_insert_between(text);
DROP TABLE ps_v;

-- dropped columns, and columns added after the rows were written: without
-- a default, with one by value, with one by reference
ALTER TABLE ps_t DROP COLUMN o;
ALTER TABLE ps_t ADD COLUMN e1 int4, ADD COLUMN e2 int4 DEFAULT 42, ADD COLUMN e3 text DEFAULT 'zz';
INSERT INTO ps_t (id, k, b, e1, e2, e3) SELECT g, g % 400, g, g % 5, g % 50, 'e' || (g % 3)
FROM generate_series(300001, 303000) g;
VACUUM (FREEZE, ANALYZE) ps_t;
SELECT * FROM ps_check('SELECT t.id, t.e1 FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.e1 IS NULL AND t.a > 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.e2 = 42 OR t.e2 < 3');
SELECT * FROM ps_check('SELECT t.id, t.e3 FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.e3 = ''zz'' AND t.b > 0');
SELECT * FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.e3 LIKE ''e%''');

-- a scroll cursor over the join, read both ways, the page path off and on
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
CREATE TEMP TABLE ps_cur (pass text, step int, ids text);
CREATE FUNCTION ps_cursor(pass text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  r record;
  ids text;
BEGIN
  OPEN c SCROLL FOR SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k
                    WHERE t.b > 0 AND t.n > 10 ORDER BY t.id, i.w;
  FOR step IN 1 .. 4 LOOP
    ids := '';
    FOR j IN 1 .. 3 LOOP
      IF step % 2 = 1 THEN FETCH NEXT FROM c INTO r; ELSE FETCH PRIOR FROM c INTO r; END IF;
      ids := ids || coalesce(r.id::text || r.w, '-') || ' ';
    END LOOP;
    INSERT INTO ps_cur VALUES (pass, step, ids);
  END LOOP;
  MOVE LAST FROM c;
  FETCH PRIOR FROM c INTO r;
  INSERT INTO ps_cur VALUES (pass, 5, r.id::text || r.w);
  CLOSE c;
END;
$$;
SET gpuhash.page_scan = off;
SELECT ps_cursor('off');
SET gpuhash.page_scan = on;
SELECT ps_cursor('on');
SELECT count(*) AS steps, count(DISTINCT (step, ids)) AS distinct_steps FROM ps_cur;
-- rescans: a parameter of the outer query in the scan's quals, and a
-- nested loop above the join
SELECT * FROM ps_check('SELECT p.x, (SELECT count(*) FROM ps_t t JOIN ps_i i ON t.k = i.k
                                     WHERE t.b > p.x AND t.n > 10)
                        FROM (VALUES (0), (-50000), (90000)) p(x)');
SET enable_nestloop = on;
SELECT * FROM ps_check('SELECT v.x, s.n FROM (VALUES (1), (2), (3)) v(x),
                        LATERAL (SELECT count(*) AS n FROM ps_t t JOIN ps_i i ON t.k = i.k
                                 WHERE t.a > v.x * 1000 AND t.s LIKE ''p%'') s');
SET enable_nestloop = off;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET gpuhash.setup_cost;
RESET gpuhash.min_gain;

-- parallel: blocks from the parallel allocator, each participant's pages
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT ps_filters('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n > 12.5');
SELECT rows, same FROM ps_check('SELECT t.id, i.w FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.n > 12.5');
SELECT rows, same FROM ps_check('SELECT t.id FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.s LIKE ''p%'' AND t.b > 0');
SELECT rows, same FROM ps_check('SELECT t.id, i.w FROM ps_t t LEFT JOIN ps_i i ON t.k = i.k WHERE t.d < ''2002-01-01''');
SELECT rows, same FROM ps_check('SELECT count(*) FROM ps_t t JOIN ps_i i ON t.k = i.k WHERE t.big IS NOT NULL');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- the planner prices the page path by its own constants (page_price.c):
-- with gpuhash.page_cpu_cost at -1 as the tuple path; set, the outer side's
-- per-tuple CPU gives way to page_cpu_cost per page (so a unit more per page
-- is the table's pages more), page_row_cost per tuple and page_match_cost
-- per record handed back; off, or keys the walker cannot read, the tuple
-- path's price
CREATE FUNCTION ps_run_cost(q text, page_cpu text, page_scan text DEFAULT 'on')
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
BEGIN
  PERFORM gh_force_on();
  PERFORM set_config('max_parallel_workers_per_gather', '0', true);
  PERFORM set_config('gpuhash.page_cpu_cost', page_cpu, true);
  PERFORM set_config('gpuhash.page_scan', page_scan, true);
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  IF n->>'Outer Scan' IS NULL THEN
    RETURN NULL;                -- not absorbed: nothing to compare
  END IF;
  RETURN round((n->>'Total Cost')::numeric - (n->>'Startup Cost')::numeric, 2);
END;
$$;
CREATE TABLE ps_pt AS SELECT g AS id, g % 400 AS k, g AS b, 'x' || g % 300 AS s
  FROM generate_series(1, 20000) g;
CREATE TABLE ps_pi AS SELECT g AS k, 'x' || g AS w FROM generate_series(0, 299) g;
VACUUM (FREEZE, ANALYZE) ps_pt, ps_pi;
SELECT ps_run_cost(q, '-1') = ps_run_cost(q, '-1', 'off') AS unset_is_tuples,
       ps_run_cost(q, '0.1') <> ps_run_cost(q, '-1') AS set_is_pages,
       ps_run_cost(q, '0.1', 'off') = ps_run_cost(q, '-1') AS off_is_tuples,
       ps_run_cost(q, '1.1') - ps_run_cost(q, '0.1') =
         (SELECT relpages FROM pg_class WHERE relname = 'ps_pt') AS per_page
FROM (VALUES ('SELECT t.id FROM ps_pt t JOIN ps_pi i ON t.k = i.k WHERE t.b > 0')) v(q);
-- a key the walker does not read (text: a fingerprint): the tuple path's price
SELECT ps_run_cost(q, '0.1') = ps_run_cost(q, '-1') AS fingerprint_is_tuples
FROM (VALUES ('SELECT t.id FROM ps_pt t JOIN ps_pi i ON t.s = i.w')) v(q);
DROP TABLE ps_pt, ps_pi;
RESET gpuhash.page_cpu_cost;
DROP FUNCTION ps_run_cost(text, text, text);

-- a request read in place is bounded by the tuples its pages list (a
-- batch's rows, at least as many as a copied request's pages could list),
-- not by a copied request's pages: a table of narrow rows, many to a page,
-- goes in more requests than one of wide rows, both in fewer than copied;
-- the results stay PostgreSQL's either way
CREATE FUNCTION ps_requests(q text, in_place text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
BEGIN
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_in_place', in_place, true);
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  RETURN (n->>'Page Requests')::bigint;
END;
$$;
SET gpuhash.batch_rows = 1000;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ps_narrow AS SELECT g AS id, g % 400 AS k FROM generate_series(1, 40000) g;
CREATE TABLE ps_wide AS SELECT g AS id, g % 400 AS k, repeat('w', 300) AS pad
  FROM generate_series(1, 4000) g;
CREATE TABLE ps_ki AS SELECT g AS k FROM generate_series(0, 399, 3) g;
VACUUM (FREEZE, ANALYZE) ps_narrow, ps_wide, ps_ki;
SELECT * FROM ps_check('SELECT t.id FROM ps_narrow t JOIN ps_ki i ON t.k = i.k');
SELECT * FROM ps_check('SELECT t.id, t.pad FROM ps_wide t JOIN ps_ki i ON t.k = i.k');
-- with a page not all-visible among them: its visible list counts alike
UPDATE ps_wide SET k = k + 1 WHERE id % 500 = 0;
SELECT * FROM ps_check('SELECT t.id, t.pad FROM ps_wide t JOIN ps_ki i ON t.k = i.k');
SELECT n_in_place < n_copied AS narrow_fewer, w_in_place < n_in_place AS wide_fewer_still,
       w_in_place * 4 < w_copied AS wide_several_times
FROM (SELECT ps_requests('SELECT t.id FROM ps_narrow t JOIN ps_ki i ON t.k = i.k', 'off') AS n_copied,
             ps_requests('SELECT t.id FROM ps_narrow t JOIN ps_ki i ON t.k = i.k', 'on') AS n_in_place,
             ps_requests('SELECT t.id, t.pad FROM ps_wide t JOIN ps_ki i ON t.k = i.k', 'off') AS w_copied,
             ps_requests('SELECT t.id, t.pad FROM ps_wide t JOIN ps_ki i ON t.k = i.k', 'on') AS w_in_place) r;
RESET gpuhash.batch_rows;
RESET max_parallel_workers_per_gather;
DROP TABLE ps_narrow, ps_wide, ps_ki;
DROP FUNCTION ps_requests(text, text);

-- A chain (chain.c) over the same table: its bottom reads tuples, not
-- pages (ARCHITECTURE.md says why), whatever gpuhash.page_scan says.
-- "chain" is the top node's Chain Levels, "by_pages" whether any GPU join
-- read pages.  Inner, left and anti bottoms; pages all-visible and not; a
-- CPU qual; a rescan; parallel.
CREATE FUNCTION ps_chain(q text, OUT rows bigint, OUT same boolean, OUT chain int,
                         OUT by_pages boolean)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  SELECT c.rows, c.same INTO rows, same FROM ps_check(q) c;
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  SELECT max((n->>'Chain Levels')::int),
         sum(coalesce((n->>'Pages All-Visible')::bigint, 0) + coalesce((n->>'Pages Checked')::bigint, 0)) > 0
    INTO chain, by_pages
    FROM jsonb_path_query(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")') n;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
END;
$$;
CREATE TABLE ps_j (a int2, w text) WITH (autovacuum_enabled = off);
INSERT INTO ps_j SELECT g, 'j' || g FROM generate_series(-100, 99, 2) g;
INSERT INTO ps_j VALUES (4, 'j4 again'), (NULL, 'null');
ANALYZE ps_j;
SET gpuhash.page_cpu_cost = -1;
-- the joins in the order written: a left-deep stack, the chain
SET join_collapse_limit = 1;
SELECT * FROM ps_chain('SELECT t.id, i.w, j.w FROM ps_t t JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.b > 0');
SELECT * FROM ps_chain('SELECT t.id, i.w, j.w FROM ps_t t JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.n > 12.5 AND md5(t.s) > ''4''');
SELECT * FROM ps_chain('SELECT t.id, i.w, j.w FROM ps_t t LEFT JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.k < 350');
SELECT * FROM ps_chain('SELECT t.id, t.big, j.w FROM ps_t t LEFT JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.id % 3 = 0');
SELECT * FROM ps_chain('SELECT t.id, j.w FROM ps_t t LEFT JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE i.k IS NULL');
-- pages not all-visible: updated and deleted rows, an aborted insert
BEGIN;
INSERT INTO ps_t (id, k, k2, b) SELECT -g, g % 400, 4, 1 FROM generate_series(1, 500) g;
ROLLBACK;
UPDATE ps_t SET k2 = 4, b = 1 WHERE id % 97 = 0;
DELETE FROM ps_t WHERE id % 89 = 0;
SELECT * FROM ps_chain('SELECT t.id, i.w, j.w FROM ps_t t JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.b > 0');
-- a rescan: the chain under a nested loop's inner side, once per outer row
SET enable_nestloop = on;
SELECT * FROM ps_chain('SELECT o.x, (SELECT count(*) FROM ps_t t JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.b > o.x) FROM (VALUES (0), (500), (0)) o(x)');
SET enable_nestloop = off;
-- parallel: each participant's share through the chain
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM ps_chain('SELECT t.id, i.w, j.w FROM ps_t t JOIN ps_i i ON t.k = i.k JOIN ps_j j ON t.k2 = j.a WHERE t.b > 0');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SET max_parallel_workers_per_gather = 0;
RESET gpuhash.page_cpu_cost;
RESET join_collapse_limit;
DROP TABLE ps_j;
DROP FUNCTION ps_chain(text);

DROP FUNCTION ps_cursor(text);
DROP TABLE ps_t, ps_i;
DROP FUNCTION ps_check(text);
DROP FUNCTION ps_error(text);
DROP FUNCTION ps_filters(text);
DROP FUNCTION ps_chk(int);

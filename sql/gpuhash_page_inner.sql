-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- The page path of an absorbed inner scan (page_inner.c, issue 53): the
-- build side's heap pages go to the page walker with no key; it deforms
-- and filters them and hands back the rows that pass, and the build reads
-- only those rows' keys and kept columns.  Every query runs natively, with
-- the GPU join and gpuhash.page_scan off (the tuple path), and with it on;
-- the three results are compared as multisets.  "pages" says how the page
-- path read the inner pages (all-visible, checked by heapam's page-mode
-- visibility, refused by the walker and read tuple by tuple).  What may go
-- wrong: qual forms, NULLs in quals and keys, MVCC, TOAST, dropped and
-- added columns, parallel builds, rescans, hash batches over work_mem.  The
-- probe side is bigger, so that the planner builds on the table under test.
--
SET client_min_messages = warning;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;
SET gpuhash.kept_row_cost = 0;
-- off by default; "gpu": the path only where its walk runs on a GPU of the
-- GPU service (page_inner.c); "always" takes it on the host twin too
SHOW gpuhash.page_inner;
SET gpuhash.page_inner = always;
CREATE EXTENSION IF NOT EXISTS pg_visibility;
CREATE EXTENSION IF NOT EXISTS dblink;

-- q natively, on the tuple path and on the page path: same multiset?
CREATE FUNCTION pi_check(q text, OUT rows bigint, OUT same boolean, OUT pages text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
  bad bigint;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'CREATE TEMP TABLE pi_native AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_scan', 'off', true);
  EXECUTE 'CREATE TEMP TABLE pi_tuples AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM set_config('gpuhash.page_scan', 'on', true);
  EXECUTE 'CREATE TEMP TABLE pi_pages AS SELECT r__::text AS t FROM (' || q || ') r__';
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  pages := CASE WHEN n IS NULL THEN 'no GPU join'
                WHEN coalesce((n->>'Inner Pages All-Visible')::int, 0) +
                     coalesce((n->>'Inner Pages Checked')::int, 0) = 0 THEN 'tuple path'
                ELSE concat_ws(', ',
                       CASE WHEN (n->>'Inner Pages All-Visible')::int > 0 THEN 'all-visible' END,
                       CASE WHEN (n->>'Inner Pages Checked')::int > 0 THEN 'checked' END,
                       CASE WHEN (n->>'Inner Pages Refused')::int > 0 THEN 'refused' END,
                       CASE WHEN n ? 'Inner Keys From Walker' THEN 'keys' END) END;
  SELECT count(*) INTO rows FROM pi_pages;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM pi_native EXCEPT ALL SELECT * FROM pi_pages) UNION ALL
    (SELECT * FROM pi_pages EXCEPT ALL SELECT * FROM pi_native) UNION ALL
    (SELECT * FROM pi_tuples EXCEPT ALL SELECT * FROM pi_pages) UNION ALL
    (SELECT * FROM pi_pages EXCEPT ALL SELECT * FROM pi_tuples)) x;
  same := bad = 0;
  DROP TABLE pi_native, pi_tuples, pi_pages;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
END;
$$;

-- the GPU join's EXPLAIN lines about the inner scan and its quals
CREATE FUNCTION pi_filters(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM gh_force_on();
  FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF l ~ '(Inner Scan|Inner Filter|Inner GPU Filter):' THEN
      RETURN NEXT btrim(l);
    END IF;
  END LOOP;
END;
$$;

-- the inner table under test
CREATE TABLE pi_t (id int4, k int4, k8 int8, a int2, b int4, n numeric, r8 float8,
                   d1 date, d2 date, d3 date, ts timestamp, flag bool,
                   s text, ch char(10), big text)
  WITH (fillfactor = 70, autovacuum_enabled = off);
ALTER TABLE pi_t ALTER COLUMN big SET STORAGE EXTERNAL;
INSERT INTO pi_t
SELECT g,
       CASE WHEN g % 53 = 0 THEN NULL ELSE g % 3000 END,
       CASE WHEN g % 59 = 0 THEN NULL ELSE (g % 3000)::int8 * 1000000007 END,
       CASE WHEN g % 19 = 0 THEN NULL ELSE ((g * 37) % 65536 - 32768)::int2 END,
       CASE WHEN g % 13 = 0 THEN NULL ELSE g * 7919 % 200003 - 100000 END,
       CASE g % 107 WHEN 0 THEN 'NaN'::numeric WHEN 1 THEN NULL WHEN 2 THEN 'Infinity'
                    ELSE (g % 2000) / 7.0 - 100 END,
       CASE g % 103 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN NULL ELSE g / 3.0 END,
       date '1995-01-01' + g % 2000,
       CASE WHEN g % 29 = 0 THEN NULL ELSE date '1995-01-01' + (g * 7) % 2000 END,
       date '1995-01-01' + (g * 13) % 2000,
       timestamp '1995-01-01' + g * interval '97 minutes',
       CASE WHEN g % 7 = 0 THEN NULL ELSE g % 3 = 0 END,
       CASE WHEN g % 11 = 0 THEN NULL ELSE 'p' || (g % 500) END,
       CASE WHEN g % 17 = 0 THEN NULL
            ELSE (ARRAY['MAIL', 'SHIP', 'AIR', 'RAIL', 'TRUCK', 'FOB', 'REG AIR'])[1 + g % 7] END,
       CASE WHEN g % 1500 = 0 THEN repeat('t', 3000)         -- out of line
            ELSE 'b' || (g % 77) END
FROM generate_series(1, 20000) g;
-- the probe side: every key, several times, some missing
CREATE TABLE pi_p (pk int4, pk8 int8, n int4) WITH (autovacuum_enabled = off);
INSERT INTO pi_p SELECT g % 3500, (g % 3500)::int8 * 1000000007, g FROM generate_series(1, 100000) g;
VACUUM (FREEZE, ANALYZE) pi_t;
VACUUM (FREEZE, ANALYZE) pi_p;
SELECT count(*) FILTER (WHERE NOT all_visible) AS not_all_visible FROM pg_visibility_map('pi_t');

-- the quals the walker runs on the inner side, and those left to the CPU
SELECT pi_filters('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.ch IN (''MAIL'', ''SHIP'') AND t.d2 < t.d3 AND t.d1 < t.d2 AND t.d3 >= ''1996-01-01'' AND t.d3 < timestamp ''1997-01-01''');
SELECT pi_filters('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND md5(t.s) > ''a'' AND t.a < 0');
SELECT pi_filters('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE md5(t.s) > ''a''');
-- "gpu" takes the walk only where the join runs on a GPU: the host twin
-- reads by tuples then, a GPU by pages, so this file (the same on both)
-- does not show it
SET gpuhash.page_inner = off;
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.a < 0 AND t.b >= 100');
SET gpuhash.page_inner = always;

-- every kind of qual the compiler takes, NULLs in them and in the keys
SELECT * FROM pi_check('SELECT p.n, t.id, t.s FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.ch IN (''MAIL'', ''SHIP'') AND t.d2 < t.d3 AND t.d1 < t.d2 AND t.d3 >= ''1996-01-01'' AND t.d3 < timestamp ''1997-01-01''');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.a < 0 AND t.b >= 100');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.a <= t.b AND t.k8 > 5::int2');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.flag IS NOT TRUE');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.flag');
SELECT * FROM pi_check('SELECT p.n, t.r8 FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.r8 > 600.5 OR t.r8 = ''NaN''');
SELECT * FROM pi_check('SELECT p.n, t.n FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.n BETWEEN -3.142857 AND 10 OR t.n = ''NaN''');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.ts > date ''1996-03-01'' AND t.d1 < timestamp ''1997-02-02 12:00''');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.s LIKE ''p1%'' AND t.ch <> ''AIR''');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.s IN (''p1'', ''p2'', NULL) OR t.b NOT IN (5, 6, 7)');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b + 1 > 100 AND t.d1 + 30 < date ''1998-01-01''');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE (t.a < 0 OR t.d2 IS NULL) AND NOT (t.flag AND t.r8 > 1)');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b IS NULL OR t.s IS NULL');
-- a CPU clause after the walker's; one that may raise an error
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND md5(t.s) > ''8'' AND t.a < 0');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND 1000 / t.a > 1 AND t.d1 > ''1996-01-01''');
-- keys: int8; NULL keys kept where unmatched inner rows come out
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk8 = t.k8 WHERE t.b > 0');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p RIGHT JOIN pi_t t ON p.pk = t.k WHERE t.b < -90000');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p FULL JOIN (SELECT * FROM pi_t WHERE a > 30000) t ON p.pk = t.k');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p WHERE EXISTS (SELECT 1 FROM pi_t t WHERE t.k = p.pk AND t.b > 0)');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p WHERE NOT EXISTS (SELECT 1 FROM pi_t t WHERE t.k = p.pk AND t.b > 0)');

-- TOAST: a needed value stored out of line or compressed refuses its page;
-- kept TOASTed columns are read from the rows that pass
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.big LIKE ''t%'' OR t.big = ''b5''');
UPDATE pi_t SET big = repeat('c', 5000) WHERE id % 2100 = 0;   -- compressed in line
SELECT * FROM pi_check('SELECT p.n, length(t.big) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.big <> ''b3''');
SELECT * FROM pi_check('SELECT p.n, md5(t.big) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 50000');

-- pages that are not all-visible: updates (HOT ones), deletes, an aborted insert
UPDATE pi_t SET b = b + 1 WHERE id % 10 = 0;
UPDATE pi_t SET k = (k + 1) % 3000 WHERE id % 37 = 0;
DELETE FROM pi_t WHERE id % 23 = 0;
BEGIN;
INSERT INTO pi_t (id, k, b) SELECT g, g % 3000, 1 FROM generate_series(100001, 102000) g;
ROLLBACK;
SELECT count(*) FILTER (WHERE NOT all_visible) > 0 AS some_not_all_visible
FROM pg_visibility_map('pi_t');
SELECT * FROM pi_check('SELECT p.n, t.id, t.b FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0');
SELECT * FROM pi_check('SELECT p.n, t.id, t.k FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.a < 0 OR t.n > 50');
-- a snapshot taken before another session's committed updates, deletes and inserts
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM pi_t;
SELECT dblink_exec('dbname=' || current_database() || ' port=' || current_setting('port') ||
                   ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1),
                   'UPDATE pi_t SET b = -b, k = (k + 7) % 3000 WHERE id % 11 = 1; ' ||
                   'DELETE FROM pi_t WHERE id % 29 = 0; ' ||
                   'INSERT INTO pi_t (id, k, b) SELECT g, g % 3000, 5 FROM generate_series(200001, 201000) g');
SELECT * FROM pi_check('SELECT p.n, t.id, t.b, t.k FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0');
COMMIT;
SELECT * FROM pi_check('SELECT p.n, t.id, t.b, t.k FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0');
-- SERIALIZABLE reads tuple by tuple (predicate locks)
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0');
COMMIT;

-- dropped columns, and columns added after the rows were written
ALTER TABLE pi_t DROP COLUMN r8;
ALTER TABLE pi_t ADD COLUMN e1 int4, ADD COLUMN e2 int4 DEFAULT 42, ADD COLUMN e3 text DEFAULT 'zz';
INSERT INTO pi_t (id, k, b, e1, e2, e3) SELECT g, g % 3000, g, g % 5, g % 50, 'e' || (g % 3)
FROM generate_series(300001, 303000) g;
VACUUM (FREEZE, ANALYZE) pi_t;
SELECT * FROM pi_check('SELECT p.n, t.id, t.e1 FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.e1 IS NULL AND t.a > 0');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.e2 = 42 OR t.e2 < 3');
SELECT * FROM pi_check('SELECT p.n, t.id, t.e3 FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.e3 = ''zz'' AND t.b > 0');

-- a build over work_mem: hash batches, the rows that pass spilled per row
SET work_mem = '64kB';
SELECT * FROM pi_check('SELECT p.n, t.id, t.s, t.ch FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > -50000 AND t.d1 >= ''1995-02-01''');
SELECT (gh_node('SELECT p.n, t.id, t.s, t.ch FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > -50000 AND t.d1 >= ''1995-02-01''')->>'Hash Batches')::int > 1 AS batched;
RESET work_mem;

-- rescans: a parameter of the outer query in the inner quals (the table is
-- rebuilt), and a nested loop above the join
SELECT * FROM pi_check('SELECT x.v, (SELECT count(*) FROM pi_p p JOIN pi_t t ON p.pk = t.k
                                     WHERE t.b > x.v AND t.d1 > ''1996-01-01'')
                        FROM (VALUES (0), (-50000), (90000)) x(v)');
SET enable_nestloop = on;
SELECT * FROM pi_check('SELECT v.x, s.n FROM (VALUES (1), (2), (3)) v(x),
                        LATERAL (SELECT count(*) AS n FROM pi_p p JOIN pi_t t ON p.pk = t.k
                                 WHERE t.a > v.x * 1000 AND t.s LIKE ''p%'') s');
SET enable_nestloop = off;

-- parallel builds: every participant reads its blocks from the allocator
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT pi_filters('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND t.d1 < t.d3');
SELECT rows, same FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND t.d1 < t.d3');
SELECT rows, same FROM pi_check('SELECT p.n, t.id, t.s FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.s LIKE ''p%'' AND t.big IS NOT NULL');
SELECT rows, same FROM pi_check('SELECT count(*) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.a < 0');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- the walk in the GPU service, against a one-row table built there for the
-- scan (on the host twin here; on a GPU where the service has one): the
-- same rows (rescans and parallel too), and no table left behind
SET gpuhash.page_inner_service = on;
CREATE FUNCTION pi_path(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  -- the service's device in parentheses differs between the host twin and a GPU
  RETURN regexp_replace(jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")')->>'Inner Page Path',
                        ' \((gpu|host)\)$', '');
END;
$$;
SELECT pi_path('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND t.d1 < t.d3');
SELECT * FROM pi_check('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND t.d1 < t.d3');
SELECT * FROM pi_check('SELECT p.n, t.id, length(t.big) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.big <> ''b3'' AND t.e3 LIKE ''%z''');
SET enable_nestloop = on;
SELECT pi_path('SELECT v.x, s.n FROM (VALUES (1), (2), (3)) v(x),
                LATERAL (SELECT count(*) AS n FROM pi_p p JOIN pi_t t ON p.pk = t.k
                         WHERE t.a > v.x * 1000 AND t.s LIKE ''p%'') s');
SELECT * FROM pi_check('SELECT v.x, s.n FROM (VALUES (1), (2), (3)) v(x),
                        LATERAL (SELECT count(*) AS n FROM pi_p p JOIN pi_t t ON p.pk = t.k
                                 WHERE t.a > v.x * 1000 AND t.s LIKE ''p%'') s');
SET enable_nestloop = off;
SELECT tables_alive FROM gpuhash_info() LIMIT 1;
-- read in place (the service walks the pinned buffers: requests of up to
-- a batch's listed tuples) against copied (64 pages a request): both the
-- same rows as PostgreSQL's own join; "requests" says whether every
-- request went in place
CREATE FUNCTION pi_in_place(q text, OUT same boolean, OUT requests text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
  bad bigint;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'CREATE TEMP TABLE pi_native AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_in_place', 'off', true);
  EXECUTE 'CREATE TEMP TABLE pi_copied AS SELECT r__::text AS t FROM (' || q || ') r__';
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  requests := 'copied: ' || CASE WHEN (n->>'Inner Page Requests In Place')::int = 0
                                 AND (n->>'Inner Page Requests')::int > 0 THEN 'none in place' ELSE n::text END;
  PERFORM set_config('gpuhash.page_in_place', 'on', true);
  EXECUTE 'CREATE TEMP TABLE pi_placed AS SELECT r__::text AS t FROM (' || q || ') r__';
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
  requests := requests || ', in place: ' ||
    CASE WHEN (n->>'Inner Page Requests In Place')::int = (n->>'Inner Page Requests')::int
          AND (n->>'Inner Page Requests')::int > 0 THEN 'all' ELSE n::text END;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM pi_native EXCEPT ALL SELECT * FROM pi_placed) UNION ALL
    (SELECT * FROM pi_placed EXCEPT ALL SELECT * FROM pi_native) UNION ALL
    (SELECT * FROM pi_copied EXCEPT ALL SELECT * FROM pi_placed) UNION ALL
    (SELECT * FROM pi_placed EXCEPT ALL SELECT * FROM pi_copied)) x;
  same := bad = 0 AND (SELECT count(*) FROM pi_placed) > 0;
  DROP TABLE pi_native, pi_copied, pi_placed;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
END;
$$;
SELECT * FROM pi_in_place('SELECT p.n, t.id, t.s FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND t.d1 < t.d3');
-- some pages not all-visible (their lists from heapam), some rows toasted (refused pages)
UPDATE pi_t SET b = b WHERE id % 997 = 0;
SELECT * FROM pi_in_place('SELECT p.n, t.id, length(t.big) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.big <> ''b3'' AND t.b > -5');
SET work_mem = '64kB';
SELECT * FROM pi_in_place('SELECT p.n, t.id FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0');
RESET work_mem;
DROP FUNCTION pi_in_place(text);
-- an error while the scan's table lives: the node's reset callback frees it
SELECT pi_path('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND 1 / (t.a - t.a) > 0');
SELECT tables_alive FROM gpuhash_info() LIMIT 1;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT rows, same FROM pi_check('SELECT p.n, t.id, t.s FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.s LIKE ''p%'' AND t.a > 0');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;

-- Keys only: where the build keeps no inner column and no NULL-key row
-- (not right or full), and the walker takes every qual, the walk hands
-- back each passing row's key alone ("keys"): no tuple is read, a refused
-- page's rows are keyed by the CPU.  Through the service, and in-process.
SELECT * FROM pi_check('SELECT count(*) FROM pi_p p JOIN pi_t t ON p.pk = t.k');
-- gpuhash.page_inner_keys off: by tuples (no qual for the rows' walk to take)
SET gpuhash.page_inner_keys = off;
SELECT * FROM pi_check('SELECT count(*) FROM pi_p p JOIN pi_t t ON p.pk = t.k');
RESET gpuhash.page_inner_keys;
SELECT * FROM pi_check('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0 AND t.d1 < t.d3');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk8 = t.k8 WHERE t.ch IN (''MAIL'', ''AIR'')');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk8 = t.k');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk = t.k AND p.pk8 = t.k8');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p WHERE EXISTS (SELECT 1 FROM pi_t t WHERE t.k = p.pk AND t.s LIKE ''p1%'')');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p WHERE NOT EXISTS (SELECT 1 FROM pi_t t WHERE t.k = p.pk AND t.b > 0)');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p LEFT JOIN pi_t t ON p.pk = t.k AND t.a < 0');
-- refused pages (an out-of-line value the qual reads); a CPU qual: rows, not keys
SELECT * FROM pi_check('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.big <> ''b3''');
SELECT * FROM pi_check('SELECT p.n FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE md5(t.s) > ''8''');
-- a right join keeps its NULL-key rows: rows, not keys
SELECT * FROM pi_check('SELECT p.n FROM pi_p p RIGHT JOIN pi_t t ON p.pk = t.k');
-- deleted rows, an aborted insert, an update since: pages not all-visible
DELETE FROM pi_t WHERE id % 991 = 0;
BEGIN;
INSERT INTO pi_t (id, k, k8) SELECT g, g % 3000, g FROM generate_series(1, 500) g;
ROLLBACK;
UPDATE pi_t SET k = k + 1 WHERE id % 983 = 0;
SELECT * FROM pi_check('SELECT count(*), sum(p.n) FROM pi_p p JOIN pi_t t ON p.pk = t.k');
SET gpuhash.page_inner_service = off;
SELECT * FROM pi_check('SELECT count(*), sum(p.n) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.b > 0');
SET gpuhash.page_inner_service = on;
-- parallel: every participant walks its share of the blocks
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT rows, same FROM pi_check('SELECT count(*), sum(p.n) FROM pi_p p JOIN pi_t t ON p.pk = t.k WHERE t.d1 > ''1996-01-01''');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
-- hash batches: the keys of later batches go to their files; in parallel,
-- past the memory of every participant, the shared batches of a split
SET work_mem = '64kB';
SELECT * FROM pi_check('SELECT count(*), sum(p.n) FROM pi_p p JOIN pi_t t ON p.pk = t.k');
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT rows, same FROM pi_check('SELECT count(*), sum(p.n) FROM pi_p p JOIN pi_t t ON p.pk = t.k');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;
RESET gpuhash.page_inner_service;
-- no staging slot stays held, no table stays alive
SELECT staging_in_use_mb AS staging_held, tables_alive FROM gpuhash_info() LIMIT 1;

DROP FUNCTION pi_path(text);
DROP TABLE pi_t, pi_p;
DROP FUNCTION pi_check(text);
DROP FUNCTION pi_filters(text);
RESET gpuhash.kept_row_cost;
RESET gpuhash.page_inner;

--
-- The page cache (gpuhash.page_cache_size, service_page_cache.c): the GPU
-- service keeps copies of the pages the page path walked, named by
-- relation and block and labelled with the page LSN the backend saw, and
-- walks a page from its copy only where the backend sees that LSN again.
-- Every query runs natively and on the page path three times; the last two
-- results are compared with the native one as multisets, and "cache" says
-- what the first run did: "hit" (every page from its copy), "hit, filled"
-- (some copied again: their LSN moved since the last copy), "filled", or
-- "none" (not cached: a relation that skips WAL, or the cache off).  What may
-- go wrong: a copy read after its page changed (updates, deletes, HOT,
-- inserts, aborted rows, VACUUM, a new relfilenode, another session's
-- changes committed or not), a copy evicted while read, parallel walks.
--
SET client_min_messages = warning;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;
SET gpuhash.gpu_aggregate = off;
CREATE EXTENSION IF NOT EXISTS dblink;

-- two workers a Gather at no cost, until the transaction ends
CREATE FUNCTION pc_parallel() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('max_parallel_workers_per_gather', '2', true);
  PERFORM set_config('parallel_setup_cost', '0', true);
  PERFORM set_config('parallel_tuple_cost', '0', true);
  PERFORM set_config('min_parallel_table_scan_size', '0', true);
END;
$$;

-- q natively, then on the page path three times (under settings the caller
-- made for the transaction): the last two runs against the native one as
-- multisets; the first run's plan, EXPLAIN ANALYZE VERBOSE in JSON.
CREATE FUNCTION pc_run(q text, agg_join boolean, OUT rows bigint, OUT same boolean, OUT plan jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  bad bigint;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'CREATE TEMP TABLE pc_native AS SELECT r__::text AS t FROM (' || q || ') r__';
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_scan', 'on', true);
  PERFORM set_config('gpuhash.gpu_aggregate_join', agg_join::text, true);
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO plan;
  EXECUTE 'CREATE TEMP TABLE pc_first AS SELECT r__::text AS t FROM (' || q || ') r__';
  EXECUTE 'CREATE TEMP TABLE pc_again AS SELECT r__::text AS t FROM (' || q || ') r__';
  SELECT count(*) INTO rows FROM pc_again;
  SELECT count(*) INTO bad FROM (
    (SELECT * FROM pc_native EXCEPT ALL SELECT * FROM pc_first) UNION ALL
    (SELECT * FROM pc_first EXCEPT ALL SELECT * FROM pc_native) UNION ALL
    (SELECT * FROM pc_native EXCEPT ALL SELECT * FROM pc_again) UNION ALL
    (SELECT * FROM pc_again EXCEPT ALL SELECT * FROM pc_native)) x;
  same := bad = 0;
  DROP TABLE pc_native, pc_first, pc_again;
  PERFORM set_config('enable_gpuhashjoin', 'on', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
END;
$$;

-- what a walk did with the cache, from its pages read from copies and filled
CREATE FUNCTION pc_cache_word(hits bigint, fills bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN hits > 0 AND fills > 0 THEN 'hit, filled'
              WHEN hits > 0 THEN 'hit'
              WHEN fills > 0 THEN 'filled'
              ELSE 'none' END;
$$;

-- q natively and on the page path (three runs): same multiset?  What the first run read.
CREATE FUNCTION pc_check(q text, agg_join boolean DEFAULT false, parallel boolean DEFAULT false,
                         OUT rows bigint, OUT same boolean, OUT cache text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
BEGIN
  IF parallel THEN
    PERFORM pc_parallel();
  END IF;
  SELECT r.rows, r.same, r.plan INTO rows, same, p FROM pc_run(q, agg_join) r;
  n := jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin" || @."Custom Plan Provider" == "GpuPreAgg")');
  cache := CASE WHEN n IS NULL THEN 'no GPU node'
                ELSE (n->>'Custom Plan Provider') || ': ' ||
                     pc_cache_word(coalesce((n->>'Pages From Page Cache')::bigint, 0),
                                   coalesce((n->>'Pages Into Page Cache')::bigint, 0)) END;
END;
$$;

-- A chain (chain.c) with the cache on: its bottom reads pages, the walk's
-- probe leaving only the rows that can join, and with the cache off
-- tuples (ARCHITECTURE.md, "Chains").  pc_check's
-- comparison with the joins in the order written; "chain" the top node's
-- Chain Levels, "pages" whether any GPU join of it read pages.
CREATE FUNCTION pc_chain(q text, parallel boolean DEFAULT false, OUT rows bigint,
                         OUT same boolean, OUT chain int, OUT pages boolean)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  IF parallel THEN
    PERFORM pc_parallel();
  END IF;
  PERFORM set_config('gpuhash.page_cpu_cost', '-1', true);
  PERFORM set_config('join_collapse_limit', '1', true);
  SELECT c.rows, c.same INTO rows, same FROM pc_check(q) c;
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  SELECT max((n->>'Chain Levels')::int),
         sum(coalesce((n->>'Pages All-Visible')::bigint, 0) + coalesce((n->>'Pages Checked')::bigint, 0)) > 0
    INTO chain, pages
    FROM jsonb_path_query(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")') n;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
END;
$$;

CREATE TABLE pc_dim (k int PRIMARY KEY, name text);
INSERT INTO pc_dim SELECT g, 'n' || g FROM generate_series(0, 499) g;
CREATE TABLE pc_fact (id int, k int, v numeric, note text) WITH (fillfactor = 90);
INSERT INTO pc_fact SELECT g, g % 600, g * 0.25, CASE WHEN g % 7 = 0 THEN NULL ELSE 'x' || g END
  FROM generate_series(1, 60000) g;
VACUUM ANALYZE pc_dim;
VACUUM ANALYZE pc_fact;

-- on: the service sees the setting at its reload, a backend at its next
-- command after the postmaster's signal reached it
ALTER SYSTEM SET gpuhash.page_cache_size = '16MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
CREATE FUNCTION pc_wait_on() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_scan', 'on', true);
  FOR i IN 1 .. 100 LOOP
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) '
            'SELECT count(*) FROM pc_fact f JOIN pc_dim d ON f.k = d.k' INTO p;
    IF jsonb_path_exists(p, '$.** ? (@."Pages Into Page Cache" > 0 || @."Pages From Page Cache" > 0)') THEN
      -- once more: every page in (the setting may have come mid-scan)
      EXECUTE 'SELECT count(*) FROM pc_fact f JOIN pc_dim d ON f.k = d.k';
      RETURN 'on';
    END IF;
    PERFORM pg_sleep(0.05);
  END LOOP;
  RETURN 'the service did not take the setting';
END;
$$;
SELECT pc_wait_on();

-- all-visible pages: filled once, then read from their copies
SELECT * FROM pc_check('SELECT f.id, f.v, d.name FROM pc_fact f JOIN pc_dim d ON f.k = d.k WHERE f.v > 100');
SELECT * FROM pc_check('SELECT f.k, count(*), sum(f.v) FROM pc_fact f JOIN pc_dim d ON f.k = d.k GROUP BY f.k');

-- changes in this session: the changed pages' LSNs move, their copies are not read
UPDATE pc_fact SET v = v + 1 WHERE id % 1000 = 0;
SELECT * FROM pc_check('SELECT f.id, f.v, d.name FROM pc_fact f JOIN pc_dim d ON f.k = d.k WHERE f.v > 100');
-- HOT: only a column no index covers, on pages with room
UPDATE pc_fact SET note = 'hot' || id WHERE id % 997 = 0;
SELECT * FROM pc_check('SELECT f.id, f.note, d.name FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
DELETE FROM pc_fact WHERE id % 501 = 0;
INSERT INTO pc_fact SELECT g, g % 600, g, 'new' FROM generate_series(60001, 60500) g;
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
VACUUM pc_fact;
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');

-- another session: an aborted insert, a committed update, one still open
SELECT dblink_connect('pc_other', 'dbname=' || current_database() || ' port=' || current_setting('port')
  || ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1));
SELECT dblink_exec('pc_other', 'BEGIN; INSERT INTO pc_fact SELECT g, g % 600, -1, ''aborted'' FROM generate_series(1, 3000) g; ROLLBACK');
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
SELECT dblink_exec('pc_other', 'UPDATE pc_fact SET v = -v WHERE id % 300 = 1');
SELECT * FROM pc_check('SELECT f.id, f.v FROM pc_fact f JOIN pc_dim d ON f.k = d.k WHERE f.v < 0');
SELECT dblink_exec('pc_other', 'BEGIN');
SELECT dblink_exec('pc_other', 'UPDATE pc_fact SET v = 0, note = ''open'' WHERE id % 50 = 3');
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
SELECT dblink_exec('pc_other', 'COMMIT');
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');

-- a snapshot taken before another session's change, read again after it
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM pc_check('SELECT f.id, f.v FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
SELECT dblink_exec('pc_other', 'UPDATE pc_fact SET v = v * 2 WHERE id % 40 = 7');
SELECT * FROM pc_check('SELECT f.id, f.v FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
COMMIT;
SELECT dblink_disconnect('pc_other');

-- a new relfilenode (VACUUM FULL, TRUNCATE): its pages are named anew
VACUUM FULL pc_fact;
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
BEGIN;
TRUNCATE pc_fact;
INSERT INTO pc_fact SELECT g, g % 600, g * 2, 'again' FROM generate_series(1, 30000) g;
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
COMMIT;
VACUUM ANALYZE pc_fact;
SELECT * FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');

-- a relation that skips WAL: its LSNs say nothing, its pages are never cached
CREATE UNLOGGED TABLE pc_unlogged AS SELECT * FROM pc_fact;
VACUUM ANALYZE pc_unlogged;
SELECT * FROM pc_check('SELECT f.id, f.v FROM pc_unlogged f JOIN pc_dim d ON f.k = d.k');
UPDATE pc_unlogged SET v = v + 1 WHERE id % 100 = 0;
SELECT * FROM pc_check('SELECT f.id, f.v FROM pc_unlogged f JOIN pc_dim d ON f.k = d.k');

-- parallel walks fill and read the cache at once
SELECT rows, same FROM pc_check('SELECT f.id, f.v, d.name FROM pc_fact f JOIN pc_dim d ON f.k = d.k', parallel => true);

-- GpuPreAgg's requests: partial aggregates over the pages, alone and over a join
SET gpuhash.gpu_aggregate = on;
-- (GpuPreAgg is offered on a device named: the GPU where the run names it, else the host twin)
SELECT set_config('gpuhash.device', CASE current_setting('gpuhash.device') WHEN 'auto' THEN 'host'
                  ELSE current_setting('gpuhash.device') END, false) IS NOT NULL AS device_named;
SELECT * FROM pc_check('SELECT k, count(*), sum(id), max(id) FROM pc_fact GROUP BY k');
UPDATE pc_fact SET v = v + 2 WHERE id % 333 = 0;
SELECT * FROM pc_check('SELECT k, count(*), sum(id), max(id) FROM pc_fact GROUP BY k');
SELECT * FROM pc_check('SELECT d.k, count(*), sum(f.id) FROM pc_fact f JOIN pc_dim d ON f.k = d.k GROUP BY d.k', true);
SET gpuhash.gpu_aggregate = off;
RESET gpuhash.device;

-- chains: inner, left and anti bottoms, a CPU qual, pages changed in this
-- session and in another one (aborted, committed, still open), parallel
CREATE TABLE pc_dim2 (a int, w text);
INSERT INTO pc_dim2 SELECT g, 'w' || g FROM generate_series(-50, 20000, 3) g;
INSERT INTO pc_dim2 VALUES (7, 'seven again'), (NULL, 'null');
ANALYZE pc_dim2;
SELECT * FROM pc_chain('SELECT f.id, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a');
SELECT * FROM pc_chain('SELECT f.id, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a WHERE f.v > 100 AND md5(f.note) > ''4''');
SELECT * FROM pc_chain('SELECT f.id, d.name, e.w FROM pc_fact f LEFT JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a');
SELECT * FROM pc_chain('SELECT f.id, e.w FROM pc_fact f LEFT JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a WHERE d.k IS NULL');
UPDATE pc_fact SET k = 7, id = id + 1 WHERE id % 97 = 0;
DELETE FROM pc_fact WHERE id % 89 = 0;
SELECT * FROM pc_chain('SELECT f.id, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a');
SELECT dblink_connect('pc_other', 'dbname=' || current_database() || ' port=' || current_setting('port')
  || ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1));
SELECT dblink_exec('pc_other', 'BEGIN; INSERT INTO pc_fact SELECT g, g % 600, -1, ''aborted'' FROM generate_series(1, 3000) g; ROLLBACK');
SELECT dblink_exec('pc_other', 'UPDATE pc_fact SET k = 5 WHERE id % 300 = 1');
SELECT dblink_exec('pc_other', 'BEGIN');
SELECT dblink_exec('pc_other', 'UPDATE pc_fact SET k = 3, note = ''open'' WHERE id % 50 = 3');
SELECT * FROM pc_chain('SELECT f.id, f.note, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a');
SELECT dblink_exec('pc_other', 'COMMIT');
SELECT dblink_disconnect('pc_other');
SELECT * FROM pc_chain('SELECT f.id, f.note, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a');
SELECT * FROM pc_chain('SELECT f.id, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a', parallel => true);

-- a chain's bottom takes larger batches of pages than a single join's
-- (gpuhash_page_chain_bottom): each of its walks is followed by a chain
-- request.  Page Requests of the node that read pages, chained and not,
-- with requests bounded by their listed tuples (gpuhash.batch_rows): the
-- pins a batch may hold are a share of shared_buffers (128 with the
-- default 128 MB; under about 14 MB the pins bound both alike).
CREATE TABLE pc_sparse (id int, k int) WITH (fillfactor = 10);
INSERT INTO pc_sparse SELECT g, g % 600 FROM generate_series(1, 40000) g;
VACUUM ANALYZE pc_sparse;
CREATE FUNCTION pc_page_requests(q text, chained boolean) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  r bigint;
BEGIN
  PERFORM set_config('gpuhash.page_cpu_cost', '-1', true);
  PERFORM set_config('join_collapse_limit', '1', true);
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.chain', chained::text, true);
  PERFORM set_config('gpuhash.batch_rows', '256', true);
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  SELECT sum((n->>'Page Requests')::bigint) INTO r
    FROM jsonb_path_query(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")') n
   WHERE n ? 'Page Requests';
  PERFORM set_config('gpuhash.chain', 'on', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  RETURN r;
END;
$$;
SELECT * FROM pc_chain('SELECT s.id, d.name, e.w FROM pc_sparse s JOIN pc_dim d ON s.k = d.k JOIN pc_dim2 e ON s.id = e.a');
-- in many batches: each chain request's wait overlaps the bottom's reading
-- of the batch after next (chain_probe.c, read_ahead), serial and parallel
SET gpuhash.batch_rows = 256;
SELECT * FROM pc_chain('SELECT s.id, d.name, e.w FROM pc_sparse s JOIN pc_dim d ON s.k = d.k JOIN pc_dim2 e ON s.id = e.a');
SELECT * FROM pc_chain('SELECT s.id, d.name, e.w FROM pc_sparse s JOIN pc_dim d ON s.k = d.k JOIN pc_dim2 e ON s.id = e.a', parallel => true);
RESET gpuhash.batch_rows;
SELECT c > 0 AS walked, c < u AS fewer_requests
  FROM (SELECT pc_page_requests(q, true) AS c, pc_page_requests(q, false) AS u
          FROM (SELECT 'SELECT s.id, d.name, e.w FROM pc_sparse s JOIN pc_dim d ON s.k = d.k JOIN pc_dim2 e ON s.id = e.a'::text AS q) x) y;

-- q's rows natively, as a multiset (their count and a sum of their
-- hashes); then, for the rest of the transaction, a chain over pages in
-- 256-row batches forced on, as pc_chain's
CREATE FUNCTION pc_native_rows(q text, OUT n bigint, OUT h bigint)
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('gpuhash.page_cpu_cost', '-1', true);
  PERFORM set_config('join_collapse_limit', '1', true);
  PERFORM set_config('gpuhash.batch_rows', '256', true);
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'SELECT count(*), coalesce(sum(hashtext(r__::text)), 0) FROM (' || q || ') r__'
    INTO n, h;
  PERFORM gh_force_on();
END;
$$;

-- A chain's cursor read a row at a time while its walks are out, against
-- the native plan's rows.  how = 'flip': its session turns
-- gpuhash.page_in_place off after the tenth row (one of the settings that
-- decide whether the bottom reads pages, as is a reload of the page
-- cache's size between fetches): the bottom's choice holds for the whole
-- scan, so the batches whose walks were out then are still joined.  how =
-- 'abort': first the query fails at row id fail_at inside an EXCEPTION
-- block (caught: the subtransaction's pins go only once the service
-- answered its walks, whose own cleanup comes later, with SPI's memory),
-- then every 500th row of the cursor, opened outside them, an EXCEPTION
-- block fails: the cursor keeps its batches in flight across the aborts.
CREATE FUNCTION pc_fetch_across(q text, how text, fail_at int DEFAULT 0,
                                OUT caught boolean, OUT rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  c refcursor;
  r record;
  n bigint := 0;
  h bigint := 0;
  native_n bigint;
  native_h bigint;
BEGIN
  SELECT * INTO native_n, native_h FROM pc_native_rows(q);
  caught := false;
  IF how = 'abort' THEN
    BEGIN
      EXECUTE 'SELECT count(*) FROM (' || q || ') r__ WHERE 1 / (r__.id - ' || fail_at || ') <> 2'
        INTO n;
    EXCEPTION WHEN division_by_zero THEN
      caught := true;
    END;
    n := 0;
  END IF;
  OPEN c FOR EXECUTE q;
  LOOP
    FETCH c INTO r;
    EXIT WHEN NOT FOUND;
    n := n + 1;
    h := h + hashtext(r::text);
    IF how = 'flip' AND n = 10 THEN
      PERFORM set_config('gpuhash.page_in_place', 'off', true);
    ELSIF how = 'abort' AND n % 500 = 1 THEN
      BEGIN
        PERFORM 1 / (n - n);
      EXCEPTION WHEN division_by_zero THEN
        NULL;
      END;
    END IF;
  END LOOP;
  CLOSE c;
  PERFORM set_config('gpuhash.page_in_place', 'on', true);
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
  rows := n;
  same := n = native_n AND h = native_h;
END;
$$;
SELECT rows, same FROM pc_fetch_across('SELECT s.id, d.name, e.w FROM pc_sparse s JOIN pc_dim d ON s.k = d.k JOIN pc_dim2 e ON s.id = e.a', 'flip');
SELECT * FROM pc_fetch_across('SELECT s.id, d.name, e.w FROM pc_sparse s JOIN pc_dim d ON s.k = d.k JOIN pc_dim2 e ON s.id = e.a', 'abort', 15001);

-- a row whose combinations exceed one chain probe (GH_CHAIN_MAX_COMBINATIONS,
-- 2^25: 5 800 x 5 800) in the middle of a batch of pages: the requests
-- before it are emitted, then the rest of the batch, more rows than
-- gpuhash.batch_rows (which sizes the kept columns' arrays), goes back to
-- the bottom and the nodes finish the scan one by one (chain_probe.c,
-- unfuse_now).  The sum and count natively and so; whether the bottom read
-- pages, made chain requests, and why the chain stopped.
CREATE TABLE pc_fan (id int, k int, b int);
INSERT INTO pc_fan SELECT g, CASE WHEN g = 2500 THEN 1 ELSE 2 + g % 50 END,
                          CASE WHEN g = 2500 THEN 1 ELSE 2 + g % 7 END
  FROM generate_series(1, 20000) g;
CREATE TABLE pc_fan_a (k int);
INSERT INTO pc_fan_a SELECT 1 FROM generate_series(1, 5800);
INSERT INTO pc_fan_a SELECT g FROM generate_series(2, 51) g;
CREATE TABLE pc_fan_b (b int);
INSERT INTO pc_fan_b SELECT 1 FROM generate_series(1, 5800);
INSERT INTO pc_fan_b SELECT g FROM generate_series(2, 8) g;
VACUUM ANALYZE pc_fan;
VACUUM ANALYZE pc_fan_a;
VACUUM ANALYZE pc_fan_b;
CREATE FUNCTION pc_unfused(q text, OUT native text, OUT same boolean, OUT pages boolean,
                           OUT chain_requests boolean, OUT unfused text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  gpu text;
BEGIN
  PERFORM set_config('join_collapse_limit', '1', true);
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'SELECT r__::text FROM (' || q || ') r__' INTO native;
  PERFORM gh_force_on();
  PERFORM set_config('gpuhash.page_cpu_cost', '-1', true);
  PERFORM set_config('gpuhash.batch_rows', '512', true);
  EXECUTE 'SELECT r__::text FROM (' || q || ') r__' INTO gpu;
  same := gpu = native;
  EXECUTE 'EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  SELECT sum(coalesce((n->>'Pages All-Visible')::bigint, 0) + coalesce((n->>'Pages Checked')::bigint, 0)) > 0,
         bool_or(coalesce((n->>'Chain Requests')::bigint, 0) > 0),
         string_agg(n->>'Chain Unfused', ', ')
    INTO pages, chain_requests, unfused
    FROM jsonb_path_query(p, 'strict $.** ? (@."Custom Plan Provider" == "GpuHashJoin")') n;
  PERFORM set_config('enable_hashjoin', 'on', true);
  PERFORM set_config('enable_mergejoin', 'on', true);
END;
$$;
SELECT * FROM pc_unfused('SELECT count(*), sum(f.id) FROM pc_fan f JOIN pc_fan_a a ON f.k = a.k JOIN pc_fan_b b ON f.b = b.b');

-- The inner side's pages read from their copies too: a join's inner walk
-- that makes the build's keys alone (page_inner.c, no inner column kept)
-- and a GPU aggregate's dimension from pages (agg_join_pages.c) go as
-- REQ_DIM_PAGES.  pc_run's comparison; "walk" says which walk the inner
-- side took, "cache" what the first run's inner walk did.
CREATE FUNCTION pc_inner(q text, agg_join boolean DEFAULT false, OUT rows bigint,
                         OUT same boolean, OUT walk text, OUT cache text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
  n jsonb;
BEGIN
  PERFORM set_config('gpuhash.page_inner', 'always', true);
  PERFORM set_config('gpuhash.page_inner_service', 'on', true);
  SELECT r.rows, r.same, r.plan INTO rows, same, p FROM pc_run(q, agg_join) r;
  n := jsonb_path_query_first(p, '$.** ? (exists (@."Inner Keys From Walker") || @."Dimension" == "pages")');
  walk := CASE WHEN n IS NULL THEN 'none' WHEN n ? 'Inner Keys From Walker' THEN 'keys'
               ELSE 'dimension' END;
  cache := pc_cache_word(coalesce((n->>'Inner Pages From Page Cache')::bigint, 0),
                         coalesce((n->>'Inner Pages Into Page Cache')::bigint, 0));
END;
$$;
CREATE TABLE pc_in (a int, pad text);
INSERT INTO pc_in SELECT g, repeat('p', 40) FROM generate_series(-50, 30000, 2) g;
INSERT INTO pc_in VALUES (NULL, 'null'), (8, 'eight again');
VACUUM ANALYZE pc_in;
SET gpuhash.gpu_aggregate = on;
SELECT set_config('gpuhash.device', CASE current_setting('gpuhash.device') WHEN 'auto' THEN 'host'
                  ELSE current_setting('gpuhash.device') END, false) IS NOT NULL AS device_named;
SELECT * FROM pc_inner('SELECT f.id FROM pc_fact f JOIN pc_in i ON f.id = i.a');
SELECT * FROM pc_inner('SELECT f.id FROM pc_fact f JOIN pc_in i ON f.id = i.a WHERE i.a BETWEEN 100 AND 20000');
SELECT * FROM pc_inner('SELECT count(*), sum(f.id) FROM pc_fact f JOIN pc_in i ON f.id = i.a', true);
-- changed in this session: those pages' copies are not read
UPDATE pc_in SET a = a + 1 WHERE a % 1000 = 0;
DELETE FROM pc_in WHERE a % 777 = 0;
SELECT * FROM pc_inner('SELECT f.id FROM pc_fact f JOIN pc_in i ON f.id = i.a');
SELECT * FROM pc_inner('SELECT count(*), sum(f.id) FROM pc_fact f JOIN pc_in i ON f.id = i.a', true);
-- another session: aborted, committed, still open
SELECT dblink_connect('pc_other', 'dbname=' || current_database() || ' port=' || current_setting('port')
  || ' host=' || split_part(current_setting('unix_socket_directories'), ',', 1));
SELECT dblink_exec('pc_other', 'BEGIN; INSERT INTO pc_in SELECT g, ''aborted'' FROM generate_series(1, 3000) g; ROLLBACK');
SELECT dblink_exec('pc_other', 'UPDATE pc_in SET a = -a WHERE a % 300 = 4');
SELECT dblink_exec('pc_other', 'BEGIN');
SELECT dblink_exec('pc_other', 'UPDATE pc_in SET a = a + 1 WHERE a % 50 = 6');
SELECT * FROM pc_inner('SELECT f.id FROM pc_fact f JOIN pc_in i ON f.id = i.a');
SELECT * FROM pc_inner('SELECT count(*), sum(f.id) FROM pc_fact f JOIN pc_in i ON f.id = i.a', true);
SELECT dblink_exec('pc_other', 'COMMIT');
SELECT dblink_disconnect('pc_other');
SELECT * FROM pc_inner('SELECT f.id FROM pc_fact f JOIN pc_in i ON f.id = i.a');
VACUUM pc_in;
SELECT * FROM pc_inner('SELECT f.id FROM pc_fact f JOIN pc_in i ON f.id = i.a');
SELECT * FROM pc_inner('SELECT count(*), sum(f.id) FROM pc_fact f JOIN pc_in i ON f.id = i.a', true);
SET gpuhash.gpu_aggregate = off;
RESET gpuhash.device;

-- a cache smaller than the table: entries evicted and refilled by the clock
ALTER SYSTEM SET gpuhash.page_cache_size = '1MB';
SELECT pg_reload_conf();
SELECT pg_sleep(1.2);
SELECT rows, same FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
UPDATE pc_fact SET v = v + 1 WHERE id % 77 = 0;
SELECT rows, same FROM pc_check('SELECT f.id, f.v, f.note FROM pc_fact f JOIN pc_dim d ON f.k = d.k');

-- off (0): no page is read from a copy; then the server's own setting again
ALTER SYSTEM SET gpuhash.page_cache_size = 0;
SELECT pg_reload_conf();
SELECT pg_sleep(0.2);
SELECT * FROM pc_check('SELECT f.id, f.v FROM pc_fact f JOIN pc_dim d ON f.k = d.k');
-- and a chain's bottom reads tuples again
SELECT * FROM pc_chain('SELECT f.id, d.name, e.w FROM pc_fact f JOIN pc_dim d ON f.k = d.k JOIN pc_dim2 e ON f.id = e.a');
ALTER SYSTEM RESET gpuhash.page_cache_size;
SELECT pg_reload_conf();

DROP TABLE pc_fact, pc_dim, pc_dim2, pc_unlogged, pc_sparse, pc_fan, pc_fan_a, pc_fan_b, pc_in;
DROP FUNCTION pc_inner(text, boolean);
DROP FUNCTION pc_check(text, boolean, boolean);
DROP FUNCTION pc_run(text, boolean);
DROP FUNCTION pc_cache_word(bigint, bigint);
DROP FUNCTION pc_chain(text, boolean);
DROP FUNCTION pc_parallel();
DROP FUNCTION pc_fetch_across(text, text, int);
DROP FUNCTION pc_native_rows(text);
DROP FUNCTION pc_page_requests(text, boolean);
DROP FUNCTION pc_unfused(text);
DROP FUNCTION pc_wait_on();

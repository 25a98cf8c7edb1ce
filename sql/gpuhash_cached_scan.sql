--
-- gpuhash.cached_scan_fraction (heap_scan.c): heapam reads a table over a
-- quarter of shared_buffers through a small ring of buffers, so each scan
-- reads its pages in again; an absorbed scan of a table up to the fraction
-- keeps them in shared buffers.  Seen in EXPLAIN (BUFFERS): the blocks the
-- join's scans read in ("Shared Read Blocks") once they have run before.
-- The table is 3/8 of shared_buffers, made by CREATE TABLE AS (whose own
-- ring leaves most of it out of shared buffers), one row per page.
--
SET client_min_messages = warning;
SET enable_nestloop = off;
SET max_parallel_workers_per_gather = 0;
SELECT setting::int * 3 / 8 AS cs_pages FROM pg_settings WHERE name = 'shared_buffers' \gset
CREATE UNLOGGED TABLE cs_big WITH (fillfactor = 10) AS
  SELECT g AS id, g % 100 AS k, repeat('x', 700) AS pad FROM generate_series(1, :cs_pages) g;
CREATE TABLE cs_keys AS SELECT g AS k FROM generate_series(0, 99, 3) g;
ANALYZE cs_big;
ANALYZE cs_keys;
SELECT pg_relation_size('cs_big') / current_setting('block_size')::int
       BETWEEN :cs_pages AND :cs_pages + 1 AS one_row_a_page;

-- blocks read in by the last of n runs of q, GPU join forced
CREATE FUNCTION cs_reads(q text, n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  p json;
BEGIN
  PERFORM gh_force_on();
  FOR i IN 1 .. n LOOP
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) ' || q INTO p;
  END LOOP;
  RETURN (p->0->'Plan'->>'Shared Read Blocks')::bigint;
END;
$$;

-- the ring, as PostgreSQL's Seq Scan: most pages read in again each time
SET gpuhash.cached_scan_fraction = 0;
SELECT l FROM gh_explain('SELECT count(*) FROM cs_big b JOIN cs_keys i ON b.k = i.k') l
WHERE l ~ 'Outer Scan';
SELECT cs_reads('SELECT count(*) FROM cs_big b JOIN cs_keys i ON b.k = i.k', 2) > :cs_pages / 4
  AS ring_reads_again;
-- kept: after the first run the pages are in shared buffers
RESET gpuhash.cached_scan_fraction;
SELECT cs_reads('SELECT count(*) FROM cs_big b JOIN cs_keys i ON b.k = i.k', 3) < :cs_pages / 10
  AS kept_in_shared_buffers;
-- the same rows either way
SELECT * FROM gh_check('SELECT b.id, i.k FROM cs_big b JOIN cs_keys i ON b.k = i.k');
SET gpuhash.cached_scan_fraction = 0;
SELECT * FROM gh_check('SELECT b.id, i.k FROM cs_big b JOIN cs_keys i ON b.k = i.k');
-- parallel (the shared block allocator), with and without the ring
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SELECT l FROM gh_explain('SELECT i.k, b.id FROM cs_keys i JOIN cs_big b ON i.k = b.k WHERE b.id % 7 = 0') l
WHERE l ~ 'Outer Scan';
SELECT * FROM gh_check('SELECT i.k, b.id FROM cs_keys i JOIN cs_big b ON i.k = b.k WHERE b.id % 7 = 0');
RESET gpuhash.cached_scan_fraction;
SELECT * FROM gh_check('SELECT i.k, b.id FROM cs_keys i JOIN cs_big b ON i.k = b.k WHERE b.id % 7 = 0');

-- only a superuser may change it: it decides what other sessions' pages
-- an absorbed scan may evict
CREATE ROLE cs_user;
SET ROLE cs_user;
SET gpuhash.cached_scan_fraction = 0.9;
RESET ROLE;
DROP ROLE cs_user;
DROP FUNCTION cs_reads(text, int);
DROP TABLE cs_big, cs_keys;

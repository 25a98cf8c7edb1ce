-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- The GPU service (gpuhash in shared_preload_libraries): joins run through
-- it, EXPLAIN ANALYZE says so, and tables are freed when their query ends.
-- test/service_check.sh covers what needs several sessions: concurrency,
-- a backend killed mid-join, the service itself restarted.
--
SET client_min_messages = warning;
SELECT service LIKE 'running (pid %' AS running, staging_mb > 0 AS has_staging
FROM gpuhash_info() LIMIT 1;

-- the path a join took, from EXPLAIN (ANALYZE, FORMAT JSON)
CREATE FUNCTION gh_path(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) ' || q INTO p;
  RETURN jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")')->>'Path';
END;
$$;

-- waits until the service holds n tables (polls, in case a free is slow)
CREATE FUNCTION gh_tables_become(n integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..500 LOOP
    IF (SELECT tables_alive FROM gpuhash_info() LIMIT 1) = n THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END;
$$;

SELECT gh_path('SELECT count(*) FROM r JOIN s ON r.k4 = s.k4');
SET gpuhash.use_service = off;
SELECT gh_path('SELECT count(*) FROM r JOIN s ON r.k4 = s.k4');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');
RESET gpuhash.use_service;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');

-- a join's table lives as long as its query: an open cursor holds it, and
-- at most the probe of its next batch in flight (one staging chunk, 4 MB);
-- closed, it holds neither
SELECT gh_tables_become(0);
BEGIN;
SELECT gh_force_on();
DECLARE c CURSOR FOR SELECT r.id FROM r JOIN s ON r.k4 = s.k4;
FETCH 1 FROM c;
SELECT gh_tables_become(1);
SELECT staging_in_use_mb <= 4 AS at_most_one_chunk FROM gpuhash_info() LIMIT 1;
CLOSE c;
SELECT staging_in_use_mb FROM gpuhash_info() LIMIT 1;
COMMIT;
SELECT gh_tables_become(0);

-- an error in the query (division by zero in the join filter) frees it too
BEGIN;
SELECT gh_force_on();
SELECT count(*) FROM r JOIN s ON r.k4 = s.k4 AND 1 / (s.id - 1500) > 0;
ROLLBACK;
SELECT gh_tables_become(0);

-- a batch larger than a staging chunk (4 MB: 512k keys) is split
SET gpuhash.batch_rows = 1000000;
SELECT * FROM gh_check('SELECT g, s.id FROM generate_series(1, 700000) g JOIN s ON g = s.k4');
SELECT * FROM gh_check('SELECT g, s.id FROM generate_series(-10, 700000) g JOIN s ON g % 1500 = s.k4');
RESET gpuhash.batch_rows;
SELECT gh_tables_become(0);

-- parallel plans: the inner side is read once and the table built once in
-- the service; every participant probes it with its share of the outer side
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
-- how a parallel-aware join read its inner side: 'all' participants a share
-- of a partial plan, or 'one' of them the whole plan (its loops: 1, or a
-- Seq Scan the join absorbed)
CREATE FUNCTION gh_parallel(q text, OUT parallel_aware boolean, OUT inner_readers text,
                            OUT builds integer, OUT inner_rows bigint)
LANGUAGE plpgsql AS $$
DECLARE
  n jsonb := gh_node(q);
BEGIN
  parallel_aware := (n->>'Parallel Aware')::boolean;
  inner_readers := CASE WHEN n ? 'Parallel Inner Scan' THEN 'all'
                        WHEN n ? 'Inner Scan' THEN 'one (absorbed)'
                        WHEN (n->'Plans'->-1->>'Parallel Aware')::boolean THEN 'all'
                        ELSE 'one (loops ' || (n->'Plans'->-1->>'Actual Loops') || ')' END;
  builds := (n->>'Shared Table Builds')::integer;
  inner_rows := (n->>'Inner Rows')::bigint;
END;
$$;
SELECT * FROM gh_explain('SELECT count(*) FROM r JOIN s ON r.k4 = s.k4');
SELECT * FROM gh_explain('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');
SELECT * FROM gh_parallel('SELECT count(*) FROM r JOIN s ON r.k4 = s.k4');
-- with timing, a build over all readers shows the time its participants
-- spent putting their shares in the DSA and laying them out (Share Time)
SELECT (gh_node('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4', true)->>'Share Time')::float8 > 0
  AS share_timed;
-- with timing and VERBOSE, where the requests the node waited for went
-- (each step summed over the participants)
SELECT gh_node('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4', true, true)->>'Service Waits' ~
       '^[1-9][0-9]* requests: queued [0-9.]+ ms, to a thread [0-9.]+ ms, served [0-9.]+ ms, answer seen [0-9.]+ ms$'
  AS waits_shown;
-- the workers' figures reach the leader's node summed: with the leader out of
-- the plan, all of r's pages are counted, every one once
SET parallel_leader_participation = off;
SELECT (gh_node('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4')->>'Outer Pages')::bigint =
       pg_relation_size('r') / current_setting('block_size')::int AS pages_summed;
RESET parallel_leader_participation;
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');
SELECT * FROM gh_check('SELECT r.v, s.w, r.d FROM r JOIN s ON r.k8 = s.k8');
SELECT * FROM gh_check('SELECT r.k2, count(*), max(s.w) FROM r JOIN s ON r.k2 = s.k2 GROUP BY r.k2');
SELECT * FROM gh_check('SELECT r.id FROM r JOIN s ON r.k4 = s.k4 AND s.id < 0');
-- a rescanned parallel join (under a nested loop) rebuilds its shared table
SELECT * FROM gh_check('SELECT f.k, (SELECT count(*) FROM r JOIN s ON r.k4 = s.k4 WHERE s.k2 = f.k)
                        FROM (VALUES (1), (2), (3)) f(k)');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- a probe batch is one service request: gpuhash.batch_rows larger than a
-- staging chunk (256 MB / 64 = 524,288 keys) makes batches of a chunk
SET gpuhash.batch_rows = 1048576;
SELECT l FROM gh_explain('SELECT count(*) FROM generate_series(1, 600000) o(k) JOIN r ON o.k % 1000 = r.k4',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF') l
WHERE l ~ 'Probe (Batches|Requests)';
RESET gpuhash.batch_rows;
SELECT gh_tables_become(0);

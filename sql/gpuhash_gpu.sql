-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- GPU-only tests: run by test/run-all.sh when the server's gpuhash.device is
-- gpu (a GPU is usable).  GPU failures must never crash the backend or lose
-- rows: in auto mode the join falls back to the host twin, in gpu mode it is
-- a clean ERROR, and the session keeps working either way.
--
SET client_min_messages = warning;
SHOW gpuhash.device;
SELECT name IS NOT NULL AS named, memory_mb > 0 AS has_memory, in_use, session_device
FROM gpuhash_info() WHERE gpu = 0;

CREATE TABLE g_outer AS SELECT g AS id, g % 50000 AS k FROM generate_series(1, 200000) g;
CREATE TABLE g_inner AS SELECT g AS id, g AS k FROM generate_series(1, 100000) g;
ANALYZE g_outer;
ANALYZE g_inner;

-- the GPU runs the join and says so
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');
SELECT n->>'Device' AS device, (n->>'GPU Memory')::bigint > 0 AS gpu_memory,
       n->>'GPU Fallbacks' AS fallbacks, n->>'Inner Rows' AS inner_rows
FROM gh_node('SELECT count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k') n;

-- a GPU memory budget too small for the table: the join splits into hash
-- batches that fit, and stays on the GPU
SET gpuhash.device = auto;
SET gpuhash.max_gpu_memory = '1MB';
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');
SELECT n->>'Device' AS device, (n->>'GPU Memory')::bigint > 0 AS gpu_memory,
       n->>'GPU Fallbacks' AS fallbacks, n->>'Inner Rows' AS inner_rows,
       (n->>'Hash Batches')::int > 1 AS batched
FROM gh_node('SELECT count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k') n;
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o FULL JOIN g_inner i ON o.k = i.k');

-- one key on every row cannot be split: auto mode falls back to the host
CREATE TABLE g_one AS SELECT g AS id, 1 AS k FROM generate_series(1, 300000) g;
ANALYZE g_one;
SELECT * FROM gh_check('SELECT count(*) FROM g_outer o JOIN g_one i ON o.k = i.k');
SELECT n->>'Device' AS device, n->>'GPU Fallbacks' AS fallbacks
FROM gh_node('SELECT count(*) FROM g_outer o JOIN g_one i ON o.k = i.k') n;

-- gpu mode: the same failure is a clean ERROR, and the session goes on
SET gpuhash.device = gpu;
DO $$
BEGIN
  PERFORM gh_force_on();
  PERFORM count(*) FROM g_outer o JOIN g_one i ON o.k = i.k;
  RAISE WARNING 'no error';
EXCEPTION WHEN others THEN
  RAISE WARNING 'clean error: %', substr(SQLERRM, 1, 50);
END $$;
RESET gpuhash.max_gpu_memory;
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');

-- cancelled mid-join (statement_timeout): the GPU table is freed, the
-- session and the GPU keep working
CREATE TABLE g_big AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 3000000) g;
CREATE TABLE g_dup AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 100000) g;
ANALYZE g_big;
ANALYZE g_dup;
SELECT gh_force_on();
-- 3x10^8 result rows: long after the small inner side is built
SET statement_timeout = '1s';
SELECT count(*) FROM g_big a JOIN g_dup b ON a.k = b.k;
RESET statement_timeout;
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');
SELECT n->>'Device' AS device, (n->>'GPU Memory')::bigint > 0 AS gpu_memory
FROM gh_node('SELECT count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k') n;
DROP TABLE g_big;
DROP TABLE g_dup;

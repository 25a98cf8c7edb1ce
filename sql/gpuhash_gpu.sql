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
SELECT gh_force_on();
SELECT line ~ 'GPU Memory: [0-9]+ kB' AS gpu_memory_shown
FROM (SELECT * FROM gh_explain('SELECT count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k',
                               'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF')) e(line)
WHERE line ~ 'Device';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k;

-- a GPU memory budget too small for the table: auto mode falls back
SET gpuhash.device = auto;
SET gpuhash.max_gpu_memory = '1MB';
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');
SELECT gh_force_on();
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
SELECT count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k;

-- gpu mode: the same failure is a clean ERROR, and the session goes on
SET gpuhash.device = gpu;
DO $$
BEGIN
  PERFORM gh_force_on();
  PERFORM count(*) FROM g_outer o JOIN g_inner i ON o.k = i.k;
  RAISE NOTICE 'no error';
EXCEPTION WHEN others THEN
  RAISE WARNING 'clean error: %', substr(SQLERRM, 1, 50);
END $$;
RESET gpuhash.max_gpu_memory;
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');

-- cancelled mid-join (statement_timeout): the GPU table is freed, the
-- session and the GPU keep working
CREATE TABLE g_big AS SELECT g AS id, g % 1000 AS k FROM generate_series(1, 2000000) g;
ANALYZE g_big;
SELECT gh_force_on();
SET statement_timeout = '300ms';
SELECT count(*) FROM g_big a JOIN g_big b ON a.k = b.k;
RESET statement_timeout;
SELECT * FROM gh_check('SELECT o.id, i.id FROM g_outer o JOIN g_inner i ON o.k = i.k');
DROP TABLE g_big;

--
-- EXPLAIN shows the GPU node with its keys, scheme and device; ANALYZE adds
-- the inner rows, distinct keys and batches (times only with TIMING on).
--
SELECT * FROM gh_explain('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4');
SELECT * FROM gh_explain('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4 AND r.k2 = s.k2 AND r.id < s.id');
SELECT * FROM gh_explain('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4 AND r.k2 = s.k2', 'COSTS OFF, VERBOSE');
-- auto chose the scheme: VERBOSE says why; a fixed scheme needs no reason
SET gpuhash.scheme = hashgraph;
SELECT * FROM gh_explain('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4', 'COSTS OFF, VERBOSE');
RESET gpuhash.scheme;
SET gpuhash.batch_rows = 1000;
SELECT * FROM gh_explain('SELECT count(*) FROM r JOIN s ON r.k8 = s.k8',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
SET gpuhash.scheme = fks;
SELECT * FROM gh_explain('SELECT count(*) FROM s JOIN r ON r.k4 = s.k4 AND r.id > s.id',
                         'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF');
RESET gpuhash.scheme;
RESET gpuhash.batch_rows;

-- the join is costed: a tiny join keeps PostgreSQL's plan at default costs
SET gpuhash.setup_cost = 1000000;
EXPLAIN (COSTS OFF) SELECT * FROM few a JOIN few b ON a.k = b.k;
RESET gpuhash.setup_cost;

-- off means off
SET enable_gpuhashjoin = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT * FROM r JOIN s ON r.k4 = s.k4;
RESET ALL;

-- settings
SHOW gpuhash.batch_rows;
SHOW gpuhash.scheme;
SET gpuhash.scheme = robinhood;
SET gpuhash.batch_rows = 0;
SET gpuhash.device = tpu;
SELECT name, CASE WHEN name = 'gpuhash.device' THEN '<set by the test run>' ELSE setting END, context
FROM pg_settings
WHERE name LIKE 'gpuhash.%' OR name = 'enable_gpuhashjoin' ORDER BY name;
SELECT count(*) >= 1 AS has_rows, bool_and(session_device IS NOT NULL) AS says_device FROM gpuhash_info();

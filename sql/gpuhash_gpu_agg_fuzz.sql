--
-- Cases the GPU aggregate's differential fuzzer (test/fuzz/agg_fuzz.py)
-- found, each run with the GPU aggregate off and on (serial and parallel),
-- its plan shown so that the on run is known to use GpuPreAgg.
--
SET client_min_messages = warning;
SET extra_float_digits = 3;
SET gpuhash.device = host;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
SET max_parallel_workers_per_gather = 0;

-- sum(float4/float8) of -0 inputs only is -0 (float4pl/float8pl start from
-- the first input, not from +0), beside a group whose -0 meets a +0
CREATE TABLE gaf_nz (k int4, f4 float4, f8 float8) WITH (autovacuum_enabled = off);
INSERT INTO gaf_nz VALUES (1, '-0', '-0'), (1, '-0', '-0'), (2, '-0', '-0'), (2, 0, 0),
  (3, NULL, NULL), (3, '-0', '-0'), (4, NULL, NULL);
-- enough pages for the planner to take the GPU aggregate; all-visible, so
-- that the walker folds them
INSERT INTO gaf_nz SELECT 5, 1, 1 FROM generate_series(1, 20000);
VACUUM ANALYZE gaf_nz;
EXPLAIN (COSTS OFF) SELECT k, sum(f4), sum(f8) FROM gaf_nz GROUP BY k;
SET gpuhash.gpu_aggregate = off;
SELECT k, sum(f4), sum(f8), count(f8) FROM gaf_nz GROUP BY k ORDER BY k;
SELECT sum(f4), sum(f8) FROM gaf_nz WHERE k = 1;
SET gpuhash.gpu_aggregate = on;
SELECT k, sum(f4), sum(f8), count(f8) FROM gaf_nz GROUP BY k ORDER BY k;
SELECT sum(f4), sum(f8) FROM gaf_nz WHERE k = 1;

-- gpuhash through LOAD, without shared_preload_libraries
LOAD 'gpuhash';
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
CREATE TEMP TABLE la AS SELECT g AS k, g % 97 AS m FROM generate_series(1, 5000) g;
CREATE TEMP TABLE lb AS SELECT g AS k, g % 89 AS m FROM generate_series(1, 3000) g;
ANALYZE la;
ANALYZE lb;
-- the plan of the join whose rows are compared (a count(*) over it would be
-- a GpuPreAgg over the join)
EXPLAIN (COSTS OFF) SELECT la.k AS a, lb.k AS b FROM la JOIN lb ON la.m = lb.m;
CREATE TEMP TABLE on_res AS SELECT la.k AS a, lb.k AS b FROM la JOIN lb ON la.m = lb.m;
SET enable_gpuhashjoin = off;
RESET enable_hashjoin;
CREATE TEMP TABLE off_res AS SELECT la.k AS a, lb.k AS b FROM la JOIN lb ON la.m = lb.m;
SELECT 'load check: ' || CASE WHEN (SELECT count(*) FROM (SELECT * FROM on_res EXCEPT ALL SELECT * FROM off_res) x) = 0
  AND (SELECT count(*) FROM (SELECT * FROM off_res EXCEPT ALL SELECT * FROM on_res) y) = 0
  AND (SELECT count(*) FROM on_res) > 0 THEN 'same' ELSE 'DIFFERENT' END;

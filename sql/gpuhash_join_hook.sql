-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
-- gpuhash notices when its join hook is no longer called: a library loaded
-- after it (Citus, listed after gpuhash in shared_preload_libraries) can set
-- set_join_pathlist_hook without calling the hook it found.  The testing
-- knob gpuhash.test_bypass_join_hook makes the hook act so.
CREATE TABLE jh_a (k int);
CREATE TABLE jh_b (k int);
INSERT INTO jh_a SELECT g FROM generate_series(1, 100) g;
INSERT INTO jh_b SELECT g FROM generate_series(1, 100) g;
ANALYZE jh_a, jh_b;
CREATE FUNCTION jh_uses_gpu(q text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        IF line LIKE '%GpuHashJoin%' THEN
            RETURN true;
        END IF;
    END LOOP;
    RETURN false;
END $$;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET gpuhash.setup_cost = 0;
-- a new session has planned no join yet
SELECT DISTINCT join_hook FROM gpuhash_info();
-- joins PostgreSQL knows empty never reach any join hook: no conclusion
SELECT count(*) FROM jh_a JOIN jh_b USING (k) WHERE false;
SELECT DISTINCT join_hook FROM gpuhash_info();
SELECT jh_uses_gpu('SELECT count(*) FROM jh_a JOIN jh_b USING (k)');
SELECT DISTINCT join_hook FROM gpuhash_info();
\c
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_nestloop = off;
SET gpuhash.setup_cost = 0;
SET gpuhash.test_bypass_join_hook = on;
-- nor with the hook bypassed: an empty join, a join gated by a pseudoconstant
SELECT count(*) FROM jh_a JOIN jh_b USING (k) WHERE false;
SELECT count(*) FROM jh_a JOIN jh_b USING (k) WHERE now() IS NULL;
SELECT DISTINCT join_hook FROM gpuhash_info();
-- a join planned without the hook: a WARNING that names the fix, once
SELECT jh_uses_gpu('SELECT count(*) FROM jh_a JOIN jh_b USING (k)');
SELECT jh_uses_gpu('SELECT count(*) FROM jh_a JOIN jh_b USING (k)');
SELECT DISTINCT join_hook FROM gpuhash_info();
SELECT count(*) FROM jh_a JOIN jh_b USING (k);
-- no WARNING while GPU joins are off; it comes once they are on
\c
SET enable_gpuhashjoin = off;
SET gpuhash.test_bypass_join_hook = on;
SELECT count(*) FROM jh_a JOIN jh_b USING (k);
SELECT DISTINCT join_hook FROM gpuhash_info();
SET enable_gpuhashjoin = on;
SELECT count(*) FROM jh_a JOIN jh_b USING (k);
SELECT count(*) FROM jh_a JOIN jh_b USING (k);
-- the knob is a superuser's
CREATE ROLE jh_user;
SET ROLE jh_user;
SET gpuhash.test_bypass_join_hook = off;
RESET ROLE;
DROP ROLE jh_user;
DROP FUNCTION jh_uses_gpu(text);
DROP TABLE jh_a, jh_b;

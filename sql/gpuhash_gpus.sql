-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Several GPUs (service_gpus.c, cuda/partitioned.cpp).  The GPU service
-- partitions a table by key over GPUs when no GPU has room for it alone;
-- the host twin builds the same partitioned tables with
-- gpuhash.host_partitions, so the joins below run on partitioned tables
-- everywhere (on the host twin, whatever the machine).  The GPU side, with
-- two GPUs, is test/multi_gpu_check.sh.
--
SET gpuhash.device = host;
CREATE TABLE gp_o (k bigint, v int);
CREATE TABLE gp_i (k bigint, w int);
INSERT INTO gp_o SELECT g % 5000, g FROM generate_series(1, 30000) g;
INSERT INTO gp_o VALUES (NULL, -1), (0, -2), (-9223372036854775808, -3), (9223372036854775807, -4);
INSERT INTO gp_i SELECT g % 2500 * 2, g FROM generate_series(1, 8000) g;
INSERT INTO gp_i SELECT 7, g FROM generate_series(1, 300) g;	-- heavy duplicates
INSERT INTO gp_i VALUES (NULL, -1), (0, -2), (-9223372036854775808, -3), (9223372036854775807, -4);
ANALYZE gp_o, gp_i;

-- every join type over tables of 3 parts (rows of a key in one part)
SET gpuhash.host_partitions = 3;
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o JOIN gp_i i ON o.k = i.k$$);
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o LEFT JOIN gp_i i ON o.k = i.k$$);
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o RIGHT JOIN gp_i i ON o.k = i.k$$);
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o FULL JOIN gp_i i ON o.k = i.k$$);
SELECT * FROM gh_check($$SELECT o.v FROM gp_o o WHERE EXISTS (SELECT 1 FROM gp_i i WHERE i.k = o.k)$$);
SELECT * FROM gh_check($$SELECT o.v FROM gp_o o WHERE NOT EXISTS (SELECT 1 FROM gp_i i WHERE i.k = o.k)$$);
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o JOIN gp_i i ON o.k = i.k AND o.v % 3 <> i.w % 3$$);
-- EXPLAIN ANALYZE says so
SELECT n->>'Table Parts' AS parts, n->>'Inner Rows' AS inner_rows
FROM gh_node($$SELECT count(*) FROM gp_o o JOIN gp_i i ON o.k = i.k$$) n;
-- as many parts as keys, and more: empty parts
SET gpuhash.host_partitions = 8;
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o JOIN (SELECT * FROM gp_i WHERE k IN (0, 7)) i ON o.k = i.k$$);
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o LEFT JOIN (SELECT * FROM gp_i WHERE false) i ON o.k = i.k$$);
-- hash batches (work_mem) of partitioned tables
SET work_mem = '64kB';
SET gpuhash.host_partitions = 2;
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o FULL JOIN gp_i i ON o.k = i.k$$);
RESET work_mem;

-- a chain runs its levels one by one when a level's table is partitioned
-- (a chain probes all its levels on one GPU)
CREATE TABLE gp_d (k bigint, name text);
INSERT INTO gp_d SELECT g, 'd' || g FROM generate_series(0, 20) g;
ANALYZE gp_d;
-- (priced by pages, gp_o JOIN gp_i goes first and a join read by pages is
-- no chain's level; a table partitioned over GPUs keeps the tuple path at
-- run time anyway, which the plan cannot see: priced as the tuple path)
SET gpuhash.page_cpu_cost = -1;
SELECT * FROM gh_check($$SELECT o.v, i.w, d.name FROM gp_o o JOIN gp_d d ON d.k = o.v % 21 JOIN gp_i i ON o.k = i.k$$);
SELECT n->>'Chain Levels' AS levels, n->>'Chain Unfused' AS unfused
FROM gh_node($$SELECT count(*) FROM gp_o o JOIN gp_d d ON d.k = o.v % 21 JOIN gp_i i ON o.k = i.k$$) n;
RESET gpuhash.page_cpu_cost;

-- a parallel plan's shared table, partitioned
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuhash.host_partitions = 3;
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o JOIN gp_i i ON o.k = i.k$$);
SELECT * FROM gh_check($$SELECT o.v, i.w FROM gp_o o FULL JOIN gp_i i ON o.k = i.k$$);
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gpuhash.host_partitions;

-- gpuhash.gpus: "all", or distinct GPU numbers (checked when set)
ALTER SYSTEM SET gpuhash.gpus = '0, 1';
ALTER SYSTEM SET gpuhash.gpus = 'all';
ALTER SYSTEM SET gpuhash.gpus = '0,0';
ALTER SYSTEM SET gpuhash.gpus = '1;2';
ALTER SYSTEM SET gpuhash.gpus = '64';
ALTER SYSTEM RESET gpuhash.gpus;
SHOW gpuhash.gpus;

-- gpuhash_info(): each GPU row says what the GPU does; none here says why
SELECT bool_and(gpu IS NULL OR gpu_state IS NOT NULL) AS each_gpu_says FROM gpuhash_info();

-- from 1.0: ALTER EXTENSION gives gpuhash_info() its new columns
DROP EXTENSION gpuhash;
CREATE EXTENSION gpuhash VERSION '1.0';
SELECT array_length(proargnames, 1) AS info_columns FROM pg_proc WHERE proname = 'gpuhash_info';
ALTER EXTENSION gpuhash UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'gpuhash';
SELECT array_length(proargnames, 1) AS info_columns FROM pg_proc WHERE proname = 'gpuhash_info';
SELECT count(*) >= 1 AS has_rows FROM gpuhash_info();

DROP TABLE gp_o, gp_i, gp_d;
RESET gpuhash.device;

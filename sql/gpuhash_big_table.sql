-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- A table of more than one segment file (1 GB each): absorbed scans
-- (heap_scan.c) read blocks past the first segment, serially and from the
-- parallel block allocator, as the outer side and as the inner side.  One
-- row per page (fillfactor 10, ~700-byte rows) makes 1 GB from 132,000
-- rows; unlogged, so the load writes no WAL.
--
SET client_min_messages = warning;
SET enable_nestloop = off;
CREATE UNLOGGED TABLE bt_big (id int4, k int4, pad text) WITH (fillfactor = 10);
ALTER TABLE bt_big ALTER COLUMN pad SET STORAGE PLAIN;
INSERT INTO bt_big SELECT g, g % 3000, repeat(chr(65 + g % 26), 700) FROM generate_series(1, 132000) g;
-- rows past the first segment are updated and deleted too
UPDATE bt_big SET k = k + 1 WHERE id % 1000 = 0;
DELETE FROM bt_big WHERE id % 777 = 0;
CREATE TABLE bt_keys (k int4, w text);
INSERT INTO bt_keys SELECT g, 'w' || g FROM generate_series(0, 2999, 2) g;
CREATE TABLE bt_probe (k int4);
INSERT INTO bt_probe SELECT g % 4000 FROM generate_series(1, 400000) g;
ANALYZE bt_big;
ANALYZE bt_keys;
ANALYZE bt_probe;
SELECT pg_relation_size('bt_big') > 1024 * 1024 * 1024 AS more_than_one_segment,
       (SELECT max((ctid::text::point)[0]) FROM bt_big) >= 131072 AS rows_past_it;

-- the big table as the outer side, serial; the rows past block 131072 count
SET max_parallel_workers_per_gather = 0;
SELECT * FROM gh_check('SELECT b.id, b.pad, i.w FROM bt_big b JOIN bt_keys i ON b.k = i.k');
SELECT * FROM gh_check('SELECT count(*), sum(b.id) FROM bt_big b JOIN bt_keys i ON b.k = i.k
                        WHERE b.ctid >= ''(131072,0)''::tid');
-- as the inner side (the probe table is bigger in rows)
SELECT * FROM gh_check('SELECT p.k, b.id, length(b.pad) FROM bt_probe p JOIN bt_big b ON p.k = b.k WHERE b.id % 50 = 0');
SELECT l FROM gh_explain('SELECT p.k, b.id FROM bt_probe p JOIN bt_big b ON p.k = b.k WHERE b.id % 50 = 0') l
WHERE l ~ '(Outer|Inner) Scan';

-- parallel: blocks of both segments from the shared allocator.  At one row
-- a page, a page handed to the page walker costs more than the row built
-- into a table (gpuhash.page_cpu_cost against kept_row_cost), so the
-- planner would build the big table here too; priced as the tuple path,
-- it is the outer side again, as this part means it to be
SET gpuhash.page_cpu_cost = -1;
RESET max_parallel_workers_per_gather;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 4;
SELECT * FROM gh_check('SELECT b.id, i.w FROM bt_big b JOIN bt_keys i ON b.k = i.k');
SELECT * FROM gh_check('SELECT p.k, b.id FROM bt_probe p JOIN bt_big b ON p.k = b.k WHERE b.id % 50 = 0');
SELECT l FROM gh_explain('SELECT b.id, i.w FROM bt_big b JOIN bt_keys i ON b.k = i.k') l
WHERE l ~ '(Outer|Inner) Scan';
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gpuhash.page_cpu_cost;
DROP TABLE bt_big, bt_keys, bt_probe;

/* gpuhash--1.0--1.1.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuhash UPDATE TO '1.1'" to load this file. \quit

-- 1.1: gpuhash_info() shows each GPU the service uses (gpuhash.gpus), with
-- what it keeps there, and whether the planner calls gpuhash's join hook.
-- Its columns changed, so it is made anew.
DROP FUNCTION gpuhash_info();

CREATE FUNCTION gpuhash_info(
    OUT gpu integer,
    OUT name text,
    OUT memory_mb bigint,
    OUT free_memory_mb bigint,
    OUT compute_capability text,
    OUT multiprocessors integer,
    OUT driver_version text,
    OUT runtime_version text,
    OUT in_use boolean,
    OUT session_device text,
    OUT service text,
    OUT staging_mb bigint,
    OUT staging_in_use_mb bigint,
    OUT tables_alive integer,
    OUT gpu_memory_in_use_mb bigint,
    OUT join_hook text,
    OUT gpu_tables integer,
    OUT gpu_table_memory_mb bigint,
    OUT gpu_requests bigint,
    OUT gpu_state text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuhash_info'
LANGUAGE C VOLATILE STRICT;

COMMENT ON FUNCTION gpuhash_info() IS
'GPUs in use, the device a GPU hash join in this session would use, the GPU service''s state and what it keeps on each GPU (shown to superusers and pg_monitor members), and whether the planner calls gpuhash''s join hook';

--
-- Dimensions of the aggregate over a join in the GPU service
-- (src/service/service_dim.c): the inner rows, built through the staging
-- chunks on the host twin or a GPU, freed by their backend, at its exit
-- (its exit callback) or, for one it forgot, by the service's owner sweep;
-- and a PAGE_AGG request joined to one.  The functions are test-only
-- (src/service/dim_selftest.c).  Runs unchanged with and without a GPU:
-- a GPU build on a service without one is 'not taken'.
--
SET client_min_messages = warning;
CREATE FUNCTION gpuhash_dim_service_build(keys int8[], vals int8[], texts text[],
                                          device text, mode text)
RETURNS text AS '$libdir/gpuhash', 'gpuhash_dim_service_build' LANGUAGE C;
CREATE FUNCTION gpuhash_dim_service_count() RETURNS int4
AS '$libdir/gpuhash', 'gpuhash_dim_service_count' LANGUAGE C;
CREATE FUNCTION gpuhash_dim_service_agg(rel regclass, keys int8[], vals int8[], texts text[],
                                        device text, free_first boolean)
RETURNS text[] AS '$libdir/gpuhash', 'gpuhash_dim_service_agg' LANGUAGE C;

-- waits until the service holds n dimensions (its sweep runs every second)
CREATE FUNCTION gh_dims_become(n integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..1000 LOOP
    IF gpuhash_dim_service_count() = n THEN
      RETURN true;
    END IF;
    PERFORM pg_sleep(0.01);
  END LOOP;
  RETURN false;
END;
$$;

SELECT gh_dims_become(0);

-- small ones on the host twin, freed at once: NULL values, duplicate keys, none
SELECT gpuhash_dim_service_build('{1,2,3,2}', '{10,NULL,30,20}', '{a,NULL,ccc,""}', 'host', 'free');
SELECT gpuhash_dim_service_build('{}', '{}', '{}', 'host', 'free');
SELECT gh_dims_become(0);

-- keys, values and heap each larger than a staging chunk (4 MB)
SELECT gpuhash_dim_service_build(array_agg(g), array_agg(g % 100), array_agg(repeat('x', g % 20)),
                                 'host', 'free')
FROM generate_series(1, 600000) g;
SELECT gh_dims_become(0);

-- cancelled while its rows go to the service or it is built: nothing held
CREATE TABLE dim_big AS
  SELECT array_agg(g) AS k, array_agg(g % 100) AS v, array_agg(repeat('x', g % 20)) AS t
  FROM generate_series(1, 2000000) g;
SET statement_timeout = '20ms';
SELECT gpuhash_dim_service_build(k, v, t, 'host', 'keep') FROM dim_big;
RESET statement_timeout;
SELECT gh_dims_become(0);
DROP TABLE dim_big;

-- on a GPU when the service has one
SELECT gpuhash_dim_service_build('{1,2,3}', '{1,2,3}', '{a,b,c}', 'gpu', 'free')
       IN ('not taken', 'rows=3 device=gpu') AS gpu_or_not_taken;
SELECT gh_dims_become(0);

-- no GPU memory for it: a clean error, and nothing held
CREATE FUNCTION gh_dim_no_room() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN gpuhash_dim_service_build(array_agg(g), array_agg(g), array_agg(g::text), 'gpu', 'keep')
         FROM generate_series(1, 200000) g;
EXCEPTION WHEN out_of_memory THEN
  RETURN 'no room';
END;
$$;
SET gpuhash.max_gpu_memory = 1;
SELECT gh_dim_no_room() IN ('not taken', 'no room') AS no_room_or_not_taken;
RESET gpuhash.max_gpu_memory;
SELECT gh_dims_become(0);

-- a PAGE_AGG request joined to a dimension, against PostgreSQL's own join
-- over the same rows (the request reads the table's first 4 pages)
CREATE TABLE dim_outer (k int8 NOT NULL, pad int4);
INSERT INTO dim_outer SELECT g % 50, g FROM generate_series(1, 3000) g;
CREATE TABLE dim_inner AS
  SELECT k, CASE WHEN k % 13 = 0 THEN NULL ELSE k % 5 END AS v,
         CASE WHEN k % 3 = 0 THEN NULL ELSE 't' || k END AS t
  FROM generate_series(0, 59) k
  UNION ALL SELECT 7, 99, 'dup';
CREATE VIEW dim_ref AS
  SELECT array_agg(r ORDER BY r COLLATE "C") AS groups
  FROM (SELECT format('v=%s n=%s sum=%s texts=%s', coalesce(i.v::text, 'NULL'), count(*),
                      sum(o.k), count(i.t)) AS r
        FROM dim_outer o JOIN dim_inner i ON o.k = i.k
        WHERE o.ctid < '(4,0)'
        GROUP BY i.v) q;
SELECT cardinality(groups) FROM dim_ref;
SELECT gpuhash_dim_service_agg('dim_outer', array_agg(k), array_agg(v), array_agg(t), 'host', false)
       = (SELECT groups FROM dim_ref) AS host_agg_equal
FROM dim_inner;
SELECT coalesce(gpuhash_dim_service_agg('dim_outer', array_agg(k), array_agg(v), array_agg(t),
                                        'gpu', false) = (SELECT groups FROM dim_ref), true)
       AS gpu_agg_equal_or_not_taken
FROM dim_inner;
SELECT gh_dims_become(0);
-- a request naming a dimension that was freed: a clean error
SELECT gpuhash_dim_service_agg('dim_outer', array_agg(k), array_agg(v), array_agg(t), 'host', true)
FROM dim_inner;
SELECT gh_dims_become(0);

-- never freed by their backend: one its exit frees, one its exit forgets
-- (the service's owner sweep frees it once the backend is gone)
SELECT gpuhash_dim_service_build('{1,2}', '{1,2}', '{x,y}', 'host', 'keep');
SELECT gpuhash_dim_service_build('{3}', '{3}', '{z}', 'host', 'orphan');
SELECT gh_dims_become(2);
SELECT tables_alive FROM gpuhash_info() LIMIT 1;
\c
SET client_min_messages = warning;
SELECT gh_dims_become(0);

DROP VIEW dim_ref;
DROP TABLE dim_outer, dim_inner;
DROP FUNCTION gh_dim_no_room(), gh_dims_become(integer), gpuhash_dim_service_build(int8[], int8[], text[], text, text),
  gpuhash_dim_service_count(), gpuhash_dim_service_agg(regclass, int8[], int8[], text[], text, boolean);

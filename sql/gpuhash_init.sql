--
-- gpuhash regression suite: setup shared by the later files.
--
-- Every join query is checked by gh_check(): it runs with enable_gpuhashjoin
-- off (PostgreSQL's own plan) and on, compares the two results as multisets,
-- and counts GpuHashJoin nodes in the "on" plan.  The device (GPU or host
-- twin) is chosen by the server's gpuhash.device, never here, so the same
-- expected files hold on both.
--
SELECT extname FROM pg_extension WHERE extname = 'gpuhash';
SHOW enable_gpuhashjoin;

-- on: prefer the GPU hash join (native hash and merge joins off, no setup
-- cost, the GPU aggregate over a join off: it would take aggregated joins)
CREATE FUNCTION gh_force_on() RETURNS void LANGUAGE sql AS $$
  SELECT set_config('enable_gpuhashjoin', 'on', true),
         set_config('enable_hashjoin', 'off', true),
         set_config('enable_mergejoin', 'off', true),
         set_config('gpuhash.setup_cost', '0', true),
         set_config('gpuhash.min_gain', '0', true),
         set_config('gpuhash.gpu_aggregate_join', 'off', true);
$$;

-- the (first) GpuHashJoin node of EXPLAIN (ANALYZE, FORMAT JSON) q, its
-- times with timing, VERBOSE's figures with detailed
CREATE FUNCTION gh_node(q text, timing boolean DEFAULT false, detailed boolean DEFAULT false)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING ' || timing || ', VERBOSE ' || detailed ||
          ', SUMMARY OFF) ' || q INTO p;
  RETURN jsonb_path_query_first(p, '$.** ? (@."Custom Plan Provider" == "GpuHashJoin")');
END;
$$;

-- the top node of EXPLAIN (FORMAT JSON) q, planned at the session's settings
CREATE FUNCTION gh_top(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
  p json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
  RETURN p -> 0 -> 'Plan';
END;
$$;

CREATE FUNCTION gh_check(q text, force boolean DEFAULT true,
                         OUT rows bigint, OUT same boolean, OUT gpu_nodes integer)
LANGUAGE plpgsql AS $$
DECLARE
  plan text;
  needle text := '"Custom Plan Provider": "GpuHashJoin"';
  d1 bigint;
  d2 bigint;
BEGIN
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  -- whole rows as text: duplicate column names are fine that way
  EXECUTE 'CREATE TEMP TABLE gh_off AS SELECT gh_row__::text AS t FROM (' || q || ') gh_row__';
  IF force THEN
    PERFORM gh_force_on();
  ELSE
    PERFORM set_config('enable_gpuhashjoin', 'on', true);
  END IF;
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO plan;
  gpu_nodes := (length(plan) - length(replace(plan, needle, ''))) / length(needle);
  EXECUTE 'CREATE TEMP TABLE gh_on AS SELECT gh_row__::text AS t FROM (' || q || ') gh_row__';
  SELECT count(*) INTO rows FROM gh_on;
  SELECT count(*) INTO d1 FROM (SELECT * FROM gh_off EXCEPT ALL SELECT * FROM gh_on) x;
  SELECT count(*) INTO d2 FROM (SELECT * FROM gh_on EXCEPT ALL SELECT * FROM gh_off) y;
  same := d1 = 0 AND d2 = 0 AND rows = (SELECT count(*) FROM gh_off);
  DROP TABLE gh_off;
  DROP TABLE gh_on;
  -- the settings above were set local (set_config's third argument): they
  -- end with the transaction of the statement that called gh_check
END;
$$;

-- EXPLAIN of q with the GPU join preferred.  The device line is masked and
-- the lines that depend on the machine (GPU Memory, Path: service or not)
-- dropped, so GPU and host twin give the same text.
CREATE FUNCTION gh_explain(q text, opts text DEFAULT 'COSTS OFF') RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  PERFORM gh_force_on();
  FOR line IN EXECUTE 'EXPLAIN (' || opts || ') ' || q LOOP
    CONTINUE WHEN line ~ '^\s*(GPU Memory|Path): ';
    RETURN NEXT regexp_replace(line, 'Device: (gpu|host)', 'Device: <device>');
  END LOOP;
END;
$$;

-- the data most tests use
CREATE TABLE r (id int4 PRIMARY KEY, k4 int4, k8 int8, k2 int2, d date,
                ts timestamp, o oid, b bool, v text);
INSERT INTO r
SELECT g, g % 1000, (g % 1000)::int8 * 1000000007, (g % 300)::int2,
       date '2020-01-01' + (g % 400), timestamp '2020-01-01' + (g % 500) * interval '1 hour',
       (g % 700)::oid, g % 3 = 0, 'r' || g
FROM generate_series(1, 20000) g;
-- NULL keys in every column
INSERT INTO r SELECT 20000 + g, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'rnull' || g
FROM generate_series(1, 50) g;

CREATE TABLE s (id int4 PRIMARY KEY, k4 int4, k8 int8, k2 int2, d date,
                ts timestamp, o oid, b bool, w text);
INSERT INTO s
SELECT g, (g * 7) % 1500, ((g * 7) % 1500)::int8 * 1000000007, ((g * 7) % 400)::int2,
       date '2020-01-01' + (g % 450), timestamp '2020-01-01' + (g % 600) * interval '1 hour',
       (g % 800)::oid, g % 2 = 0, 's' || g
FROM generate_series(1, 3000) g;
INSERT INTO s SELECT 3000 + g, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'snull' || g
FROM generate_series(1, 20) g;

ANALYZE r;
ANALYZE s;

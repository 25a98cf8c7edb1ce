-- This file tests GpuHashJoin: the GPU aggregate over a join, which would
-- take its aggregated joins, has its own files (gpuhash_gpu_agg_join*).
SET gpuhash.gpu_aggregate_join = off;
--
-- Multi-level joins (issue 14): stacks of GpuHashJoins, each the outer child
-- of the one above, which the executor may run as one multi-level probe.
-- Every query is checked by ch_check: gh_check's rows, same and gpu_nodes
-- (the result with the GPU join off and forced on, as multisets), and
-- "stack", the most GpuHashJoins in the forced-on plan that sit one on the
-- other as outer children (ch_stack below): a query meant to test an N-level
-- chain must show stack >= N, not only N GPU joins somewhere in the plan.
--
-- Star chains (every level's key from the fact table) come out left-deep by
-- themselves.  For a snowflake (a level's key from an earlier level's inner
-- table: item -> orders -> cust -> nation -> region) PostgreSQL prefers the
-- right-deep plan (item probing the join of the dimensions, each
-- GpuHashJoin the inner child of the next), which is no chain: those
-- queries run under join_collapse_limit = 1, which keeps the join order as
-- written, so that ((item JOIN orders) JOIN cust) JOIN nation is a left-deep
-- stack.  The same setting puts semi, anti and outer joins at the level
-- they are written at.  Native hash and merge joins are off (gh_force_on),
-- and so are nested loops where a plan can do without them.
--
-- Written while each level still runs as a node of its own: the file is
-- what a multi-level probe of the same stacks must answer row for row.
--
SET client_min_messages = warning;

-- The shapes below were chosen for joins costed without the charge for
-- inner rows whose columns are kept (gpuhash.kept_row_cost, tested in
-- gpuhash_explain): it moves several of them to other build sides.
SET gpuhash.kept_row_cost = 0;
SET gpuhash.kept_join_row_cost = 0;
-- Nor with the page path priced (gpuhash.page_cpu_cost): a dimension table
-- read by pages costs its pages, not its rows, as the outer side, so the
-- planner probes it against a table of the fact table's join, which is no
-- stack.  A chain's lower levels run by tuples whatever their price, and
-- this file is about chains: the page path is priced as the tuple path.
SET gpuhash.page_cpu_cost = -1;
SET enable_nestloop = off;

-- the GpuHashJoins stacked from plan node n down through outer children (an
-- absorbed outer scan is no child: its node is the stack's bottom; init
-- plans and subplans are no children either)
CREATE FUNCTION ch_levels(n jsonb) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
  IF n IS NULL OR n->>'Custom Plan Provider' IS DISTINCT FROM 'GpuHashJoin' THEN
    RETURN 0;
  END IF;
  IF n ? 'Outer Scan' OR n ? 'Parallel Outer Scan' THEN
    RETURN 1;
  END IF;
  RETURN 1 + ch_levels((SELECT c FROM jsonb_array_elements(n->'Plans') WITH ORDINALITY x(c, i)
                        WHERE c->>'Parent Relationship' NOT IN ('InitPlan', 'SubPlan')
                        ORDER BY i LIMIT 1));
END;
$$;
-- the highest stack anywhere in the plan below n
CREATE FUNCTION ch_stack(n jsonb) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  best integer := ch_levels(n);
  c jsonb;
BEGIN
  FOR c IN SELECT jsonb_array_elements(coalesce(n->'Plans', '[]'::jsonb)) LOOP
    best := greatest(best, ch_stack(c));
  END LOOP;
  RETURN best;
END;
$$;
-- a plan (JSON) in one line: each GpuHashJoin as "(outer TYPE inner)", a
-- scan it absorbed by the relation's name alone, any other node by its type
-- (and relation), its children, init plans and subplans in brackets
CREATE FUNCTION ch_shape(n jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  kids text[] := '{}';
  subs text[] := '{}';
  c jsonb;
  o text;
  i text;
  s text;
BEGIN
  FOR c IN SELECT jsonb_array_elements(coalesce(n->'Plans', '[]'::jsonb)) LOOP
    IF c->>'Parent Relationship' IN ('InitPlan', 'SubPlan') THEN
      subs := subs || ((c->>'Parent Relationship') || ': ' || ch_shape(c));
    ELSE
      kids := kids || ch_shape(c);
    END IF;
  END LOOP;
  IF n->>'Custom Plan Provider' = 'GpuHashJoin' THEN
    o := coalesce(n->>'Outer Scan', n->>'Parallel Outer Scan');
    i := coalesce(n->>'Inner Scan', n->>'Parallel Inner Scan');
    IF o IS NULL THEN
      o := kids[1];
      kids := kids[2:];
    END IF;
    IF i IS NULL THEN
      i := kids[1];
      kids := kids[2:];
    END IF;
    s := '(' || o || ' ' || lower(n->>'Join Type') || ' ' || i || ')';
  ELSIF n ? 'Relation Name' THEN
    s := (n->>'Node Type') || ' on ' || (n->>'Relation Name')
         || CASE WHEN n->>'Alias' <> n->>'Relation Name' THEN ' ' || (n->>'Alias') ELSE '' END;
  ELSE
    s := n->>'Node Type';
  END IF;
  kids := kids || subs;
  IF cardinality(kids) > 0 THEN
    s := s || '[' || array_to_string(kids, ', ') || ']';
  END IF;
  RETURN s;
END;
$$;
-- gh_check(q), and with the GPU join forced on the highest stack of q's
-- plan and the plan's shape
CREATE FUNCTION ch_check(q text, OUT rows bigint, OUT same boolean, OUT gpu_nodes integer,
                         OUT stack integer, OUT shape text)
LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  SELECT c.rows, c.same, c.gpu_nodes INTO rows, same, gpu_nodes FROM gh_check(q) c;
  PERFORM gh_force_on();
  EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO p;
  stack := ch_stack(p->0->'Plan');
  shape := ch_shape(p->0->'Plan');
END;
$$;
-- every object of q's plan, run forced on under EXPLAIN ANALYZE (with
-- timing: its times too), in plan order
CREATE FUNCTION ch_analyze(q text, timing boolean DEFAULT false) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
DECLARE
  p jsonb;
BEGIN
  PERFORM gh_force_on();
  EXECUTE format('EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING %s, SUMMARY OFF) ', CASE WHEN timing THEN 'ON' ELSE 'OFF' END) || q INTO p;
  RETURN QUERY SELECT jsonb_path_query(p, 'strict $.**');
END;
$$;
-- each GpuHashJoin of q, top down in plan order: its join type, loops and
-- table builds (what a rescan rebuilds); a parallel-aware node's loops
-- depend on the workers launched: not shown
CREATE FUNCTION ch_builds(q text) RETURNS TABLE (node integer, join_type text, loops bigint, builds bigint)
LANGUAGE sql AS $$
  SELECT row_number() OVER ()::integer, n->>'Join Type',
         CASE WHEN NOT (n->>'Parallel Aware')::boolean THEN (n->>'Actual Loops')::bigint END,
         coalesce((n->>'Builds')::bigint, (n->>'Shared Table Builds')::bigint, CASE WHEN (n->>'Actual Loops')::bigint > 0 THEN 1 ELSE 0 END)
  FROM ch_analyze(q) n
  WHERE n->>'Custom Plan Provider' = 'GpuHashJoin';
$$;

-- a TPC-H-like snowflake: NULL keys and keys that match nothing on both
-- sides of every level, a NULL inner row in every dimension
CREATE TABLE ch_region (r_key int4, r_name text);
INSERT INTO ch_region SELECT g, 'R' || g FROM generate_series(0, 4) g;
INSERT INTO ch_region VALUES (NULL, 'Rnull');
-- n_rkey 5 matches no region
CREATE TABLE ch_nation (n_key int4, n_rkey int4, n_name text);
INSERT INTO ch_nation SELECT g, CASE WHEN g % 9 = 8 THEN NULL ELSE g % 6 END, 'N' || g FROM generate_series(0, 24) g;
INSERT INTO ch_nation VALUES (NULL, 1, 'Nnull');
-- c_nkey 25..29 match no nation
CREATE TABLE ch_cust (c_key int4, c_nkey int4, c_seg text, c_bal int4);
INSERT INTO ch_cust SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE g % 30 END,
  (ARRAY['AUTO', 'BUILD', 'FURN', 'HOUSE', 'MACH'])[1 + g % 5], (g * 37) % 1000
FROM generate_series(1, 600) g;
INSERT INTO ch_cust SELECT NULL, g, 'NULL', g FROM generate_series(1, 3) g;
-- o_ckey 601..700 match no customer; o_prio is NULL on some matched rows too
CREATE TABLE ch_orders (o_key int4, o_ckey int4, o_ckey8 int8, o_status char(1), o_prio text, o_day int4);
INSERT INTO ch_orders SELECT g, c, c, (ARRAY['F', 'O', 'P'])[1 + g % 3],
  CASE WHEN g % 17 = 0 THEN NULL ELSE 'P' || (g * 7) % 5 END, (g * 13) % 365
FROM (SELECT g, CASE WHEN g % 41 = 0 THEN NULL ELSE 1 + (g * 7) % 700 END AS c FROM generate_series(1, 3000) g) x;
INSERT INTO ch_orders SELECT NULL, g, g, 'F', 'Pnull', g FROM generate_series(1, 5) g;
CREATE TABLE ch_part (p_key int4, p_tag text, p_size int4);
INSERT INTO ch_part SELECT g, 'part#' || g, g % 50 FROM generate_series(1, 400) g;
INSERT INTO ch_part VALUES (NULL, NULL, 1), (NULL, 'part#null', 2);
CREATE TABLE ch_supp (s_key int4, s_nkey int4, s_name text);
INSERT INTO ch_supp SELECT g, CASE WHEN g = 7 THEN NULL ELSE g % 25 END, 'S' || g FROM generate_series(1, 50) g;
INSERT INTO ch_supp VALUES (NULL, 3, 'Snull');
-- two-column keys
CREATE TABLE ch_psupp (ps_pkey int4, ps_skey int4, ps_cost int4);
INSERT INTO ch_psupp SELECT p, s, (p * 31 + s) % 100 FROM generate_series(1, 400) p, generate_series(1, 30) s
WHERE (p * 7 + s) % 4 = 0;
INSERT INTO ch_psupp VALUES (NULL, 1, 0), (2, NULL, 0);
-- days 360..364 match no calendar row
CREATE TABLE ch_cal (cal_day int4, cal_month int4);
INSERT INTO ch_cal SELECT g, g / 30 FROM generate_series(0, 359) g;
INSERT INTO ch_cal VALUES (NULL, 99);
-- the fact table (lineitem): NULL keys and keys that match nothing in every
-- key column (l_okey 3001..3300, l_pkey 401..450, l_skey 51..55, l_ptag
-- like l_pkey), l_okey8 an int8 copy of l_okey
CREATE TABLE ch_item (l_id int4, l_okey int4, l_okey8 int8, l_pkey int4, l_skey int4, l_ptag text,
                      l_qty int4, l_day int4);
-- the fact rows 1..n (ch_bigitem below takes 50000 of them)
CREATE FUNCTION ch_items(n int) RETURNS SETOF ch_item LANGUAGE sql AS $$
SELECT g, CASE WHEN g % 97 = 0 THEN NULL ELSE 1 + (g * 13) % 3300 END,
       CASE WHEN g % 97 = 0 THEN NULL ELSE 1 + (g * 13) % 3300 END,
       CASE WHEN g % 89 = 0 THEN NULL ELSE 1 + (g * 17) % 450 END,
       CASE WHEN g % 83 = 0 THEN NULL ELSE 1 + (g * 3) % 55 END,
       CASE WHEN g % 79 = 0 THEN NULL ELSE 'part#' || (1 + (g * 17) % 450) END,
       1 + g % 50, (g * 11) % 365
FROM generate_series(1, n) g
$$;
INSERT INTO ch_item SELECT * FROM ch_items(8000);
CREATE INDEX ch_item_id ON ch_item (l_id);
-- heavy duplicates: 20 rows of each key 0..9 in ch_d1..ch_d3, so that one
-- ch_df row meets 20 x 20 x 20 rows over three levels; NULL keys on both
-- sides (and NULL text keys), keys that match nothing on both sides (ch_df.k
-- 10, 11 and over 100; k2 >= 30).  12 ch_df rows match; the other 388 make
-- ch_df the bottom's outer side.
CREATE TABLE ch_df (id int4, k int4, t text);
INSERT INTO ch_df SELECT g, k, CASE WHEN k < 100 THEN 't' || k ELSE 'u' || k END
FROM (SELECT g, CASE WHEN g % 8 = 0 THEN NULL WHEN g <= 16 THEN g % 12 ELSE 100 + g END AS k
      FROM generate_series(1, 400) g) x;
CREATE TABLE ch_d1 (id int4, k int4, k2 int4, t text);
CREATE TABLE ch_d2 (id int4, k int4, k2 int4, t text);
CREATE TABLE ch_d3 (id int4, k int4, k2 int4, t text);
INSERT INTO ch_d1 SELECT g, CASE WHEN g > 200 THEN NULL ELSE g % 10 END, (g * 3) % 10 + (g / 200) * 30, 't' || g % 10
FROM generate_series(1, 205) g;
INSERT INTO ch_d2 SELECT g, CASE WHEN g > 200 THEN NULL ELSE g % 10 END, (g * 7) % 10 + (g / 200) * 30, 't' || g % 10
FROM generate_series(1, 205) g;
INSERT INTO ch_d3 SELECT g, CASE WHEN g > 200 THEN NULL ELSE g % 10 END, (g * 9) % 10 + (g / 200) * 30, 't' || g % 10
FROM generate_series(1, 205) g;
CREATE TABLE ch_empty (id int4, k int4, k2 int4, t text);
ANALYZE ch_region;
ANALYZE ch_nation;
ANALYZE ch_cust;
ANALYZE ch_orders;
ANALYZE ch_part;
ANALYZE ch_supp;
ANALYZE ch_psupp;
ANALYZE ch_cal;
ANALYZE ch_item;
ANALYZE ch_df;
ANALYZE ch_d1;
ANALYZE ch_d2;
ANALYZE ch_d3;
ANALYZE ch_empty;

--
-- star chains: every level's key from the fact table
--
SELECT * FROM ch_check('SELECT l_id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, o_key, p_key, s_name FROM ch_item
                        JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey');
SELECT * FROM ch_check('SELECT l_id, o_key, p_key, s_name, cal_month FROM ch_item
                        JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey
                        JOIN ch_cal ON cal_day = l_day');
SELECT * FROM ch_check('SELECT l_id, o_key, p_key, s_name, cal_month, ps_cost FROM ch_item
                        JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey
                        JOIN ch_cal ON cal_day = l_day JOIN ch_psupp ON ps_pkey = l_pkey AND ps_skey = l_skey');
SELECT * FROM gh_explain('SELECT l_id, o_key, p_key, s_name, cal_month FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey
                          JOIN ch_cal ON cal_day = l_day');

--
-- snowflake chains: a level's key from an earlier level's inner table, the
-- join order as written
--
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg, n_name, r_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey JOIN ch_region ON r_key = n_rkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg, n_name, r_name, cal_month FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey JOIN ch_region ON r_key = n_rkey
                        JOIN ch_cal ON cal_day = o_day');
-- star and snowflake levels mixed: TPC-H Q5's shape, whose supplier level
-- has a key from the fact table and one from the customer level
SELECT * FROM ch_check('SELECT l_id, p_size, c_key, s_name, n_name FROM ch_item JOIN ch_part ON p_key = l_pkey
                        JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                        JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey JOIN ch_nation ON n_key = s_nkey');
SELECT * FROM ch_check('SELECT n_name, count(*), sum(l_qty) FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey
                        JOIN ch_nation ON n_key = s_nkey JOIN ch_region ON r_key = n_rkey
                        WHERE r_name = ''R1'' GROUP BY n_name');
SELECT * FROM gh_explain('SELECT l_id, o_key, c_seg, n_name, r_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey JOIN ch_region ON r_key = n_rkey');
-- left to itself, the planner makes the snowflake right-deep: no stack
RESET join_collapse_limit;
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');

--
-- duplicates that multiply across levels: 20 x 20 x 20 rows for each
-- matching ch_df row (12 of them: 96000 rows), star and snowflake
--
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id FROM ch_df f JOIN ch_d1 d1 ON d1.k = f.k JOIN ch_d2 d2 ON d2.k = f.k');
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id, d3.id FROM ch_df f
                        JOIN ch_d1 d1 ON d1.k = f.k JOIN ch_d2 d2 ON d2.k = f.k JOIN ch_d3 d3 ON d3.k = f.k');
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id, d3.id FROM ch_df f
                        JOIN ch_d1 d1 ON d1.k = f.k JOIN ch_d2 d2 ON d2.k = d1.k2 JOIN ch_d3 d3 ON d3.k = d2.k2');
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id, d3.id FROM ch_df f
                        JOIN ch_d1 d1 ON d1.k = f.k JOIN ch_d2 d2 ON d2.k = d1.k2 JOIN ch_d3 d3 ON d3.k = f.k');
-- text keys with duplicates
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id, d3.id FROM ch_df f
                        JOIN ch_d1 d1 ON d1.t = f.t JOIN ch_d2 d2 ON d2.t = d1.t JOIN ch_d3 d3 ON d3.k = d2.k2');
SELECT * FROM ch_check('SELECT f.k, count(*), count(DISTINCT (d1.id, d2.id, d3.id)), sum(d3.id) FROM ch_df f
                        JOIN ch_d1 d1 ON d1.k = f.k JOIN ch_d2 d2 ON d2.k = f.k JOIN ch_d3 d3 ON d3.k = f.k GROUP BY f.k');
RESET join_collapse_limit;

--
-- an empty inner side at the first, a middle and the last level
--
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item JOIN ch_empty e ON e.k = l_okey
                        JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_empty e ON e.k = o_ckey JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey JOIN ch_empty e ON e.k = p_size');
-- the same through LEFT joins: every row comes through, NULL-extended
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item LEFT JOIN ch_empty e ON e.k = l_okey
                        JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_empty e ON e.k = o_ckey JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey LEFT JOIN ch_empty e ON e.k = p_size');
-- a level's key from an empty level's NULL-extended column
SELECT * FROM ch_check('SELECT l_id, e.id, o_key, p_key FROM ch_item LEFT JOIN ch_empty e ON e.k = l_okey
                        LEFT JOIN ch_orders ON o_key = e.k2 JOIN ch_part ON p_key = l_pkey');
-- and anti joins with an empty inner: every row comes through
SELECT * FROM ch_check('SELECT l_id, o_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        AND NOT EXISTS (SELECT 1 FROM ch_empty e WHERE e.k = o_ckey) JOIN ch_part ON p_key = l_pkey');
SELECT * FROM gh_explain('SELECT l_id, e.id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_empty e ON e.k = o_ckey JOIN ch_part ON p_key = l_pkey');
RESET join_collapse_limit;

--
-- semi, anti and LEFT levels in the middle and at the top of a chain.  An
-- EXISTS in a join's ON clause makes a semi (anti) join over that join,
-- one in the WHERE clause one over the whole chain.
--
SET join_collapse_limit = 1;
-- semi: in the middle, at the top; IN; keys from the fact and from an inner
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size < 20)
                        JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND EXISTS (SELECT 1 FROM ch_cal WHERE cal_day = o_day AND cal_month < 6)
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                        WHERE EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey AND n_rkey = 2)');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                        WHERE l_pkey IN (SELECT p_key FROM ch_part WHERE p_size = 3)');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND o_day IN (SELECT cal_day FROM ch_cal WHERE cal_month = 3)
                        JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT f.id, d1.id FROM ch_df f JOIN ch_d1 d1 ON d1.k = f.k
                          AND EXISTS (SELECT 1 FROM ch_d2 d2 WHERE d2.k = d1.k2)
                        JOIN ch_d3 d3 ON d3.k = f.k');
-- anti: in the middle, at the top
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND NOT EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size < 20)
                        JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey AND n_rkey = 2)');
SELECT * FROM ch_check('SELECT l_id, o_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND NOT EXISTS (SELECT 1 FROM ch_cust WHERE c_key = o_ckey)
                        JOIN ch_part ON p_key = l_pkey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_supp WHERE s_key = l_skey AND s_nkey < 10)');
SELECT * FROM ch_check('SELECT f.id, d1.id FROM ch_df f JOIN ch_d1 d1 ON d1.k = f.k
                          AND NOT EXISTS (SELECT 1 FROM ch_d2 d2 WHERE d2.k = d1.k2)
                        JOIN ch_d3 d3 ON d3.k = f.k');
-- LEFT: in the middle, at the top, with and without a WHERE on the nullable side
SELECT * FROM ch_check('SELECT l_id, o_key, o_prio, p_key FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey LEFT JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT l_id, o_key, o_prio, p_key FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey WHERE o_prio IS NULL');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey LEFT JOIN ch_cust ON c_key = o_ckey WHERE c_seg IS NULL');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, c_seg FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey LEFT JOIN ch_cust ON c_key = o_ckey
                        WHERE coalesce(c_seg, ''none'') IN (''none'', ''AUTO'')');
-- a strict WHERE on the key of the nullable side: an anti join
SELECT * FROM ch_check('SELECT l_id, o_key, p_key FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey WHERE o_key IS NULL');
-- LEFT levels whose keys come from an earlier LEFT level's (NULL-extended) column
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name, r_name FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey
                        LEFT JOIN ch_region ON r_key = n_rkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey
                        WHERE n_name IS NULL');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey
                        WHERE c_key IS NULL AND o_key IS NOT NULL');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = coalesce(o_ckey, 1) LEFT JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id, d3.id FROM ch_df f LEFT JOIN ch_d1 d1 ON d1.k = f.k
                        LEFT JOIN ch_d2 d2 ON d2.k = d1.k2 LEFT JOIN ch_d3 d3 ON d3.k = d2.k2');
-- LEFT, semi and anti levels on one chain
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size < 40)
                        LEFT JOIN ch_cust ON c_key = o_ckey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey AND n_rkey = 0)');
-- RIGHT and FULL joins over a chain, and inside one
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey FULL JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, p_key FROM ch_item FULL JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = coalesce(o_ckey, l_qty) LEFT JOIN ch_part ON p_key = l_pkey');
SELECT * FROM ch_check('SELECT l_id, o_key, p_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        RIGHT JOIN ch_part ON p_key = l_pkey LEFT JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM gh_explain('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                            AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size < 40)
                          LEFT JOIN ch_cust ON c_key = o_ckey
                          WHERE NOT EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey AND n_rkey = 0)');
SELECT * FROM gh_explain('SELECT l_id, o_key, c_key, n_name FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                          LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey
                          WHERE n_name IS NULL');
RESET join_collapse_limit;

--
-- extra join clauses that are no hash keys, multi-column keys, int4 = int8
-- keys and text keys (fingerprints, rechecked) at the levels of a chain
--
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT l_id, o_key, p_key FROM ch_item JOIN ch_orders ON o_key = l_okey AND l_day < o_day
                        JOIN ch_part ON p_key = l_pkey AND p_size > l_qty JOIN ch_supp ON s_key = l_skey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey AND (c_bal + l_qty) % 3 = 0 JOIN ch_nation ON n_key = c_nkey AND n_rkey <> l_qty % 6');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey AND l_day < o_day
                        LEFT JOIN ch_cust ON c_key = o_ckey AND c_bal > l_qty * 10');
SELECT * FROM ch_check('SELECT l_id, o_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                          AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size > l_qty)
                        JOIN ch_cust ON c_key = o_ckey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_cal WHERE cal_day = o_day AND cal_month > c_bal % 12)');
-- a pseudoconstant qual: the chain gates itself
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey WHERE now() IS NOT NULL');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey WHERE now() IS NULL');
-- multi-column keys: from the level below's inner side (ps_pkey, ps_cost); one
-- from the fact table and one from an earlier level's inner side (c_nkey)
SELECT * FROM ch_check('SELECT l_id, ps_cost, p_size FROM ch_item JOIN ch_psupp ON ps_pkey = l_pkey AND ps_skey = l_skey
                        JOIN ch_part ON p_key = ps_pkey AND p_size % 10 = ps_cost % 10');
SELECT * FROM ch_check('SELECT l_id, c_key, s_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey');
-- int4 = int8 at every level
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey8
                        JOIN ch_cust ON c_key = o_ckey8 JOIN ch_nation ON n_key::int8 = c_nkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey8
                        LEFT JOIN ch_cust ON c_key = o_ckey8 AND c_nkey::int8 = l_pkey');
-- text keys: one level, and every level (and a text key with an int key)
SELECT * FROM ch_check('SELECT l_id, o_key, p_size FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_tag = l_ptag JOIN ch_supp ON s_key = l_skey');
SELECT * FROM ch_check('SELECT l_id, p_key, s_name, n_name FROM ch_item JOIN ch_part ON p_tag = l_ptag
                        JOIN ch_supp ON s_name = ''S'' || (p_key % 60) JOIN ch_nation ON n_name = ''N'' || s_nkey');
SELECT * FROM ch_check('SELECT l_id, p_key, o_key FROM ch_item LEFT JOIN ch_part ON p_tag = l_ptag AND p_key = l_pkey
                        LEFT JOIN ch_orders ON o_prio = ''P'' || (p_key % 7) AND o_key = l_okey');
SELECT * FROM ch_check('SELECT f.id, d1.id, d2.id FROM ch_df f JOIN ch_d1 d1 ON d1.t = f.t AND d1.k2 <> f.id % 10
                        JOIN ch_d2 d2 ON d2.t = d1.t AND d2.k = d1.k2');
SELECT * FROM gh_explain('SELECT l_id, o_key, p_size FROM ch_item JOIN ch_orders ON o_key = l_okey8
                          JOIN ch_part ON p_tag = l_ptag AND p_size > l_qty JOIN ch_psupp ON ps_pkey = l_pkey AND ps_skey = l_skey');
RESET join_collapse_limit;

--
-- projections: columns reordered and dropped between levels (a level's key
-- kept for the next one and dropped after), expressions on the keys and in
-- the select list, whole rows, aggregates over the chain
--
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT n_name, l_qty * 2 AS q2, c_seg || ''/'' || o_prio AS tag, l_id FROM ch_item
                        JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT r_name FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                        JOIN ch_nation ON n_key = c_nkey JOIN ch_region ON r_key = n_rkey');
SELECT * FROM ch_check('SELECT 1 FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT ch_cust, ch_item.l_id, ch_orders FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey + 1
                        JOIN ch_cust ON c_key = o_ckey * 2 - l_qty JOIN ch_nation ON n_key = (c_nkey + o_day) % 25');
SELECT * FROM ch_check('SELECT x.b, x.a, c_seg FROM (SELECT o_ckey AS a, l_id AS b, o_key * 10 AS c FROM ch_item
                        JOIN ch_orders ON o_key = l_okey) x JOIN ch_cust ON c_key = x.a AND c_bal > x.c % 1000');
SELECT * FROM ch_check('SELECT c_seg, n_name, count(*), count(o_prio), sum(l_qty), min(l_id), max(o_key) FROM ch_item
                        JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey
                        GROUP BY c_seg, n_name');
SELECT * FROM ch_check('SELECT count(*), count(c_key), count(n_key), sum(l_qty) FROM ch_item
                        LEFT JOIN ch_orders ON o_key = l_okey LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT o_status, count(DISTINCT c_key), string_agg(DISTINCT n_name, '','' ORDER BY n_name) FROM ch_item
                        JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey
                        GROUP BY o_status HAVING count(*) > 10');
-- what each level passes up
SELECT l FROM gh_explain('SELECT x.b, x.a, c_seg FROM (SELECT o_ckey AS a, l_id AS b, o_key * 10 AS c FROM ch_item
                          JOIN ch_orders ON o_key = l_okey) x JOIN ch_cust ON c_key = x.a AND c_bal > x.c % 1000',
                         'VERBOSE, COSTS OFF') l
WHERE l !~ 'Scheme';
RESET join_collapse_limit;

--
-- the bottom's outer side: a Seq Scan the node absorbed ("Outer Scan:
-- ch_item", most queries above), and plans that are no scan it can absorb:
-- a subquery with a LIMIT, an index scan, a materialized CTE, a Seq Scan
-- with absorbing switched off (the planner then makes ch_orders the
-- bottom's outer side and ch_item, absorbed, its inner side)
--
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM (SELECT * FROM ch_item ORDER BY l_id LIMIT 5000) l
                        JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM gh_explain('SELECT l_id, o_key, c_key FROM (SELECT * FROM ch_item ORDER BY l_id LIMIT 5000) l
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey');
SELECT * FROM ch_check('WITH l AS MATERIALIZED (SELECT * FROM ch_item WHERE l_qty < 40)
                        SELECT l_id, o_key, c_key, n_name FROM l JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey WHERE l_id BETWEEN 1000 AND 3000');
SELECT * FROM gh_explain('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey WHERE l_id BETWEEN 1000 AND 3000');
RESET enable_seqscan;
RESET enable_bitmapscan;
SET gpuhash.absorb_outer_scan = off;
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');
SET gpuhash.absorb_inner_scan = off;
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
RESET gpuhash.absorb_outer_scan;
SELECT * FROM ch_check('SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey WHERE NOT EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey)');
RESET gpuhash.absorb_inner_scan;
RESET join_collapse_limit;

--
-- rescans: a chain rescanned by a nested loop (LATERAL) and by a correlated
-- subquery.  Where an inner side's key or scan filter reads the outer
-- query's parameter, each rescan must build that level's table again;
-- where only outer sides (the bottom's scan, a level's outer key) or the
-- projection read it, the tables built at the first scan can be kept.
--
CREATE TABLE ch_p (id int4, d int4);
INSERT INTO ch_p VALUES (1, 0), (2, 1), (3, 7), (4, NULL), (5, -2);
ANALYZE ch_p;
SET join_collapse_limit = 1;
SET enable_memoize = off;
-- the inner key of the second level reads p.d
SELECT * FROM ch_check('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key + p.d = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM ch_check('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT l_id, o_key, c_key FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key + p.d = o_ckey OFFSET 0) x');
-- a scan filter of an inner side reads it
SELECT * FROM ch_check('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT count(*), sum(l_qty) FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey AND c_bal % 10 = p.d + 3
                          JOIN ch_nation ON n_key = c_nkey) x');
SELECT * FROM ch_check('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          LEFT JOIN (SELECT * FROM ch_cust WHERE c_bal % 10 = p.d) c ON c_key = o_ckey
                          WHERE EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size > p.d)) FROM ch_p p');
-- only outer sides read it: the bottom's scan, the outer key of a level
SELECT * FROM ch_check('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey WHERE l_qty = p.d) FROM ch_p p');
SELECT * FROM ch_check('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT l_id, o_key, c_key FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey WHERE l_id % 100 = p.d OFFSET 0) x');
SELECT * FROM ch_check('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey + p.d JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM ch_check('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT l_id, o_key, n_name FROM ch_item
                          JOIN ch_orders ON o_key = l_okey LEFT JOIN ch_cust ON c_key = o_ckey
                          LEFT JOIN ch_nation ON n_key = c_nkey * coalesce(p.d, 1) OFFSET 0) x');
-- only the projection reads it: the chain is rescanned unchanged
SELECT * FROM ch_check('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT l_id, o_key, c_key, p.d AS pd FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                          JOIN ch_nation ON n_key = c_nkey WHERE l_qty < 30 OFFSET 0) x');
-- the loops and builds of each level over the five rescans
SELECT * FROM ch_builds('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key + p.d = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM ch_builds('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT count(*), sum(l_qty) FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey AND c_bal % 10 = p.d + 3
                          JOIN ch_nation ON n_key = c_nkey) x');
SELECT * FROM ch_builds('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey + p.d JOIN ch_nation ON n_key = c_nkey WHERE l_qty > p.d) FROM ch_p p');
SELECT * FROM ch_builds('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT l_id, o_key, c_key, p.d AS pd FROM ch_item
                          JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey
                          JOIN ch_nation ON n_key = c_nkey WHERE l_qty < 30 OFFSET 0) x');
SELECT * FROM gh_explain('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key + p.d = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
RESET enable_memoize;
RESET join_collapse_limit;

--
-- a cursor scrolling through a chain's result, forward and back: the rows
-- read backward are those read forward in reverse, and they are the rows of
-- the query with the GPU join off
--
CREATE FUNCTION ch_scroll(q text, OUT fwd1 bigint, OUT back1 bigint, OUT fwd_rest bigint, OUT back_all bigint,
                          OUT reversed boolean, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  c refcursor := 'ch_c';
  r record;
  n bigint := 0;
  d1 bigint;
  d2 bigint;
BEGIN
  -- PostgreSQL's own rows first
  PERFORM set_config('enable_gpuhashjoin', 'off', true);
  EXECUTE 'CREATE TEMP TABLE ch_native AS SELECT x::text AS t FROM (' || q || ') x';
  CREATE TEMP TABLE ch_fwd (i bigint, t text);
  CREATE TEMP TABLE ch_back (i bigint, t text);
  PERFORM gh_force_on();
  OPEN c SCROLL FOR EXECUTE q;
  MOVE FORWARD 100 IN c;
  GET DIAGNOSTICS fwd1 = ROW_COUNT;
  MOVE BACKWARD 40 IN c;
  GET DIAGNOSTICS back1 = ROW_COUNT;
  -- rows 61 to the end
  LOOP
    FETCH NEXT FROM c INTO r;
    EXIT WHEN NOT FOUND;
    n := n + 1;
    INSERT INTO ch_fwd VALUES (60 + n, r::text);
  END LOOP;
  fwd_rest := n;
  -- from the end back to the first
  LOOP
    FETCH PRIOR FROM c INTO r;
    EXIT WHEN NOT FOUND;
    INSERT INTO ch_back VALUES (n + 60, r::text);
    n := n - 1;
  END LOOP;
  CLOSE c;
  back_all := fwd_rest - n;
  -- row i read forward is row i read backward
  reversed := NOT EXISTS (SELECT 1 FROM ch_fwd f LEFT JOIN ch_back b USING (i) WHERE b.t IS DISTINCT FROM f.t)
              AND (SELECT min(i) FROM ch_back) = 1;
  SELECT count(*) INTO d1 FROM (SELECT t FROM ch_native EXCEPT ALL SELECT t FROM ch_back) y;
  SELECT count(*) INTO d2 FROM (SELECT t FROM ch_back EXCEPT ALL SELECT t FROM ch_native) y;
  same := d1 = 0 AND d2 = 0;
  DROP TABLE ch_native;
  DROP TABLE ch_fwd;
  DROP TABLE ch_back;
END;
$$;
SET join_collapse_limit = 1;
SELECT * FROM ch_scroll('SELECT l_id, o_key, c_key, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                         JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_scroll('SELECT l_id, o_key, c_key FROM ch_item LEFT JOIN ch_orders ON o_key = l_okey
                         LEFT JOIN ch_cust ON c_key = o_ckey WHERE NOT EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey)');
SELECT * FROM ch_scroll('SELECT f.id, d1.id, d2.id FROM ch_df f JOIN ch_d1 d1 ON d1.k = f.k JOIN ch_d2 d2 ON d2.k = d1.k2');
-- a plain cursor fetched in pieces, in a transaction
BEGIN;
SELECT gh_force_on();
DECLARE ch_d CURSOR FOR SELECT l_id, o_key, c_key FROM ch_item JOIN ch_orders ON o_key = l_okey
  JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey;
MOVE FORWARD 1000 IN ch_d;
MOVE FORWARD 1000 IN ch_d;
MOVE FORWARD ALL IN ch_d;
FETCH 1 FROM ch_d;
CLOSE ch_d;
COMMIT;
SET enable_gpuhashjoin = off;
SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey;
RESET enable_gpuhashjoin;
RESET join_collapse_limit;
DROP FUNCTION ch_scroll(text);

--
-- parallel chains: a 50000-row fact table split among the participants,
-- each level's table built once and shared
--
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE ch_bigitem (LIKE ch_item);
INSERT INTO ch_bigitem SELECT * FROM ch_items(50000);
-- a sample of every row: the same statistics, and plans, at each run
ALTER TABLE ch_bigitem ALTER COLUMN l_okey SET STATISTICS 200;
ANALYZE ch_bigitem;
SELECT * FROM ch_check('SELECT l_id, o_key, p_key, s_name FROM ch_bigitem
                        JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey');
SELECT * FROM gh_explain('SELECT l_id, o_key, p_key, s_name FROM ch_bigitem
                          JOIN ch_orders ON o_key = l_okey JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey');
SET join_collapse_limit = 1;
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg, n_name, r_name FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey JOIN ch_region ON r_key = n_rkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_key, n_name FROM ch_bigitem LEFT JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_check('SELECT l_id, o_key, c_seg FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                          AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey AND p_size < 20)
                        JOIN ch_cust ON c_key = o_ckey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey AND n_rkey = 2)');
SELECT * FROM ch_check('SELECT l_id, o_key, p_size FROM ch_bigitem JOIN ch_orders ON o_key = l_okey8 AND l_day < o_day
                        JOIN ch_part ON p_tag = l_ptag JOIN ch_psupp ON ps_pkey = l_pkey AND ps_skey = l_skey');
SELECT * FROM ch_check('SELECT c_seg, n_name, count(*), sum(l_qty) FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey GROUP BY c_seg, n_name');
SELECT * FROM ch_check('SELECT l_id, e.id, o_key FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_empty e ON e.k = o_ckey JOIN ch_cust ON c_key = o_ckey');
-- rescanned: a parallel chain in a correlated subquery (the parameter is
-- read above its Gather), its shared tables built at each rescan
SELECT * FROM ch_check('SELECT p.id, (SELECT count(*) + p.id FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM ch_check('SELECT p.id, x.* FROM ch_p p, LATERAL (SELECT count(*), sum(l_qty), p.d FROM ch_bigitem
                          JOIN ch_orders ON o_key = l_okey LEFT JOIN ch_cust ON c_key = o_ckey
                          WHERE NOT EXISTS (SELECT 1 FROM ch_nation WHERE n_key = c_nkey)) x');
SELECT * FROM ch_builds('SELECT p.id, (SELECT count(*) + p.id FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
-- a level that reads the parameter cannot run in a worker (PostgreSQL
-- passes a correlated parameter to no worker): that level and those above
-- it run serially over a Gather of the parallel levels below, so the
-- stack is only as high as the serial levels (2 here: cust and nation over
-- Gather[item JOIN orders])
SELECT * FROM ch_check('SELECT p.id, (SELECT count(*) FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key + p.d = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM gh_explain('SELECT l_id, o_key, c_key, n_name FROM ch_bigitem LEFT JOIN ch_orders ON o_key = l_okey
                          LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
RESET join_collapse_limit;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

RESET enable_nestloop;

--
-- The chain (chain.c): the top of each stack probes its levels together.
-- ch_fused(q) runs q forced on under EXPLAIN ANALYZE and lists each chain's
-- top: its levels, whether it ran fused (chain requests made) and, if a
-- scan ran the nodes one by one, why.  ch_onoff(q) compares q's rows with
-- PostgreSQL's with gpuhash.chain on and off, here with
-- one-row probe batches and small requests (several windows of
-- combinations per batch), and with the levels' tables carrying keys.
--
CREATE FUNCTION ch_fused(q text) RETURNS TABLE (levels integer, fused boolean, unfused text)
LANGUAGE sql AS $$
  SELECT (n->>'Chain Levels')::integer, coalesce((n->>'Chain Requests')::bigint > 0, false),
         n->>'Chain Unfused'
  FROM ch_analyze(q) n
  WHERE n ? 'Chain Levels';
$$;
-- q forced on with the chain on and with it off, each compared with
-- PostgreSQL's own rows (gh_check): the same rows both ways
CREATE FUNCTION ch_onoff(q text, OUT rows bigint, OUT same boolean)
LANGUAGE plpgsql AS $$
DECLARE
  off_rows bigint;
  off_same boolean;
BEGIN
  PERFORM set_config('gpuhash.chain', 'off', true);
  SELECT c.rows, c.same INTO off_rows, off_same FROM gh_check(q) c;
  PERFORM set_config('gpuhash.chain', 'on', true);
  SELECT c.rows, c.same INTO rows, same FROM gh_check(q) c;
  same := same AND off_same AND rows = off_rows;
END;
$$;
SET join_collapse_limit = 1;
-- a snowflake: customer's key carried by orders, nation's by customer
SELECT * FROM ch_fused('SELECT count(*), sum(l_qty) FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey
                        JOIN ch_region ON r_key = n_rkey');
-- a star: keys read from the outer rows; the two-column one takes p_key
-- (equal to l_pkey) from the part level and l_skey from the outer rows
SELECT * FROM ch_fused('SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_part ON p_key = l_pkey JOIN ch_psupp ON ps_pkey = l_pkey AND ps_skey = l_skey');
-- a level keyed by columns of two sources (TPC-H Q5's supplier: l_skey
-- from the outer rows, c_nkey carried by customer), the key's parts OR'd
-- in the probe; NULL keys in either part on both sides
SELECT * FROM ch_fused('SELECT count(*), sum(l_qty) FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey
                        JOIN ch_nation ON n_key = s_nkey');
SELECT * FROM ch_onoff('SELECT l_id, o_key, c_key, s_name, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey
                        JOIN ch_nation ON n_key = s_nkey');
-- a LEFT level keyed by a part from a NULL-extended level and one from the outer rows
SELECT * FROM ch_fused('SELECT l_id, o_key, c_key, s_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey');
SELECT * FROM ch_onoff('SELECT l_id, o_key, c_key, s_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey');
-- three sources (the outer rows and two levels), int2 columns so that the
-- three pack into 64 bits; duplicates and NULLs in every part
CREATE TABLE ch_t0 (id int4, a int2);
INSERT INTO ch_t0 SELECT g, CASE WHEN g % 13 = 0 THEN NULL ELSE g % 20 END FROM generate_series(1, 300) g;
CREATE TABLE ch_t1 (b_key int2, b int2);
INSERT INTO ch_t1 SELECT g % 20, CASE WHEN g = 7 THEN NULL ELSE g % 5 END FROM generate_series(1, 40) g;
CREATE TABLE ch_t2 (c_key int2, c int2);
INSERT INTO ch_t2 SELECT g % 20, g % 3 FROM generate_series(1, 20) g;
CREATE TABLE ch_t3 (x int2, y int2, z int2, id int4);
INSERT INTO ch_t3 SELECT x, y, z, x * 100 + y * 10 + z FROM generate_series(0, 19) x, generate_series(0, 4) y,
  generate_series(0, 2) z WHERE (x + y + z) % 2 = 0;
INSERT INTO ch_t3 VALUES (NULL, 1, 1, -1), (2, NULL, 0, -2), (4, 0, NULL, -3);
ANALYZE ch_t0;
ANALYZE ch_t1;
ANALYZE ch_t2;
ANALYZE ch_t3;
SELECT * FROM ch_fused('SELECT count(*) FROM ch_t0 JOIN ch_t1 ON b_key = a JOIN ch_t2 ON c_key = a
                        JOIN ch_t3 ON x = a AND y = b AND z = c');
SELECT * FROM ch_onoff('SELECT ch_t0.id, b, c, ch_t3.id FROM ch_t0 JOIN ch_t1 ON b_key = a JOIN ch_t2 ON c_key = a
                        JOIN ch_t3 ON x = a AND y = b AND z = c');
SELECT * FROM ch_onoff('SELECT ch_t0.id, b, c, ch_t3.id FROM ch_t0 LEFT JOIN ch_t1 ON b_key = a LEFT JOIN ch_t2 ON c_key = a
                        LEFT JOIN ch_t3 ON x = a AND y = b AND z = c');
-- a fingerprint (text) key does not split into parts: no chain over two levels
SELECT * FROM ch_fused('SELECT count(*) FROM ch_df df JOIN ch_d1 a ON a.k = df.k
                        JOIN ch_d2 b ON b.t = df.t AND b.k2 = a.k2');
SELECT * FROM ch_onoff('SELECT df.id, a.id, b.id FROM ch_df df JOIN ch_d1 a ON a.k = df.k
                        JOIN ch_d2 b ON b.t = df.t AND b.k2 = a.k2');
-- EXPLAIN ANALYZE: each level's time in the chain's probes (Chain Level
-- Time), on every level of a fused chain
SELECT count(*) AS joins, count(*) FILTER (WHERE (n->>'Chain Level Time')::float8 > 0) AS timed
FROM ch_analyze('SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                  JOIN ch_cust ON c_key = o_ckey JOIN ch_supp ON s_key = l_skey AND s_nkey = c_nkey', true) n
WHERE n->>'Custom Plan Provider' = 'GpuHashJoin';
-- semi, anti and left levels; a left level keyed by a NULL-extended column
SELECT * FROM ch_fused('SELECT l_id, c_key, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey)
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_region WHERE r_key = n_rkey)');
-- a join filter at an inner level: checked when the rows are formed
SELECT * FROM ch_fused('SELECT l_id, o_key FROM ch_item JOIN ch_orders ON o_key = l_okey AND l_day < o_day
                        JOIN ch_cust ON c_key = o_ckey');
-- a join filter at a left level (kept left: nothing above is strict on
-- its columns) ends the chain: part and supp above it form one of 2 levels
SELECT * FROM ch_fused('SELECT l_id, o_key, c_key, p_size, s_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey AND c_bal > l_qty
                        JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey');
SELECT * FROM ch_onoff('SELECT l_id, o_key, c_key, p_size, s_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_cust ON c_key = o_ckey AND c_bal > l_qty
                        JOIN ch_part ON p_key = l_pkey JOIN ch_supp ON s_key = l_skey');
-- an empty level: the nodes run one by one
SELECT * FROM ch_fused('SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                        LEFT JOIN ch_empty e ON e.k = o_ckey JOIN ch_cust ON c_key = o_ckey');
-- rescans: the level whose inner key reads the parameter is rebuilt, its
-- carried keys set again
SELECT * FROM ch_fused('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key + coalesce(p.d, 0) = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM ch_onoff('SELECT p.id, (SELECT count(*) FROM ch_item JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key + coalesce(p.d, 0) = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
SELECT * FROM ch_onoff('SELECT l_id, c_key, n_name FROM ch_item JOIN ch_orders ON o_key = l_okey
                        AND EXISTS (SELECT 1 FROM ch_part WHERE p_key = l_pkey)
                        LEFT JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey
                        WHERE NOT EXISTS (SELECT 1 FROM ch_region WHERE r_key = n_rkey)');
-- duplicates that multiply: 20 x 20 x 20 per key, in one-row and seven-row
-- batches (a batch's combinations then take several requests)
SET gpuhash.batch_rows = 1;
SELECT * FROM ch_onoff('SELECT df.id, a.id, b.id, c.id FROM ch_df df JOIN ch_d1 a ON a.k = df.k
                        JOIN ch_d2 b ON b.k = df.k JOIN ch_d3 c ON c.k = df.k');
SET gpuhash.batch_rows = 7;
SELECT * FROM ch_onoff('SELECT df.id, a.id, b.id, c.id FROM ch_df df JOIN ch_d1 a ON a.k = df.k
                        JOIN ch_d2 b ON b.k = df.k JOIN ch_d3 c ON c.k = df.k');
SELECT * FROM ch_fused('SELECT count(*) FROM ch_df df JOIN ch_d1 a ON a.k = df.k
                        JOIN ch_d2 b ON b.k = df.k JOIN ch_d3 c ON c.k = df.k');
RESET gpuhash.batch_rows;
-- parallel: shared tables, carried keys set once for all participants
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT * FROM ch_fused('SELECT count(*), sum(l_qty) FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_onoff('SELECT l_id, o_key, c_key, n_name FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                        JOIN ch_cust ON c_key = o_ckey LEFT JOIN ch_nation ON n_key = c_nkey');
SELECT * FROM ch_onoff('SELECT p.id, (SELECT count(*) + p.id FROM ch_bigitem JOIN ch_orders ON o_key = l_okey
                          JOIN ch_cust ON c_key = o_ckey JOIN ch_nation ON n_key = c_nkey) FROM ch_p p');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET join_collapse_limit;
DROP FUNCTION ch_fused(text);
DROP FUNCTION ch_onoff(text);

DROP FUNCTION ch_items(int);
DROP TABLE ch_region, ch_nation, ch_cust, ch_orders, ch_part, ch_supp, ch_psupp, ch_cal, ch_item,
  ch_bigitem, ch_df, ch_d1, ch_d2, ch_d3, ch_empty, ch_p, ch_t0, ch_t1, ch_t2, ch_t3;
DROP FUNCTION ch_check(text);
DROP FUNCTION ch_builds(text);
DROP FUNCTION ch_analyze(text, boolean);
DROP FUNCTION ch_shape(jsonb);
DROP FUNCTION ch_stack(jsonb);
DROP FUNCTION ch_levels(jsonb);

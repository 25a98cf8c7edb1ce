--
-- The GPU aggregate over a join with carried columns: columns of the inner
-- side that the query outputs without grouping by them, which PostgreSQL
-- allows because the GROUP BY holds their relation's primary key (TPC-H
-- Q10's c_name, c_address, c_comment under GROUP BY c_custkey).  The GPU
-- folds the groups without them; each group takes them from one inner row
-- of its inner group columns (src/agg/agg_join_carry.c).  Each query runs
-- all PostgreSQL's, then with the GPU aggregate on; the results are
-- compared as multisets of text rows, and ca_check says whether the second
-- plan carried columns (EXPLAIN's "carried" in its GPU Aggregate line).
--
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

\i sql/agg_join_helpers.inc

CREATE FUNCTION ca_check(q text, OUT rows bigint, OUT same boolean, OUT carried boolean)
LANGUAGE sql AS $$ SELECT * FROM aj_check(q, '%GPU Aggregate:%carried%') $$;

-- the lines of EXPLAIN (opts) q that match pat; the plan's GPU Aggregate
-- line and its dimension, costs off (ca_plan)
CREATE FUNCTION ca_lines(q text, opts text, pat text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  PERFORM aj_on();
  FOR l IN EXECUTE 'EXPLAIN (' || opts || ') ' || q LOOP
    IF l ~ pat THEN
      RETURN NEXT regexp_replace(l, '^ *(->  )?', '');
    END IF;
  END LOOP;
END $$;
CREATE FUNCTION ca_plan(q text) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT ca_lines(q, 'COSTS OFF, VERBOSE', '(GPU Aggregate|GPU Join|Dimension|GpuPreAgg)') $$;

-- customers: a wide address and comment (some long enough to be TOASTed,
-- compressed or out of line), NULLs among the carried columns, a char(n)
-- phone; nations with a NULL name; orders and their lines.
CREATE TABLE ca_nation (n_nationkey int4 PRIMARY KEY, n_name char(25), n_note text)
  WITH (autovacuum_enabled = off);
INSERT INTO ca_nation
SELECT i, CASE WHEN i = 7 THEN NULL ELSE 'NATION ' || i END, 'note ' || i
FROM generate_series(0, 24) i;
CREATE TABLE ca_cust (
  c_custkey int4 PRIMARY KEY, c_name varchar(25), c_address varchar(40), c_nationkey int4,
  c_phone char(15), c_acctbal numeric(15,2), c_comment text, c_seg text)
  WITH (autovacuum_enabled = off);
ALTER TABLE ca_cust ALTER COLUMN c_comment SET STORAGE EXTERNAL;
INSERT INTO ca_cust
SELECT i, 'Customer#' || lpad(i::text, 9, '0'),
       CASE WHEN i % 13 = 0 THEN NULL ELSE md5(i::text) END, i % 25,
       CASE WHEN i % 17 = 0 THEN NULL ELSE lpad((i % 1000)::text, 12, '0') END,
       CASE WHEN i % 19 = 0 THEN NULL ELSE (i % 9999) - 999.99 + i / 100.0 END,
       CASE WHEN i % 50 = 0 THEN repeat(md5(i::text), 100)
            WHEN i % 11 = 0 THEN NULL ELSE 'comment ' || i || ' ' || md5((i * 3)::text) END,
       (ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'])[i % 5 + 1]
FROM generate_series(1, 3000) i;
CREATE TABLE ca_ord (o_orderkey int8 PRIMARY KEY, o_custkey int4, o_orderdate date, o_prio int4)
  WITH (autovacuum_enabled = off);
INSERT INTO ca_ord
SELECT i, 1 + (i * 7) % 2999, date '1993-01-01' + i % 700, i % 5
FROM generate_series(1, 15000) i;
CREATE TABLE ca_li (l_orderkey int8, l_price numeric(15,2), l_discount numeric(15,2),
                    l_flag char(1), l_qty int4)
  WITH (autovacuum_enabled = off);
INSERT INTO ca_li
SELECT 1 + i % 15000, (900 + i % 10000) / 10.0, (i % 11) / 100.0,
       (ARRAY['R', 'A', 'N'])[i % 3 + 1], 1 + i % 50
FROM generate_series(1, 60000) i;
-- lines of no order, an order of no customer
INSERT INTO ca_li VALUES (99999, 10.00, 0.01, 'R', 3), (NULL, 5.00, 0.00, 'R', 1);
INSERT INTO ca_ord VALUES (20000, 99999, date '1993-10-15', 1);
INSERT INTO ca_li VALUES (20000, 7.00, 0.02, 'R', 2);
VACUUM ANALYZE ca_nation, ca_cust, ca_ord, ca_li;

-- the queries asked more than once: TPC-H Q10's shape; its customer's
-- part alone; an order's key carrying the order's columns
CREATE FUNCTION ca_q10() RETURNS text LANGUAGE sql AS $f$ SELECT $q$
SELECT c_custkey, c_name, sum(l_price * (1 - l_discount)) AS revenue, c_acctbal, n_name,
       c_address, c_phone, c_comment
FROM ca_cust, ca_ord, ca_li, ca_nation
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
  AND o_orderdate >= date '1993-10-01' AND o_orderdate < date '1993-10-01' + interval '3' month
  AND l_flag = 'R' AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment $q$ $f$;
CREATE FUNCTION ca_qcust() RETURNS text LANGUAGE sql AS $f$ SELECT $q$
SELECT c_custkey, c_name, sum(l_price * (1 - l_discount)) AS revenue, c_acctbal,
       c_address, c_phone, c_comment
FROM ca_cust, ca_ord, ca_li
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_flag = 'R'
GROUP BY c_custkey, c_name, c_acctbal, c_phone, c_address, c_comment $q$ $f$;
CREATE FUNCTION ca_qord() RETURNS text LANGUAGE sql AS $f$ SELECT $q$
SELECT o_orderkey, o_orderdate, o_prio, sum(l_qty), avg(l_price), count(*)
FROM ca_ord, ca_li
WHERE l_orderkey = o_orderkey AND l_flag <> 'N'
GROUP BY o_orderkey $q$ $f$;

-- TPC-H Q10's shape: the customer's columns carried, grouped by its key and the nation's name
SELECT * FROM ca_check(ca_q10());
SELECT * FROM ca_plan(ca_q10());

-- the top 20 of it, as Q10 asks, its ties broken by the key
SELECT * FROM ca_check(ca_q10() || ' ORDER BY revenue DESC, c_custkey LIMIT 20');

-- carried columns only inside expressions, in HAVING and ORDER BY
SELECT * FROM ca_check($$
SELECT c_custkey, upper(c_name) || coalesce(c_phone, '-'), count(*), min(l_qty), max(l_qty),
       length(c_comment)
FROM ca_cust, ca_ord, ca_li
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
GROUP BY c_custkey
HAVING count(*) > 21 OR c_seg = 'BUILDING' OR c_acctbal IS NULL
ORDER BY c_address NULLS FIRST, c_custkey $$);

-- a base relation's key carries its columns: the order's date and priority
SELECT * FROM ca_check(ca_qord());

-- an inner group column that is NULL (a nation without a name; a
-- customer without a phone, char(n))
SELECT * FROM ca_check($$
SELECT n_nationkey, n_name, n_note, count(*), sum(l_qty)
FROM ca_nation, ca_cust, ca_ord, ca_li
WHERE n_nationkey = c_nationkey AND c_custkey = o_custkey AND l_orderkey = o_orderkey
GROUP BY n_nationkey $$);
SELECT * FROM ca_check($$
SELECT c_phone, c_custkey, c_comment, c_acctbal, count(*)
FROM ca_cust, ca_ord, ca_li
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
GROUP BY c_phone, c_custkey $$);

-- no row at all
SELECT * FROM ca_check($$
SELECT c_custkey, c_name, sum(l_qty)
FROM ca_cust, ca_ord, ca_li
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_qty > 1000
GROUP BY c_custkey $$);

-- a column of the walked side is never carried: declined, PostgreSQL's plan
CREATE TABLE ca_li_pk (l_orderkey int8, l_line int4, l_note text, l_qty int4,
                       PRIMARY KEY (l_orderkey, l_line)) WITH (autovacuum_enabled = off);
INSERT INTO ca_li_pk SELECT 1 + i % 15000, i, 'line ' || i, i % 7 FROM generate_series(1, 30000) i;
ANALYZE ca_li_pk;
SELECT * FROM ca_check($$
SELECT l_orderkey, l_line, l_note, sum(l_qty), max(o_prio)
FROM ca_li_pk, ca_ord WHERE l_orderkey = o_orderkey
GROUP BY l_orderkey, l_line $$);

-- an oid key past 2^31 (a tuple's Datum sign-extends it, the GPU's key
-- does not) carries its name
CREATE TABLE ca_obj (o_id oid PRIMARY KEY, o_name text) WITH (autovacuum_enabled = off);
INSERT INTO ca_obj SELECT (3000000000 + i)::oid, 'object ' || i FROM generate_series(0, 99) i;
INSERT INTO ca_obj VALUES (7, 'seven');
CREATE TABLE ca_use (u_obj oid, u_n int4) WITH (autovacuum_enabled = off);
INSERT INTO ca_use SELECT CASE WHEN i % 11 = 0 THEN 7 ELSE (3000000000 + i % 100)::oid END, i
FROM generate_series(1, 20000) i;
ANALYZE ca_obj, ca_use;
SELECT * FROM ca_check($$
SELECT o_id, o_name, count(*), sum(u_n)
FROM ca_use, ca_obj WHERE u_obj = o_id
GROUP BY o_id $$);

-- the table of carried rows is keyed by the carried relations' primary
-- keys alone: two relations' (the customer's and the nation's, both
-- carried), and a key of two columns whose rows join by a third
SELECT * FROM ca_check($$
SELECT c_custkey, c_name, n_nationkey, n_note, count(*), sum(l_qty)
FROM ca_li, ca_ord, ca_cust, ca_nation
WHERE l_orderkey = o_orderkey AND o_custkey = c_custkey AND c_nationkey = n_nationkey
  AND o_orderdate >= date '1993-10-01' AND o_orderdate < date '1994-01-01' AND l_flag = 'R'
GROUP BY c_custkey, n_nationkey $$);
CREATE TABLE ca_ps (ps_part int4, ps_supp int4, ps_id int8 UNIQUE, ps_note text,
                    PRIMARY KEY (ps_part, ps_supp)) WITH (autovacuum_enabled = off);
INSERT INTO ca_ps SELECT i % 40, i / 40, i, 'ps ' || i || repeat('x', i % 30)
FROM generate_series(0, 1999) i;
CREATE TABLE ca_use_ps (u_ps int8, u_q int4) WITH (autovacuum_enabled = off);
INSERT INTO ca_use_ps SELECT i % 2100, i FROM generate_series(1, 30000) i;
ANALYZE ca_ps, ca_use_ps;
SELECT * FROM ca_check($$
SELECT ps_part, ps_supp, ps_note, length(ps_note), count(*), sum(u_q)
FROM ca_use_ps, ca_ps WHERE u_ps = ps_id
GROUP BY ps_part, ps_supp $$);
SELECT * FROM ca_check($$
SELECT ps_supp, ps_part, ps_note, count(*), sum(u_q)
FROM ca_use_ps, ca_ps WHERE u_ps = ps_id
GROUP BY ps_supp, ps_part $$);

-- a plain inheritance parent's key is no key of its children's rows: not
-- carried (PostgreSQL's value is one of the group's rows)
CREATE TABLE ca_par (p_id int4 PRIMARY KEY, p_g int4, p_name text);
CREATE TABLE ca_chi () INHERITS (ca_par);
INSERT INTO ca_par VALUES (1, 1, 'parent');
INSERT INTO ca_chi VALUES (1, 2, 'child');
CREATE TABLE ca_f (f_g int4, f_x int4) WITH (autovacuum_enabled = off);
INSERT INTO ca_f SELECT 2, i FROM generate_series(1, 20000) i;
ANALYZE ca_par, ca_chi, ca_f;
SELECT * FROM ca_check($$
SELECT p_id, p_name, sum(f_x) FROM ca_f JOIN ca_par ON f_g = p_g GROUP BY p_id $$);

-- an outer join preserving the inner side carries nothing: declined
SELECT * FROM ca_check($$
SELECT c_custkey, c_name, count(l_qty)
FROM ca_cust LEFT JOIN ca_ord ON c_custkey = o_custkey LEFT JOIN ca_li ON l_orderkey = o_orderkey
GROUP BY c_custkey $$);

-- in parallel: one dimension shared by all (the inner side's partial
-- plan, a join; a base relation's), then one per participant; the groups
-- resident on the device or not
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT * FROM ca_check(ca_qcust());
SELECT * FROM ca_plan(ca_qcust());
SELECT * FROM ca_check(ca_qord());
SET gpuhash.shared_dimension = off;
SELECT * FROM ca_check(ca_qcust());
RESET gpuhash.shared_dimension;
SET gpuhash.resident_groups = off;
SELECT * FROM ca_check(ca_qcust());
RESET gpuhash.resident_groups;
SET gpuhash.resident_groups = on;
SELECT * FROM ca_check(ca_qcust());
RESET gpuhash.resident_groups;

-- groups with one owner each over a join (the Finalize Aggregate in
-- every participant, below the Gather; EXPLAIN's "Group Owners"), with
-- carried columns and without
SET max_parallel_workers_per_gather = 2;
SET gpuhash.resident_groups = on;
SELECT * FROM aj_check(ca_qcust(), '%Group Owners%');
SELECT * FROM aj_check($$
SELECT o_prio, count(*), sum(l_qty)
FROM ca_ord, ca_li WHERE l_orderkey = o_orderkey
GROUP BY o_prio $$, '%Group Owners%');
RESET gpuhash.resident_groups;

-- rescans: a subplan run once per outer row runs the node again, its
-- table of carried rows built again
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
SELECT * FROM aj_check($$
SELECT g, (SELECT string_agg(x.c_name || ':' || x.q, ',' ORDER BY x.c_custkey)
           FROM (SELECT c_custkey, c_name, sum(l_qty) AS q
                 FROM ca_cust, ca_ord, ca_li
                 WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
                 GROUP BY c_custkey) x
           WHERE x.c_custkey % 1000 = g)
FROM generate_series(0, 2) g $$, '%GPU Aggregate:%carried%');

-- a scroll cursor over it, read forwards, backwards and from the start
BEGIN;
SELECT aj_on();
DECLARE ca_cur SCROLL CURSOR FOR
SELECT c_custkey, c_name, length(c_comment), sum(l_qty) AS q
FROM ca_cust, ca_ord, ca_li
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
GROUP BY c_custkey ORDER BY c_custkey;
FETCH 2 FROM ca_cur;
FETCH LAST FROM ca_cur;
FETCH ABSOLUTE 1 FROM ca_cur;
COMMIT;
SELECT c_custkey, c_name, length(c_comment), sum(l_qty) AS q
FROM ca_cust, ca_ord, ca_li
WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
GROUP BY c_custkey ORDER BY c_custkey LIMIT 2;

-- carried columns over an inner side that outgrows work_mem x
-- hash_mem_multiplier at run time (two equal columns whose equality
-- PostgreSQL takes as independent: 13 rows estimated, 502 of 330-byte
-- notes in fact): the rows go to batches, each pass's groups go up while
-- its batch is in memory, and the Finalize Aggregate adds a group's passes
-- up.  Joined by the inner side's key (each group's pairs in one pass)
-- and by another column (a group's pairs in several); serial, in
-- parallel with a dimension per participant and with a shared one, with
-- groups resident, owned, or neither; a rescan.  "Carried Keys" counts the
-- last batch's.
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE ca_grow (g_id int4 PRIMARY KEY, g_a int4, g_b int4, g_k int4, g_name text,
                      g_note text) WITH (autovacuum_enabled = off);
INSERT INTO ca_grow SELECT i, i % 40, i % 40, i % 7, 'grow ' || i, repeat(md5(i::text), 10)
FROM generate_series(1, 20050) i;
CREATE TABLE ca_fact (f_id int4, f_k int4, f_q int4, f_p numeric(12,2))
  WITH (autovacuum_enabled = off);
INSERT INTO ca_fact SELECT 1 + (i * 7) % 20100, i % 7, i % 17, (i % 1000) / 8.0
FROM generate_series(1, 60000) i;
VACUUM ANALYZE ca_grow, ca_fact;
CREATE FUNCTION ca_figures(q text) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT ca_lines(q, 'ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF',
                  '(GPU Aggregate|Inner Rows|Inner Batches|Carried Keys)') $$;
CREATE FUNCTION ca_qgrow() RETURNS text LANGUAGE sql AS $f$ SELECT $q$
SELECT g_id, g_name, g_note, count(*), sum(f_q), sum(f_p)
FROM ca_fact JOIN ca_grow ON f_id = g_id WHERE g_a = 3 AND g_b = 3 GROUP BY g_id $q$ $f$;
CREATE FUNCTION ca_qgrowk() RETURNS text LANGUAGE sql AS $f$ SELECT $q$
SELECT g_id, g_name, length(g_note), count(*), sum(f_q)
FROM ca_fact JOIN ca_grow ON f_k = g_k WHERE f_q < 2 AND g_a = 3 AND g_b = 3 GROUP BY g_id $q$ $f$;
SET work_mem = '64kB';
SET hash_mem_multiplier = 1;
SELECT * FROM ca_check(ca_qgrow());
SELECT * FROM ca_check(ca_qgrowk());
SELECT * FROM ca_check(ca_qgrow() || ' ORDER BY sum(f_p) DESC, g_id LIMIT 5');
SELECT * FROM ca_figures(ca_qgrow());
SELECT * FROM ca_figures(ca_qgrowk());
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET gpuhash.shared_dimension = off;
SELECT * FROM ca_check(ca_qgrow());
SELECT * FROM ca_check(ca_qgrowk());
RESET gpuhash.shared_dimension;
SELECT aj_plan_has(ca_qgrowk(), '%Dimension: shared%') AS shared;
SELECT * FROM ca_check(ca_qgrow());
SELECT * FROM ca_check(ca_qgrowk());
SET gpuhash.resident_groups = off;
SELECT * FROM ca_check(ca_qgrowk());
SET gpuhash.resident_groups = on;
SELECT * FROM ca_check(ca_qgrowk());
SELECT * FROM aj_check(ca_qgrow(), '%Group Owners%');
SELECT * FROM aj_check(ca_qgrowk(), '%Group Owners%');
RESET gpuhash.resident_groups;
SET max_parallel_workers_per_gather = 0;
SELECT * FROM aj_check($$
SELECT m, (SELECT string_agg(x.g_name || ':' || x.n, ',' ORDER BY x.g_id)
           FROM (SELECT g_id, g_name, count(*) AS n
                 FROM ca_fact JOIN ca_grow ON f_k = g_k
                 WHERE f_q < 2 AND g_a = 3 AND g_b = 3 GROUP BY g_id) x
           WHERE x.g_id % 2 = m)
FROM generate_series(0, 1) m $$, '%GPU Aggregate:%carried%');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET work_mem;
RESET hash_mem_multiplier;
DROP TABLE ca_grow, ca_fact;

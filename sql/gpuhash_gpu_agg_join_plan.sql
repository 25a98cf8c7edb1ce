-- The planner's GPU aggregate over a join (GpuPreAgg with an inner plan):
-- plan shapes only, EXPLAIN (COSTS OFF); the executor's tests run them.
-- Where the grouped rel's input is an INNER join of a table whose pages the
-- walker reads with another side, joined on = clauses of an exact key:
-- Finalize Aggregate -> Gather -> GpuPreAgg (the inner plan under it, run
-- whole by every participant), or a serial GpuPreAgg; declined cases, and
-- the switch off, keep PostgreSQL's own plan.  aj_plan() leaves out the
-- node's "GPU Declined" line: whether the executor compiles a program is
-- the executor's tests' business, the shape of the plan this file's.
SET gpuhash.device = host;
SET gpuhash.gpu_aggregate = on;
SET gpuhash.gpu_aggregate_join = on;
-- the page path priced as its tuple path and the GPU join's matches dear:
-- the GPU join under PostgreSQL's aggregate is the other GPU way to run
-- these, not the shape shown here
SET gpuhash.page_cpu_cost = -1;
SET gpuhash.match_row_cost = 10;
SET gpuhash.page_match_cost = 10;
CREATE TABLE aj_line (
	l_orderkey int4, l_partkey int4, l_quantity numeric(15,2),
	l_extendedprice numeric(15,2), l_discount numeric(15,2),
	l_shipdate date, l_commitdate date, l_receiptdate date,
	l_shipmode char(10), l_shipinstruct char(25), l_note text);
INSERT INTO aj_line
SELECT i % 15000 + 1, i % 2000 + 1, (i % 50) + 1, (i % 997) * 1.25, (i % 11) / 100.0,
	   date '1992-01-01' + i % 2500, date '1992-01-01' + (i * 7) % 2500,
	   date '1992-01-01' + (i * 13) % 2500,
	   (ARRAY['MAIL', 'SHIP', 'AIR', 'AIR REG', 'RAIL', 'TRUCK', 'FOB'])[i % 7 + 1],
	   (ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])[i % 4 + 1],
	   'n' || i % 7
FROM generate_series(1, 60000) i;
CREATE TABLE aj_part (
	p_partkey int4 PRIMARY KEY, p_type varchar(25), p_brand char(10),
	p_container char(10), p_size int4);
INSERT INTO aj_part
SELECT i, (ARRAY['PROMO BRUSHED', 'STANDARD POLISHED', 'ECONOMY ANODIZED'])[i % 3 + 1],
	   'Brand#' || (i % 5 + 1) || (i % 4 + 1),
	   (ARRAY['SM CASE', 'SM BOX', 'MED BAG', 'MED BOX', 'LG CASE', 'LG BOX'])[i % 6 + 1],
	   i % 50 + 1
FROM generate_series(1, 2000) i;
CREATE TABLE aj_cust (c_custkey int4 PRIMARY KEY, c_mktsegment char(10));
INSERT INTO aj_cust
SELECT i, (ARRAY['BUILDING', 'MACHINERY', 'AUTOMOBILE'])[i % 3 + 1]
FROM generate_series(1, 1500) i;
CREATE TABLE aj_orders (
	o_orderkey int4 PRIMARY KEY, o_custkey int4, o_orderpriority char(15), o_orderdate date);
INSERT INTO aj_orders
SELECT i, i % 1500 + 1,
	   (ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])[i % 5 + 1],
	   date '1992-01-01' + i % 2400
FROM generate_series(1, 15000) i;
CREATE TABLE aj_date (d_datekey date PRIMARY KEY, d_year int4);
INSERT INTO aj_date
SELECT date '1992-01-01' + i, extract(year FROM date '1992-01-01' + i)
FROM generate_series(0, 2599) i;
ANALYZE aj_line, aj_part, aj_cust, aj_orders, aj_date;

CREATE FUNCTION aj_plan(q text, detail boolean DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF' || CASE WHEN detail THEN ', VERBOSE' ELSE '' END ||
						') ' || q LOOP
		IF line NOT LIKE '%GPU Declined:%' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = on;

-- one group, a CASE over the inner side's column (TPC-H Q14's shape)
SELECT aj_plan($$SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount)
						ELSE 0 END) / sum(l_extendedprice * (1 - l_discount))
FROM aj_line, aj_part
WHERE l_partkey = p_partkey
  AND l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-10-01'$$);

-- the join's further clause over both sides, what remains of an OR once
-- the common = clause is pulled out of it (TPC-H Q19's shape)
SELECT aj_plan($$SELECT sum(l_extendedprice * (1 - l_discount))
FROM aj_line, aj_part
WHERE (p_partkey = l_partkey AND p_brand = 'Brand#12'
	   AND p_container IN ('SM CASE', 'SM BOX')
	   AND l_quantity >= 1 AND l_quantity <= 1 + 10 AND p_size BETWEEN 1 AND 5
	   AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (p_partkey = l_partkey AND p_brand = 'Brand#23'
	   AND p_container IN ('MED BAG', 'MED BOX')
	   AND l_quantity >= 10 AND l_quantity <= 10 + 10 AND p_size BETWEEN 1 AND 10
	   AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (p_partkey = l_partkey AND p_brand = 'Brand#34'
	   AND p_container IN ('LG CASE', 'LG BOX')
	   AND l_quantity >= 20 AND l_quantity <= 20 + 10 AND p_size BETWEEN 1 AND 15
	   AND l_shipmode IN ('AIR', 'AIR REG') AND l_shipinstruct = 'DELIVER IN PERSON')$$);

-- grouped by the walked side's column, CASE WHEN ... THEN 1 ELSE 0 over the
-- inner side's (TPC-H Q12's shape)
SELECT aj_plan($$SELECT l_shipmode,
	   sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'
				THEN 1 ELSE 0 END) AS high_line_count,
	   sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH'
				THEN 1 ELSE 0 END) AS low_line_count
FROM aj_orders, aj_line
WHERE o_orderkey = l_orderkey
  AND l_shipmode IN ('MAIL', 'SHIP')
  AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
  AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1995-01-01'
GROUP BY l_shipmode ORDER BY l_shipmode$$);

-- grouped by the inner side's columns (a star schema's shapes)
SELECT aj_plan($$SELECT d_year, sum(l_extendedprice), count(*)
FROM aj_line JOIN aj_date ON l_shipdate = d_datekey
GROUP BY d_year ORDER BY d_year$$);
SELECT aj_plan($$SELECT p_brand, sum(l_quantity), max(l_shipdate)
FROM aj_line JOIN aj_part ON l_partkey = p_partkey
WHERE p_size < 20
GROUP BY p_brand$$);

-- the inner side a join itself, planned by PostgreSQL (serially here)
SET max_parallel_workers_per_gather = 0;
SELECT aj_plan($$SELECT c_mktsegment, count(*), sum(l_quantity)
FROM aj_line
	 JOIN aj_orders ON o_orderkey = l_orderkey
	 JOIN aj_cust ON c_custkey = o_custkey
GROUP BY c_mktsegment$$);
SET max_parallel_workers_per_gather = 2;

-- the Finalize Aggregate's Aggrefs match the node's partial ones; the inner
-- plan outputs the inner columns the node reads
SELECT aj_plan($$SELECT p_brand, count(*), sum(CASE WHEN p_size > 10 THEN l_quantity END)
FROM aj_line JOIN aj_part ON l_partkey = p_partkey
GROUP BY p_brand$$, true);

-- serial: no parallel plan to aggregate in
SET max_parallel_workers_per_gather = 0;
SELECT aj_plan($$SELECT d_year, sum(l_extendedprice) FROM aj_line JOIN aj_date ON l_shipdate = d_datekey
GROUP BY d_year$$);
SET max_parallel_workers_per_gather = 2;

-- declined: PostgreSQL's plans
-- an outer join
SELECT aj_plan($$SELECT p_brand, sum(l_quantity) FROM aj_line LEFT JOIN aj_part ON l_partkey = p_partkey
GROUP BY p_brand$$);
-- no = clause: no key
SELECT aj_plan($$SELECT count(*) FROM aj_orders JOIN aj_cust ON o_custkey < c_custkey WHERE c_custkey < 3$$);
-- a join clause the GPU does not take
SELECT aj_plan($$SELECT sum(l_quantity) FROM aj_line JOIN aj_part
	ON l_partkey = p_partkey AND substring(p_type FROM 1 FOR 1) = substring(l_note FROM 1 FOR 1)$$);
-- FILTER, DISTINCT
SELECT aj_plan($$SELECT sum(l_quantity) FILTER (WHERE p_size > 3) FROM aj_line JOIN aj_part ON l_partkey = p_partkey$$);
SELECT aj_plan($$SELECT count(DISTINCT p_brand) FROM aj_line JOIN aj_part ON l_partkey = p_partkey$$);
-- a volatile join clause
SELECT aj_plan($$SELECT sum(l_quantity) FROM aj_line JOIN aj_part
	ON l_partkey = p_partkey AND l_quantity < p_size * random()$$);
-- a parameterized inner side (LATERAL)
SELECT aj_plan($$SELECT sum(l_quantity), sum(p.s) FROM aj_line,
	LATERAL (SELECT p_size + l_orderkey AS s FROM aj_part WHERE p_partkey = l_partkey OFFSET 0) p$$);
-- a CASE whose ELSE is not 0 or NULL
SELECT aj_plan($$SELECT sum(CASE WHEN p_size > 10 THEN l_quantity ELSE 1 END)
FROM aj_line JOIN aj_part ON l_partkey = p_partkey$$);

-- the switches off: PostgreSQL's own plans
SET gpuhash.gpu_aggregate_join = off;
SELECT aj_plan($$SELECT d_year, sum(l_extendedprice), count(*)
FROM aj_line JOIN aj_date ON l_shipdate = d_datekey
GROUP BY d_year ORDER BY d_year$$);
SET gpuhash.gpu_aggregate_join = on;
SET gpuhash.gpu_aggregate = off;
SELECT aj_plan($$SELECT d_year, sum(l_extendedprice), count(*)
FROM aj_line JOIN aj_date ON l_shipdate = d_datekey
GROUP BY d_year ORDER BY d_year$$);
RESET gpuhash.gpu_aggregate;
SET enable_gpuhashjoin = off;
SELECT aj_plan($$SELECT d_year, sum(l_extendedprice), count(*)
FROM aj_line JOIN aj_date ON l_shipdate = d_datekey
GROUP BY d_year ORDER BY d_year$$);
RESET enable_gpuhashjoin;

DROP FUNCTION aj_plan(text, boolean);
DROP TABLE aj_line, aj_part, aj_cust, aj_orders, aj_date;

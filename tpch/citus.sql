-- How tpch/main.sh --citus spreads the TPC-H tables over a Citus cluster
-- (load.sh -x runs this after schema.sql, before the load).
--
-- lineitem and orders are distributed by order key and co-located, so their
-- join, the largest of the benchmark, runs shard by shard on the workers.
-- partsupp is distributed by part key, on its own.
-- part, supplier, customer, nation and region are reference tables (a copy on
-- every node): then every join of lineitem or orders with them, customer's
-- on o_custkey included, pushes down to the shards. customer distributed by
-- c_custkey is not co-located with orders (distributed by o_orderkey): tried
-- with Citus 13.2, Q03, Q05, Q07, Q08 and Q10 then need re-partition joins
-- and Citus refuses Q13, Q18 and Q22.
SET client_min_messages = warning;
\o /dev/null
SELECT create_distributed_table('orders', 'o_orderkey');
SELECT create_distributed_table('lineitem', 'l_orderkey', colocate_with => 'orders');
SELECT create_distributed_table('partsupp', 'ps_partkey', colocate_with => 'none');
SELECT create_reference_table('part');
SELECT create_reference_table('supplier');
SELECT create_reference_table('customer');
SELECT create_reference_table('nation');
SELECT create_reference_table('region');

-- TPC-H Q17: small-quantity-order revenue. Validation parameters:
-- BRAND = Brand#23, CONTAINER = MED BOX.
-- The spec's correlated subquery
--     l_quantity < (select 0.2 * avg(l_quantity) from lineitem where l_partkey = p_partkey)
-- is written as a join with the per-part averages: the same result, but
-- PostgreSQL would otherwise rescan lineitem once per qualifying row.
select
	sum(l_extendedprice) / 7.0 as avg_yearly
from
	lineitem,
	part,
	(
		select
			l_partkey as agg_partkey,
			0.2 * avg(l_quantity) as avg_quantity
		from
			lineitem,
			part
		where
			l_partkey = p_partkey
			and p_brand = 'Brand#23'
			and p_container = 'MED BOX'
		group by
			l_partkey
	) as part_agg
where
	p_partkey = l_partkey
	and agg_partkey = l_partkey
	and p_brand = 'Brand#23'
	and p_container = 'MED BOX'
	and l_quantity < avg_quantity;

-- TPC-H Q20: potential part promotion. Validation parameters: COLOR = forest,
-- DATE = 1994-01-01, NATION = CANADA.
-- The spec's correlated subquery
--     ps_availqty > (select 0.5 * sum(l_quantity) from lineitem
--                    where l_partkey = ps_partkey and l_suppkey = ps_suppkey and l_shipdate in the year)
-- is written as a join with the per-(part, supplier) sums: the same result
-- (pairs without shipments fail the comparison either way), but PostgreSQL
-- would otherwise rescan lineitem once per partsupp row.
select
	s_name,
	s_address
from
	supplier,
	nation
where
	s_suppkey in (
		select
			ps_suppkey
		from
			partsupp,
			(
				select
					l_partkey as agg_partkey,
					l_suppkey as agg_suppkey,
					0.5 * sum(l_quantity) as agg_quantity
				from
					lineitem
				where
					l_shipdate >= date '1994-01-01'
					and l_shipdate < date '1994-01-01' + interval '1' year
				group by
					l_partkey,
					l_suppkey
			) as agg_lineitem
		where
			agg_partkey = ps_partkey
			and agg_suppkey = ps_suppkey
			and ps_partkey in (
				select
					p_partkey
				from
					part
				where
					p_name like 'forest%'
			)
			and ps_availqty > agg_quantity
	)
	and s_nationkey = n_nationkey
	and n_name = 'CANADA'
order by
	s_name;

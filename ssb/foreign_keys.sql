-- The star's foreign keys, added after the primary keys (one statement per line).
ALTER TABLE lineorder ADD FOREIGN KEY (lo_custkey) REFERENCES customer (c_custkey);
ALTER TABLE lineorder ADD FOREIGN KEY (lo_partkey) REFERENCES part (p_partkey);
ALTER TABLE lineorder ADD FOREIGN KEY (lo_suppkey) REFERENCES supplier (s_suppkey);
ALTER TABLE lineorder ADD FOREIGN KEY (lo_orderdate) REFERENCES date (d_datekey);
ALTER TABLE lineorder ADD FOREIGN KEY (lo_commitdate) REFERENCES date (d_datekey);

-- Primary keys, added after the load (one statement per line: load.sh runs them in parallel).
ALTER TABLE lineorder ADD PRIMARY KEY (lo_orderkey, lo_linenumber);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE date ADD PRIMARY KEY (d_datekey);

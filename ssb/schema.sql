-- The Star Schema Benchmark's tables (ssb/gen.py writes their rows).
DROP TABLE IF EXISTS lineorder, customer, supplier, part, date CASCADE;
CREATE TABLE customer (
    c_custkey integer NOT NULL,
    c_name varchar(25) NOT NULL,
    c_address varchar(25) NOT NULL,
    c_city char(10) NOT NULL,
    c_nation char(15) NOT NULL,
    c_region char(12) NOT NULL,
    c_phone char(15) NOT NULL,
    c_mktsegment char(10) NOT NULL
);
CREATE TABLE supplier (
    s_suppkey integer NOT NULL,
    s_name char(25) NOT NULL,
    s_address varchar(25) NOT NULL,
    s_city char(10) NOT NULL,
    s_nation char(15) NOT NULL,
    s_region char(12) NOT NULL,
    s_phone char(15) NOT NULL
);
CREATE TABLE part (
    p_partkey integer NOT NULL,
    p_name varchar(22) NOT NULL,
    p_mfgr char(6) NOT NULL,
    p_category char(7) NOT NULL,
    p_brand1 char(9) NOT NULL,
    p_color varchar(11) NOT NULL,
    p_type varchar(25) NOT NULL,
    p_size integer NOT NULL,
    p_container char(10) NOT NULL
);
CREATE TABLE date (
    d_datekey integer NOT NULL,
    d_date char(18) NOT NULL,
    d_dayofweek char(9) NOT NULL,
    d_month char(9) NOT NULL,
    d_year integer NOT NULL,
    d_yearmonthnum integer NOT NULL,
    d_yearmonth char(7) NOT NULL,
    d_daynuminweek integer NOT NULL,
    d_daynuminmonth integer NOT NULL,
    d_daynuminyear integer NOT NULL,
    d_monthnuminyear integer NOT NULL,
    d_weeknuminyear integer NOT NULL,
    d_sellingseason varchar(12) NOT NULL,
    d_lastdayinweekfl integer NOT NULL,
    d_lastdayinmonthfl integer NOT NULL,
    d_holidayfl integer NOT NULL,
    d_weekdayfl integer NOT NULL
);
CREATE TABLE lineorder (
    lo_orderkey bigint NOT NULL,
    lo_linenumber integer NOT NULL,
    lo_custkey integer NOT NULL,
    lo_partkey integer NOT NULL,
    lo_suppkey integer NOT NULL,
    lo_orderdate integer NOT NULL,
    lo_orderpriority char(15) NOT NULL,
    lo_shippriority char(1) NOT NULL,
    lo_quantity integer NOT NULL,
    lo_extendedprice integer NOT NULL,
    lo_ordtotalprice integer NOT NULL,
    lo_discount integer NOT NULL,
    lo_revenue integer NOT NULL,
    lo_supplycost integer NOT NULL,
    lo_tax integer NOT NULL,
    lo_commitdate integer NOT NULL,
    lo_shipmode char(10) NOT NULL
);

-- The GPU aggregate's partial states (src/agg/agg_states.c), checked against
-- PostgreSQL's own aggregates: for each aggregate, type and set of values,
-- the states GpuPreAgg would hand (from GPU group states folded as the core
-- folds, in one and in three parts; and from single rows, as for a page the
-- CPU read) are deserialized, combined and finalized by the aggregate's own
-- functions; the result must equal the aggregate run by PostgreSQL.
SET client_min_messages = warning;
CREATE FUNCTION gpuhash_agg_selftest(agg regprocedure, vals text[], typmod int4,
                                     expr text, splits int4, path text)
RETURNS text AS '$libdir/gpuhash', 'gpuhash_agg_selftest' LANGUAGE C;

-- the same, an error as its message
CREATE FUNCTION st(agg regprocedure, vals text[], typmod int4, expr text, splits int4, path text)
RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    RETURN gpuhash_agg_selftest(agg, vals, typmod, CASE expr WHEN 'star' THEN 'col' ELSE expr END,
                                splits, path);
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR: ' || SQLERRM;
END $$;

-- PostgreSQL's own result: agg over vals cast to typ; for the products each
-- value is 'a,b[,c]'.
CREATE FUNCTION agg_ref(agg regprocedure, typ text, expr text, vals text[])
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    fname text := (SELECT proname FROM pg_proc WHERE oid = agg);
    a text := format('nullif(p[1], %L)::%s', 'null', typ);
    b text := format('nullif(p[2], %L)::%s', 'null', typ);
    c text := format('nullif(p[3], %L)::%s', 'null', typ);
    arg text;
    r text;
BEGIN
    arg := CASE expr WHEN 'col' THEN format('v::%s', typ)
                     WHEN 'star' THEN '*'
                     WHEN 'mul' THEN a || ' * ' || b
                     WHEN 'mul_one_minus' THEN a || ' * (1 - ' || b || ')'
                     ELSE a || ' * (1 - ' || b || ') * (1 + ' || c || ')' END;
    EXECUTE format('SELECT %s(%s)::text FROM (SELECT v, string_to_array(v, %L) AS p FROM unnest($1) v) s',
                   fname, arg, ',') INTO r USING vals;
    RETURN r;
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR: ' || SQLERRM;
END $$;

CREATE TABLE cases (id serial, agg regprocedure, typ text, typmod int, expr text, vals text[]);
INSERT INTO cases (agg, typ, typmod, expr, vals)
SELECT a::regprocedure, t,
       CASE WHEN t ~ '^numeric\(' THEN ((substring(t, '\((\d+),')::int << 16) |
                                        substring(t, ',(\d+)\)')::int) + 4
            ELSE m END, e, v FROM (VALUES
    -- integers: NULLs, sums past int4, int8 sums past int8 (numeric)
    ('sum(int2)', 'int2', -1, 'col', '{1,2,NULL,-5,32767,32767}'::text[]),
    ('sum(int4)', 'int4', -1, 'col', '{2147483647,2147483647,1,NULL}'),
    ('sum(int8)', 'int8', -1, 'col', '{9223372036854775807,9223372036854775807,3,NULL}'),
    ('sum(int8)', 'int8', -1, 'col', '{-9223372036854775808,-9223372036854775808,-1}'),
    ('avg(int2)', 'int2', -1, 'col', '{1,2,NULL,4}'),
    ('avg(int4)', 'int4', -1, 'col', '{1,2,2147483647,-7}'),
    ('avg(int8)', 'int8', -1, 'col', '{9223372036854775807,9223372036854775806,1}'),
    ('count()', '', -1, 'star', '{1,NULL,3}'),
    ('count("any")', 'text', -1, 'col', '{1,NULL,3}'),
    ('min(int2)', 'int2', -1, 'col', '{5,-32768,NULL,7}'),
    ('max(int4)', 'int4', -1, 'col', '{5,-3,NULL,2147483647}'),
    ('min(int8)', 'int8', -1, 'col', '{5,-9223372036854775808,NULL}'),
    ('max(int8)', 'int8', -1, 'col', '{5,9223372036854775807,NULL}'),
    -- numerics with a typmod, NaN, products as numeric_mul computes them
    ('sum(numeric)', 'numeric(15,2)', 1048582, 'col', '{1.10,2.25,NULL,-0.35,99999999999.99}'),
    ('avg(numeric)', 'numeric(15,2)', 1048582, 'col', '{1.10,2.25,NULL,-0.35}'),
    ('sum(numeric)', 'numeric(15,2)', 1048582, 'col', '{1.10,NaN,2}'),
    ('avg(numeric)', 'numeric(15,2)', 1048582, 'col', '{NaN,NULL}'),
    ('sum(numeric)', 'numeric(20,4)', 1310728, 'col', '{1.5,-1.5}'),
    ('sum(numeric)', 'numeric(38,0)', 2490372, 'col', '{99999999999999999999999999999999999999,99999999999999999999999999999999999999}'),
    ('sum(numeric)', 'numeric(15,2)', 1048582, 'mul_one_minus', '{"10.00,0.05","20.50,0.10","null,0.1","3.33,null","-7.77,0.99"}'),
    ('avg(numeric)', 'numeric(15,2)', 1048582, 'mul', '{"10.00,0.05","20.50,-0.10"}'),
    ('sum(numeric)', 'numeric(15,2)', 1048582, 'mul3', '{"10.00,0.05,0.08","20.50,0.10,0.00","null,0.1,0.1","1.01,0.02,null","99999.99,0.07,0.03"}'),
    ('avg(numeric)', 'numeric(15,2)', 1048582, 'mul3', '{"10.00,0.05,0.08","20.50,0.10,0.00","-1.01,0.02,0.5"}'),
    ('sum(numeric)', 'numeric(15,2)', 1048582, 'mul3', '{"NaN,0.05,0.08","1.00,0.10,0.00"}'),
    -- floats: NaN, infinities, float4 arithmetic for sum(float4)
    ('sum(float4)', 'float4', -1, 'col', '{1.5,0.1,0.2,NULL}'),
    ('sum(float4)', 'float4', -1, 'col', '{1.5,Infinity,NULL}'),
    ('sum(float8)', 'float8', -1, 'col', '{1.5,0.25,NULL,-3}'),
    ('sum(float8)', 'float8', -1, 'col', '{1.5,Infinity,-Infinity}'),
    ('sum(float8)', 'float8', -1, 'col', '{NaN,1}'),
    ('avg(float4)', 'float4', -1, 'col', '{1.5,2.5,NULL,3}'),
    ('avg(float4)', 'float4', -1, 'col', '{1.5,Infinity}'),
    ('avg(float4)', 'float4', -1, 'col', '{NaN,1}'),
    ('avg(float4)', 'float4', -1, 'col', '{3e38,3e38,3e38}'),
    ('min(float4)', 'float4', -1, 'col', '{1.5,-Infinity,NaN,NULL}'),
    ('max(float4)', 'float4', -1, 'col', '{1.5,Infinity,NaN,NULL}'),
    ('max(float8)', 'float8', -1, 'col', '{1.5,Infinity,NULL}'),
    ('min(float8)', 'float8', -1, 'col', '{NaN,NaN}'),
    -- dates and timestamps, their infinities
    ('min(date)', 'date', -1, 'col', '{2020-01-05,1999-12-31,NULL,infinity}'),
    ('max(date)', 'date', -1, 'col', '{2020-01-05,1999-12-31,NULL}'),
    ('max(date)', 'date', -1, 'col', '{2020-01-05,infinity}'),
    ('min(timestamp)', 'timestamp', -1, 'col', '{2020-01-05 10:00:01,-infinity,NULL}'),
    ('max(timestamptz)', 'timestamptz', -1, 'col', '{2020-01-05 10:00:01+02,2020-01-05 09:00:01+00}'),
    ('max(time)', 'time', -1, 'col', '{10:00:01,23:59:59.999999,NULL}')
) AS c(a, t, m, e, v);
-- every aggregate over no rows and over NULLs only
INSERT INTO cases (agg, typ, typmod, expr, vals)
SELECT DISTINCT agg, typ, typmod, expr, v
FROM cases, (VALUES ('{}'::text[]), ('{NULL,NULL}')) AS e(v)
ORDER BY agg, typ, typmod, expr, v;

SELECT c.id, c.agg, c.typ, c.expr, c.vals, r.ref,
       s1 IS NOT DISTINCT FROM r.ref AS one_state,
       s3 IS NOT DISTINCT FROM r.ref AS three_states,
       rw IS NOT DISTINCT FROM r.ref AS rows
FROM cases c,
     LATERAL (SELECT agg_ref(c.agg, c.typ, c.expr, c.vals) AS ref) r,
     LATERAL (SELECT st(c.agg, c.vals, c.typmod, c.expr, 1, 'states') AS s1,
                     st(c.agg, c.vals, c.typmod, c.expr, 3, 'states') AS s3,
                     st(c.agg, c.vals, c.typmod, c.expr, 1, 'rows') AS rw) s
ORDER BY c.id;

-- the mismatches, in full: none, but a sum whose values reach 2^126 falls
-- back to the CPU (the GPU's state is flagged, never handed)
SELECT c.id, r.ref, s1, s3, rw
FROM cases c,
     LATERAL (SELECT agg_ref(c.agg, c.typ, c.expr, c.vals) AS ref) r,
     LATERAL (SELECT st(c.agg, c.vals, c.typmod, c.expr, 1, 'states') AS s1,
                     st(c.agg, c.vals, c.typmod, c.expr, 3, 'states') AS s3,
                     st(c.agg, c.vals, c.typmod, c.expr, 1, 'rows') AS rw) s
WHERE s1 IS DISTINCT FROM r.ref OR s3 IS DISTINCT FROM r.ref OR rw IS DISTINCT FROM r.ref
ORDER BY c.id;

-- where PostgreSQL raises an overflow, so do the states
SELECT sum(v::float8) FROM unnest('{1e308,1e308}'::text[]) v;
SELECT gpuhash_agg_selftest('sum(float8)', '{1e308,1e308}', -1, 'col', 1, 'states');
SELECT sum(v::float4) FROM unnest('{3e38,3e38}'::text[]) v;
SELECT gpuhash_agg_selftest('sum(float4)', '{3e38,3e38}', -1, 'col', 1, 'states');

-- what stays on the CPU, and why
SELECT a, gpuhash_agg_selftest(a::regprocedure, '{1}', m, e, 1, 'states')
FROM (VALUES ('avg(float8)', -1, 'col'), ('sum(numeric)', -1, 'col'),
             ('min(numeric)', (15 << 16 | 2) + 4, 'col'),
             ('sum(numeric)', (40 << 16 | 26) + 4, 'mul'),
             ('sum(interval)', -1, 'col'), ('max(text)', -1, 'col')) AS d(a, m, e);

-- Group keys: each value packed as the core packs it (above a neighbour key),
-- then back through gpuhash_agg_key_datum: the value as the column holds it
-- (char(n) padded to n), 'refused' where it is longer than the key (the
-- page goes to the CPU), or why the type is declined.
CREATE FUNCTION gpuhash_agg_key_selftest(typ regtype, typmod int4, vals text[])
RETURNS text[] AS '$libdir/gpuhash', 'gpuhash_agg_key_selftest' LANGUAGE C STRICT;
-- (the values as an array of the type, output: char(n) keeps its padding)
CREATE FUNCTION key_ref(typ text, vals text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  r text;
BEGIN
  EXECUTE format('SELECT array_agg(v::%s ORDER BY o)::text FROM unnest($1) WITH ORDINALITY u(v, o)', typ)
    INTO r USING vals;
  RETURN r;
END $$;
SELECT typ, k.keys, k.keys::text = key_ref(typ, vals) AS same
FROM (VALUES
  ('int2', -1, '{-32768,-1,0,32767}'::text[]),
  ('int4', -1, '{-2147483648,-1,0,2147483647}'),
  ('int8', -1, '{-9223372036854775808,-1,0,9223372036854775807}'),
  ('oid', -1, '{0,4294967295,12345}'),
  ('bool', -1, '{t,f}'),
  ('date', -1, '{2020-01-05,1900-01-01,infinity,-infinity}'),
  ('timestamp', -1, '{"2020-01-05 10:00:00.123456",infinity,-infinity}'),
  ('timestamptz', -1, '{"2020-01-05 10:00:00.123456+00"}'),
  ('time', -1, '{00:00:00,23:59:59.999999}'),
  ('char(1)', 5, '{A," ",""}'),
  ('char(3)', 7, '{ab,"ab ",a,"",abc}'),
  ('char(10)', 14, '{short,"a b",AUTOMOB}'),
  ('text', -1, '{a,"a ","","  ",abcdefg," a"}'),
  ('varchar(5)', 9, '{x,"x ",zzzzz,""}'),
  ('varchar(2)', 6, '{"",x,xy,"x "}')
) AS c(typ, typmod, vals),
LATERAL (SELECT gpuhash_agg_key_selftest(typ::regtype, typmod, vals) AS keys) k;
-- a slot holds the declared length in the encoding's longest characters
-- (multibyte characters fit), a text without one a wide key's 48 bytes:
-- one byte more is refused
SELECT typ, gpuhash_agg_key_selftest(typ::regtype, typmod, vals)
FROM (VALUES ('char(1)', 5, '{é,A}'::text[]), ('char(10)', 14, '{BUILDING,AUTOMOBILE}'),
             ('text', -1, ARRAY['abcdefgh', repeat('x', 48), repeat('y', 49)]),
             ('varchar(2)', 6, '{éé}')) AS c(typ, typmod, vals);
-- declined
SELECT typ, gpuhash_agg_key_selftest(typ::regtype, -1, '{1}')
FROM (VALUES ('bpchar'), ('float8'), ('numeric'), ('interval')) AS c(typ);
DROP FUNCTION key_ref(text, text[]);
DROP FUNCTION gpuhash_agg_key_selftest(regtype, int4, text[]);

DROP TABLE cases;
DROP FUNCTION agg_ref(regprocedure, text, text, text[]);
DROP FUNCTION st(regprocedure, text[], int4, text, int4, text);
DROP FUNCTION gpuhash_agg_selftest(regprocedure, text[], int4, text, int4, text);

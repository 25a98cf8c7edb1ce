--
-- Fingerprint keys: any hashable type (text, varchar, char(n), numeric,
-- float, uuid) and keys wider than 64 bits, hashed with PostgreSQL's
-- extended hash functions and rechecked on the CPU with the real equality.
-- Cross-type keys (varchar = text, numeric = int4, float8 = float4), NULLs,
-- outer and anti joins on text keys, fingerprints cut to 3 bits so that
-- different values collide, and a non-deterministic collation.
--
SET client_min_messages = warning;

-- text and varchar: k0..k299 against k50..k449, duplicated, NULLs, and
-- values that differ only in a trailing blank, case, or Unicode normal form
-- (U+00E9 against e + U+0301, written as UTF-8 bytes)
CREATE TABLE kt_ta (id int4, t text, v varchar(120));
INSERT INTO kt_ta SELECT g, 'k' || g % 300, 'k' || g % 300 FROM generate_series(1, 1500) g;
INSERT INTO kt_ta (id, t) VALUES (1501, ''), (1502, ' '), (1503, 'a'), (1504, 'a '), (1505, 'A'),
  (1506, repeat('x', 100) || '1'), (1507, repeat('x', 100) || '2'), (1508, 'ключ'),
  (1509, 'é'), (1510, 'é'), (1511, 'k1'), (1512, NULL), (1513, NULL);
UPDATE kt_ta SET v = t WHERE id > 1500;
CREATE TABLE kt_tb (id int4, t text, v varchar(200));
INSERT INTO kt_tb SELECT g, 'k' || 50 + (g * 7) % 400, 'k' || 50 + (g * 7) % 400 FROM generate_series(1, 800) g;
INSERT INTO kt_tb (id, t) VALUES (801, ''), (802, ''), (803, 'a'), (804, 'A '), (805, repeat('x', 100) || '1'),
  (806, repeat('x', 100) || '3'), (807, 'ключ'), (808, 'é'), (809, 'k1 '), (810, NULL);
UPDATE kt_tb SET v = t WHERE id > 800;
-- keys disjoint from kt_ta's
CREATE TABLE kt_tfar (id int4, t text);
INSERT INTO kt_tfar SELECT g, 'far' || g FROM generate_series(1, 200) g;
CREATE TABLE kt_tempty (id int4, t text);
ANALYZE kt_ta;
ANALYZE kt_tb;
ANALYZE kt_tfar;
ANALYZE kt_tempty;

SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_tb b JOIN kt_ta a ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.v = b.v');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.v = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.v');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.t AND a.id > b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.t AND (a.id + b.id) % 3 <> 0');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON lower(a.t) = lower(b.t)');
SELECT * FROM gh_check('SELECT a.id, f.id FROM kt_ta a JOIN kt_tfar f ON a.t = f.t');
SELECT * FROM gh_check('SELECT a.id, e.id FROM kt_ta a JOIN kt_tempty e ON a.t = e.t');
-- text and int4 together: a key that is not one 64-bit word
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.t AND a.id % 5 = b.id % 5');
BEGIN;
SELECT gh_force_on();
-- (octet_length, not the text: the output then reads the same in any database encoding)
SELECT a.id, b.id, octet_length(a.t) FROM kt_ta a JOIN kt_tb b ON a.t = b.t WHERE a.id > 1500 ORDER BY 1, 2;
COMMIT;

-- LEFT, RIGHT, FULL, SEMI and ANTI joins on text keys
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a LEFT JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_tb b LEFT JOIN kt_ta a ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a LEFT JOIN kt_tb b ON a.t = b.t AND a.id < b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a LEFT JOIN kt_tb b ON a.v = b.t WHERE b.id IS NULL OR b.id > 700');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a RIGHT JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a FULL JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, e.id FROM kt_ta a FULL JOIN kt_tempty e ON a.t = e.t');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE EXISTS (SELECT 1 FROM kt_tb b WHERE b.t = a.t)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE a.t IN (SELECT b.v FROM kt_tb b)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE a.t IN (SELECT b.t FROM kt_tb b WHERE b.id % 10 = 3)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE NOT EXISTS (SELECT 1 FROM kt_tb b WHERE b.t = a.t)');
SELECT * FROM gh_check('SELECT b.id FROM kt_tb b WHERE NOT EXISTS (SELECT 1 FROM kt_ta a WHERE b.t = a.t)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE NOT EXISTS (SELECT 1 FROM kt_tb b WHERE b.t = a.t AND b.id < a.id)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE NOT EXISTS (SELECT 1 FROM kt_tfar f WHERE f.t = a.t)');
-- an empty inner side costs a nested loop the same: take it out of the race
SET enable_nestloop = off;
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE NOT EXISTS (SELECT 1 FROM kt_tempty e WHERE e.t = a.t)');
RESET enable_nestloop;

-- char(n): trailing blanks do not count ('ab'::char(4) = 'ab  '::char(4))
SELECT 'ab'::char(4) = 'ab  '::char(4) AS c4_eq, 'ab'::char(4) = 'ab'::char(8) AS c4_c8_eq,
       'ab '::bpchar = 'ab'::bpchar AS bp_eq, 'ab'::text = 'ab '::text AS text_eq;
CREATE TABLE kt_ca (id int4, c4 char(4), bp bpchar);
INSERT INTO kt_ca VALUES (1, 'ab', 'ab'), (2, 'ab ', 'ab '), (3, 'ab  ', 'ab   '), (4, 'a', 'a'), (5, '', ''),
  (6, ' ', '   '), (7, 'abcd', 'abcd'), (8, 'AB', 'AB'), (9, ' ab', ' ab'), (10, NULL, NULL);
INSERT INTO kt_ca SELECT 10 + g, 'k' || g % 90, 'k' || g % 90 || repeat(' ', g % 3) FROM generate_series(1, 300) g;
CREATE TABLE kt_cb (id int4, c4 char(4), c8 char(8), bp bpchar);
INSERT INTO kt_cb VALUES (1, 'ab', 'ab', 'ab      '), (2, 'a  ', 'a      ', 'a'), (3, '', '', ' '),
  (4, 'abcd', 'abcd    ', 'abcd '), (5, 'ab', 'ab      ', 'ab'), (6, ' ab', ' ab', ' ab '), (7, NULL, NULL, NULL);
INSERT INTO kt_cb SELECT 7 + g, 'k' || g % 70, 'k' || g % 70, 'k' || g % 70 || repeat(' ', g % 4) FROM generate_series(1, 140) g;
ANALYZE kt_ca;
ANALYZE kt_cb;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a JOIN kt_cb b ON a.c4 = b.c4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a JOIN kt_cb b ON a.c4 = b.c8');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a JOIN kt_cb b ON a.bp = b.bp');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a JOIN kt_cb b ON a.bp = b.c8');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a LEFT JOIN kt_cb b ON a.c4 = b.c8');
SELECT * FROM gh_check('SELECT a.id FROM kt_ca a WHERE NOT EXISTS (SELECT 1 FROM kt_cb b WHERE b.bp = a.bp)');
-- char(n) = text compares the text forms: the char(n)'s trailing blanks are
-- stripped, the text's count ('k1'::char(4) <> 'k1 '::text)
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a JOIN kt_tb b ON a.c4 = b.t');
BEGIN;
SELECT gh_force_on();
SELECT a.id, b.id, a.c4, b.c8 FROM kt_ca a JOIN kt_cb b ON a.c4 = b.c8 WHERE a.id <= 10 ORDER BY 1, 2;
SELECT a.id, b.id FROM kt_ca a JOIN kt_cb b ON a.bp = b.bp WHERE a.id <= 10 ORDER BY 1, 2;
COMMIT;

-- numeric: equal values with different scales (1.0 = 1.00, 2.50 = 2.5), NaN = NaN
CREATE TABLE kt_na (id int4, n numeric, i4 int4);
INSERT INTO kt_na VALUES (1, 1.0, 1), (2, 1.00, 1), (3, 1, 1), (4, 2.50, 2), (5, 2.5, 2), (6, 0, 0),
  (7, 0.000, 0), (8, -0.0, 0), (9, 'NaN', NULL), (10, 1e30, NULL), (11, 1.000000000000000000001, 1),
  (12, 123456789012345678901234567890.5, NULL), (13, -7.10, -7), (14, NULL, NULL), (15, 'NaN', 5);
INSERT INTO kt_na SELECT 15 + g, g / 4.0, g / 4 FROM generate_series(1, 1200) g;
CREATE TABLE kt_nb (id int4, n numeric, i4 int4);
INSERT INTO kt_nb VALUES (1, 1.00000, 1), (2, 2.5000, 2), (3, 0.0, 0), (4, 'NaN', 3), (5, 1000000000000000000000000000000, 4),
  (6, 1.000000000000000000001, 1), (7, 123456789012345678901234567890.50, 5), (8, -7.1, -7), (9, NULL, NULL),
  (10, 2.5, 2);
INSERT INTO kt_nb SELECT 10 + g, (g * 3) / 2.00, g * 3 FROM generate_series(1, 400) g;
ANALYZE kt_na;
ANALYZE kt_nb;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a JOIN kt_nb b ON a.n = b.n');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_nb b JOIN kt_na a ON a.n = b.n');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a JOIN kt_nb b ON a.n = b.n AND a.id < b.id * 4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a LEFT JOIN kt_nb b ON a.n = b.n');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a FULL JOIN kt_nb b ON a.n = b.n');
SELECT * FROM gh_check('SELECT a.id FROM kt_na a WHERE NOT EXISTS (SELECT 1 FROM kt_nb b WHERE b.n = a.n)');
SELECT * FROM gh_check('SELECT a.id FROM kt_na a WHERE a.n IN (SELECT b.n FROM kt_nb b)');
-- numeric = int4 through the implicit cast of the int4 side
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a JOIN kt_nb b ON a.n = b.i4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_nb b JOIN kt_na a ON b.n = a.i4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a LEFT JOIN kt_nb b ON a.n = b.i4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a JOIN kt_nb b ON a.n = b.n AND a.i4 = b.i4');
BEGIN;
SELECT gh_force_on();
SELECT a.id, b.id, a.n, b.n FROM kt_na a JOIN kt_nb b ON a.n = b.n WHERE a.id <= 15 ORDER BY 1, 2;
COMMIT;

-- float8 = float4: 0.1 differs, 0.5 and 1.25 are exact, -0 = 0, NaN = NaN
CREATE TABLE kt_fa (id int4, f8 float8);
INSERT INTO kt_fa VALUES (1, 0.5), (2, 1.25), (3, 0.1), (4, '-0'), (5, 0), (6, 'NaN'), (7, 'Infinity'),
  (8, '-Infinity'), (9, 1e30), (10, 3), (11, NULL), (12, 0.1::float4);
INSERT INTO kt_fa SELECT 12 + g, g / 8.0 FROM generate_series(1, 600) g;
CREATE TABLE kt_fb (id int4, f4 float4);
INSERT INTO kt_fb VALUES (1, 0.5), (2, 1.25), (3, 0.1), (4, 0), (5, '-0'), (6, 'NaN'), (7, 'Infinity'),
  (8, 1e30), (9, 3), (10, NULL);
INSERT INTO kt_fb SELECT 10 + g, g / 3.0 FROM generate_series(1, 300) g;
ANALYZE kt_fa;
ANALYZE kt_fb;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_fa a JOIN kt_fb b ON a.f8 = b.f4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_fb b JOIN kt_fa a ON b.f4 = a.f8');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_fa a LEFT JOIN kt_fb b ON a.f8 = b.f4');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_fa a JOIN kt_fa b ON a.f8 = b.f8');
BEGIN;
SELECT gh_force_on();
SELECT a.id, b.id, a.f8, b.f4 FROM kt_fa a JOIN kt_fb b ON a.f8 = b.f4 WHERE a.id <= 12 ORDER BY 1, 2;
COMMIT;

-- uuid
CREATE TABLE kt_ua (id int4, u uuid);
INSERT INTO kt_ua SELECT g, md5('u' || g % 500)::uuid FROM generate_series(1, 1500) g;
INSERT INTO kt_ua VALUES (1501, '00000000-0000-0000-0000-000000000000'), (1502, 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
  (1503, NULL);
CREATE TABLE kt_ub (id int4, u uuid);
INSERT INTO kt_ub SELECT g, md5('u' || 200 + (g * 3) % 700)::uuid FROM generate_series(1, 700) g;
INSERT INTO kt_ub VALUES (701, '00000000-0000-0000-0000-000000000000'), (702, 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'),
  (703, NULL), (704, '00000000-0000-0000-0000-000000000001');
ANALYZE kt_ua;
ANALYZE kt_ub;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ua a JOIN kt_ub b ON a.u = b.u');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ua a LEFT JOIN kt_ub b ON a.u = b.u');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ua a FULL JOIN kt_ub b ON a.u = b.u');
SELECT * FROM gh_check('SELECT a.id FROM kt_ua a WHERE NOT EXISTS (SELECT 1 FROM kt_ub b WHERE b.u = a.u)');
SELECT * FROM gh_check('SELECT b.id FROM kt_ub b WHERE EXISTS (SELECT 1 FROM kt_ua a WHERE b.u = a.u)');

-- three-column keys (text + int4 + date) and keys wider than 64 bits
-- (int8 + int8 + int4); NULL in any one column never matches
CREATE TABLE kt_ma (id int4, t text, i int4, d date);
INSERT INTO kt_ma SELECT g, 'm' || g % 20, g % 7, date '2024-01-01' + g % 11 FROM generate_series(1, 2000) g;
INSERT INTO kt_ma VALUES (2001, NULL, 1, '2024-01-02'), (2002, 'm1', NULL, '2024-01-02'), (2003, 'm1', 1, NULL),
  (2004, NULL, NULL, NULL);
CREATE TABLE kt_mb (id int4, t text, i int4, d date);
INSERT INTO kt_mb SELECT g, 'm' || (g * 3) % 25, (g * 3) % 9, date '2024-01-01' + (g * 3) % 13 FROM generate_series(1, 600) g;
INSERT INTO kt_mb VALUES (601, NULL, 1, '2024-01-02'), (602, 'm1', NULL, '2024-01-02'), (603, 'm1', 1, NULL);
CREATE TABLE kt_wa (id int4, x int8, y int8, z int4);
INSERT INTO kt_wa SELECT g, (g % 10) * 1000000000000000, -(g % 13) * 1000000000007, g % 4 FROM generate_series(1, 2000) g;
INSERT INTO kt_wa VALUES (2001, 9223372036854775807, -9223372036854775808, 2147483647),
  (2002, -9223372036854775808, 9223372036854775807, -2147483648), (2003, 0, 0, 0), (2004, 0, 0, NULL),
  (2005, NULL, 0, 0), (2006, 9223372036854775807, -9223372036854775808, 2147483647);
CREATE TABLE kt_wb (id int4, x int8, y int8, z int4);
INSERT INTO kt_wb SELECT g, (g % 12) * 1000000000000000, -(g % 7) * 1000000000007, g % 3 FROM generate_series(1, 700) g;
INSERT INTO kt_wb VALUES (701, 9223372036854775807, -9223372036854775808, 2147483647),
  (702, -9223372036854775808, 9223372036854775807, 2147483647), (703, 0, 0, 0), (704, NULL, NULL, NULL),
  (705, 0, 0, NULL);
ANALYZE kt_ma;
ANALYZE kt_mb;
ANALYZE kt_wa;
ANALYZE kt_wb;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ma a JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_mb b JOIN kt_ma a ON a.d = b.d AND a.t = b.t AND a.i = b.i');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ma a JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d AND a.id > b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ma a LEFT JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ma a FULL JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d');
SELECT * FROM gh_check('SELECT a.id FROM kt_ma a WHERE NOT EXISTS
                        (SELECT 1 FROM kt_mb b WHERE a.t = b.t AND a.i = b.i AND a.d = b.d)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ma a WHERE (a.t, a.i, a.d) IN (SELECT b.t, b.i, b.d FROM kt_mb b)');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z AND a.id < b.id * 3');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a LEFT JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a RIGHT JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z');
SELECT * FROM gh_check('SELECT a.id FROM kt_wa a WHERE EXISTS (SELECT 1 FROM kt_wb b WHERE a.x = b.x AND a.y = b.y AND a.z = b.z)');
SELECT * FROM gh_check('SELECT a.id FROM kt_wa a WHERE NOT EXISTS (SELECT 1 FROM kt_wb b WHERE a.x = b.x AND a.y = b.y AND a.z = b.z)');
-- int8 + int8 + int4 with the int4 compared to an int8 (cross width inside a wide key)
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.y / 1000000000007');
BEGIN;
SELECT gh_force_on();
SELECT a.id, b.id FROM kt_wa a JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z WHERE a.id > 2000 ORDER BY 1, 2;
SELECT a.id, b.id FROM kt_ma a LEFT JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d WHERE a.id > 2000 ORDER BY 1, 2;
COMMIT;

-- fingerprints cut to 3 bits: almost every pair of keys collides, and only
-- the CPU recheck of the real equality keeps the answers right
SET gpuhash.fingerprint_bits = 3;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.v = b.t AND a.id > b.id');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a LEFT JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ta a FULL JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE EXISTS (SELECT 1 FROM kt_tb b WHERE b.t = a.t)');
SELECT * FROM gh_check('SELECT a.id FROM kt_ta a WHERE NOT EXISTS (SELECT 1 FROM kt_tb b WHERE b.t = a.t)');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ca a JOIN kt_cb b ON a.c4 = b.c8');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a JOIN kt_nb b ON a.n = b.n');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_na a LEFT JOIN kt_nb b ON a.n = b.i4');
SELECT * FROM gh_check('SELECT a.id FROM kt_na a WHERE NOT EXISTS (SELECT 1 FROM kt_nb b WHERE b.n = a.n)');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ua a JOIN kt_ub b ON a.u = b.u');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ma a JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_ma a LEFT JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d');
SELECT * FROM gh_check('SELECT a.id FROM kt_ma a WHERE NOT EXISTS
                        (SELECT 1 FROM kt_mb b WHERE a.t = b.t AND a.i = b.i AND a.d = b.d)');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_wa a LEFT JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z');
SELECT * FROM gh_check('SELECT a.id FROM kt_wa a WHERE NOT EXISTS (SELECT 1 FROM kt_wb b WHERE a.x = b.x AND a.y = b.y AND a.z = b.z)');
RESET gpuhash.fingerprint_bits;

-- a non-deterministic collation: equality is not byte equality, so the
-- answers must match PostgreSQL's (the GPU join is not expected here)
CREATE COLLATION kt_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE kt_cia (id int4, t text COLLATE kt_ci);
INSERT INTO kt_cia VALUES (1, 'Hello'), (2, 'HELLO'), (3, 'hello'), (4, 'World'), (5, 'world '), (6, 'Straße'),
  (7, 'ÉCOLE'), (8, NULL);
INSERT INTO kt_cia SELECT 8 + g, CASE WHEN g % 2 = 0 THEN 'Key' || g % 40 ELSE 'KEY' || g % 40 END
FROM generate_series(1, 200) g;
CREATE TABLE kt_cib (id int4, t text COLLATE kt_ci);
INSERT INTO kt_cib VALUES (1, 'hello'), (2, 'WORLD'), (3, 'STRASSE'), (4, 'straße'), (5, 'école'), (6, NULL);
INSERT INTO kt_cib SELECT 6 + g, 'key' || g % 60 FROM generate_series(1, 120) g;
ANALYZE kt_cia;
ANALYZE kt_cib;
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_cia a JOIN kt_cib b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id, b.id FROM kt_cia a LEFT JOIN kt_cib b ON a.t = b.t');
SELECT * FROM gh_check('SELECT a.id FROM kt_cia a WHERE NOT EXISTS (SELECT 1 FROM kt_cib b WHERE b.t = a.t)');
BEGIN;
SELECT gh_force_on();
SELECT a.id, b.id, a.t, b.t FROM kt_cia a JOIN kt_cib b ON a.t = b.t WHERE a.id <= 8 ORDER BY 1, 2;
COMMIT;

-- plans
SELECT * FROM gh_explain('SELECT a.id, b.id FROM kt_ta a JOIN kt_tb b ON a.t = b.t');
SELECT * FROM gh_explain('SELECT a.id, b.id FROM kt_ta a LEFT JOIN kt_tb b ON a.t = b.t AND a.id < b.id');
SELECT * FROM gh_explain('SELECT a.id, b.id FROM kt_ma a JOIN kt_mb b ON a.t = b.t AND a.i = b.i AND a.d = b.d');
SELECT * FROM gh_explain('SELECT a.id, b.id FROM kt_wa a JOIN kt_wb b ON a.x = b.x AND a.y = b.y AND a.z = b.z');

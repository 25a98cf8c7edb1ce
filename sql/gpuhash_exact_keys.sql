--
-- Key types: exact 64-bit encodings, cross-width integers, the corners of
-- the int8 domain, NULL keys.
--
SET client_min_messages = warning;

SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k8');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k2 = s.k2');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.d = s.d');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.ts = s.ts');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.o = s.o');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.b = s.b WHERE s.id < 10');

-- cross-width integer keys, both orders of the operator
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k2 = s.k4');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k2');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k2 = s.k8');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k8 = s.k4');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k8 / 1000000007');

-- the corners of the 64-bit domain, duplicated, and values outside int4
CREATE TABLE corners (c int8, tag text);
INSERT INTO corners VALUES
  (0, 'zero'), (0, 'zero2'), (-1, 'minus one'), (1, 'one'),
  (9223372036854775807, 'max'), (-9223372036854775808, 'min'), (-9223372036854775808, 'min2'),
  (4294967295, '2^32-1'), (4294967296, '2^32'), (-4294967296, '-2^32'),
  (2147483647, 'int4 max'), (-2147483648, 'int4 min'), (32767, 'int2 max'), (-32768, 'int2 min'),
  (NULL, 'null');
CREATE TABLE corners4 (c int4, tag text);
INSERT INTO corners4 VALUES (0, 'z'), (-1, 'm1'), (2147483647, 'max4'), (-2147483648, 'min4'),
  (32767, 'max2'), (NULL, 'n');
CREATE TABLE corners2 (c int2, tag text);
INSERT INTO corners2 VALUES (0, 'z'), (-1, 'm1'), (32767, 'max2'), (-32768, 'min2'), (NULL, 'n');
ANALYZE corners;
ANALYZE corners4;
ANALYZE corners2;

SELECT * FROM gh_check('SELECT a.tag, b.tag FROM corners a JOIN corners b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM corners a JOIN corners4 b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM corners2 a JOIN corners b ON a.c = b.c');
SELECT * FROM gh_check('SELECT a.tag, b.tag FROM corners2 a JOIN corners4 b ON a.c = b.c');

-- the rows themselves, with the GPU join in the plan
BEGIN;
SELECT gh_force_on();
SELECT a.tag, b.tag, a.c FROM corners a JOIN corners b ON a.c = b.c ORDER BY a.c, 1, 2;
SELECT a.tag, b.tag FROM corners a JOIN corners2 b ON a.c = b.c ORDER BY 1, 2;
COMMIT;

-- NULL keys never match: no NULL-tagged row may appear
SELECT count(*) FROM r JOIN s ON r.k4 = s.k4 WHERE r.v LIKE 'rnull%' OR s.w LIKE 'snull%';
SELECT * FROM gh_check('SELECT r.v, s.w FROM r JOIN s ON r.k4 = s.k4 WHERE r.k4 IS NULL');

-- types without an exact 64-bit encoding join on fingerprints (gpuhash_fingerprint_keys)
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.v = s.w');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4::numeric = s.k4::numeric');
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.d = s.ts');

--
-- What an ordinary user may set, and what gpuhash_info() shows them.
-- Settings that take memory or a CUDA context from other sessions, or that
-- only serve testing, are superuser only; gpuhash.batch_rows is bounded.
-- The GPU service's cluster-wide columns are NULL for a role without
-- pg_monitor's privileges.  Only booleans are printed: the same output on
-- the GPU and on the host twin.
--
CREATE ROLE regress_gh_user;
CREATE ROLE regress_gh_monitor IN ROLE pg_monitor;
GRANT SELECT ON r, s TO regress_gh_user;

SET ROLE regress_gh_user;
-- refused
SET gpuhash.max_inner_memory = '1TB';
SET gpuhash.use_service = off;
SET gpuhash.fingerprint_bits = 3;
SET gpuhash.load_factor = 0.05;
SELECT set_config('gpuhash.use_service', 'off', false);
ALTER ROLE regress_gh_user SET gpuhash.max_inner_memory = '1TB';
SET gpuhash.batch_rows = 1048577;
-- left as they were
SHOW gpuhash.max_inner_memory;
SHOW gpuhash.use_service;
SHOW gpuhash.fingerprint_bits;
SHOW gpuhash.load_factor;
-- allowed, hidden settings too
SET gpuhash.batch_rows = 1048576;
SHOW gpuhash.batch_rows;
SET gpuhash.scheme = fks;
SET gpuhash.outer_filter = off;
SET gpuhash.match_row_cost = 0.02;
SET gpuhash.chain = off;
SET enable_gpuhashjoin = off;
RESET enable_gpuhashjoin;
SET gpuhash.device = host;
SHOW gpuhash.device;
RESET gpuhash.device;
-- and a join runs with them
SELECT * FROM gh_check('SELECT r.id, s.id FROM r JOIN s ON r.k4 = s.k4 AND r.id > s.id');
RESET gpuhash.batch_rows;
RESET gpuhash.scheme;
RESET gpuhash.outer_filter;
RESET gpuhash.match_row_cost;
RESET gpuhash.chain;
-- the GPUs and this session's device are shown; the service's state is not
SELECT count(*) > 0 AS has_rows,
       bool_and(name IS NOT NULL AND in_use IS NOT NULL
                AND session_device IS NOT NULL) AS own_columns_shown,
       bool_and(service IS NULL AND staging_mb IS NULL AND staging_in_use_mb IS NULL
                AND tables_alive IS NULL AND gpu_memory_in_use_mb IS NULL) AS service_hidden
FROM gpuhash_info();
RESET ROLE;

-- a member of pg_monitor sees the service's state, but sets no more than users
SET ROLE regress_gh_monitor;
SET gpuhash.fingerprint_bits = 3;
SELECT bool_and(service LIKE 'running (pid %' AND staging_mb IS NOT NULL
                AND staging_in_use_mb IS NOT NULL AND tables_alive IS NOT NULL
                AND gpu_memory_in_use_mb IS NOT NULL) AS service_shown
FROM gpuhash_info();
RESET ROLE;

-- so does the superuser, who may still set the restricted settings
SELECT bool_and(service LIKE 'running (pid %' AND staging_mb IS NOT NULL
                AND staging_in_use_mb IS NOT NULL AND tables_alive IS NOT NULL
                AND gpu_memory_in_use_mb IS NOT NULL) AS service_shown
FROM gpuhash_info();
SET gpuhash.fingerprint_bits = 3;
SET gpuhash.max_inner_memory = '1TB';
SET gpuhash.use_service = off;
SHOW gpuhash.fingerprint_bits;
SHOW gpuhash.max_inner_memory;
SHOW gpuhash.use_service;
RESET gpuhash.fingerprint_bits;
RESET gpuhash.max_inner_memory;
RESET gpuhash.use_service;

-- a superuser's value is not the user's to change back
SET gpuhash.fingerprint_bits = 3;
SET ROLE regress_gh_user;
RESET gpuhash.fingerprint_bits;
SHOW gpuhash.fingerprint_bits;
RESET ROLE;
RESET gpuhash.fingerprint_bits;

-- the DBA may hand a setting to a role: GRANT SET ON PARAMETER
GRANT SET ON PARAMETER gpuhash.fingerprint_bits TO regress_gh_user;
SET ROLE regress_gh_user;
SET gpuhash.fingerprint_bits = 3;
SHOW gpuhash.fingerprint_bits;
RESET gpuhash.fingerprint_bits;
RESET ROLE;
REVOKE SET ON PARAMETER gpuhash.fingerprint_bits FROM regress_gh_user;

REVOKE SELECT ON r, s FROM regress_gh_user;
DROP ROLE regress_gh_user;
DROP ROLE regress_gh_monitor;

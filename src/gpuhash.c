/*-------------------------------------------------------------------------
 *
 * gpuhash.c
 *	  Module load: settings, the planner hook and the custom scan methods.
 *
 * Works from shared_preload_libraries (the normal way: it also starts the
 * GPU service, service_*.c) and from LOAD (join tables then live in the
 * backend).  Nothing here touches CUDA: the postmaster must never create a
 * CUDA context; the service or a backend creates one when it needs the GPU.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "service.h"
#include "scan/buffer_hint.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

/* gpuhash.batch_rows' limit: a 1M-key probe fills a GPU several times over */
#define GPUHASH_MAX_BATCH_ROWS (1024 * 1024)

void		_PG_init(void);

bool		enable_gpuhashjoin = true;
int			gpuhash_device_mode = GPUHASH_DEVICE_AUTO;
int			gpuhash_scheme = GPUHASH_SCHEME_AUTO;
int			gpuhash_batch_rows = 65536;
int			gpuhash_max_gpu_memory_mb = 0;
int			gpuhash_page_cache_mb = 0;
char	   *gpuhash_gpus = "all";
int			gpuhash_gpu_list[GPUHASH_MAX_GPUS];
int			gpuhash_gpu_list_n = -1;
int			gpuhash_host_partitions = 1;
int			gpuhash_debug_fail_gpu = -1;
bool		gpuhash_debug_lose_gpu = false;
double		gpuhash_load_factor = 0.5;
double		gpuhash_setup_cost = 26.6;
double		gpuhash_min_gain = 0.1;
double		gpuhash_serial_inner_penalty = 1.0;
double		gpuhash_absorbed_page_cost = -1.0;
double		gpuhash_build_row_cost = 0.0;
double		gpuhash_match_row_cost = 0.00072;
double		gpuhash_page_cpu_cost = 0.02251;
double		gpuhash_page_row_cost = 0.000052;
double		gpuhash_page_match_cost = 0.00094;
double		gpuhash_kept_row_cost = 0.00527;
double		gpuhash_kept_join_row_cost = 0.00196;
int			gpuhash_max_inner_memory_kb = 8 * 1024 * 1024;
int			gpuhash_fingerprint_bits = 64;
bool		gpuhash_outer_filter = true;
bool		gpuhash_test_bypass_join_hook = false;
bool		gpuhash_absorb_outer_scan = true;
bool		gpuhash_absorb_inner_scan = true;
bool		gpuhash_shared_inner_pages = true;
bool		gpuhash_scan_filter_in_place = true;
bool		gpuhash_chain_joins = true;
int			gpuhash_right_semi_anti = GPUHASH_RIGHT_ON;
bool		gpuhash_gpu_aggregate = true;
bool		gpuhash_gpu_aggregate_join = true;
bool		gpuhash_dimension_pages = true;
bool		gpuhash_preagg_shared_dim = true;
int			gpuhash_staging_memory_mb = 256;
int			gpuhash_service_threads = 4;
bool		gpuhash_use_service = true;

static const struct config_enum_entry right_options[] = {
	{"off", GPUHASH_RIGHT_OFF, false},
	{"on", GPUHASH_RIGHT_ON, false},
	{"only", GPUHASH_RIGHT_ONLY, false},
	{"true", GPUHASH_RIGHT_ON, true},
	{"false", GPUHASH_RIGHT_OFF, true},
	{NULL, 0, false}
};

static const struct config_enum_entry device_options[] = {
	{"auto", GPUHASH_DEVICE_AUTO, false},
	{"gpu", GPUHASH_DEVICE_GPU, false},
	{"host", GPUHASH_DEVICE_HOST, false},
	{NULL, 0, false}
};

static const struct config_enum_entry page_inner_options[] = {
	{"off", GPUHASH_PAGE_INNER_OFF, false},
	{"gpu", GPUHASH_PAGE_INNER_GPU, false},
	{"always", GPUHASH_PAGE_INNER_ALWAYS, false},
	{NULL, 0, false}
};

static const struct config_enum_entry scheme_options[] = {
	{"auto", GPUHASH_SCHEME_AUTO, false},
	{"gph", GH_SCHEME_GPH, false},
	{"fks", GH_SCHEME_FKS, false},
	{"linear", GH_SCHEME_LINEAR, false},
	{"cuckoo", GH_SCHEME_CUCKOO, false},
	{"hashgraph", GH_SCHEME_HASHGRAPH, false},
	{"dycuckoo", GH_SCHEME_DYCUCKOO, false},
	{NULL, 0, false}
};

/*
 * gpuhash.gpus: "all" (or empty), or distinct CUDA device numbers separated
 * by commas.  The parsed list goes to gpuhash_gpu_list (n -1: all).
 */
static bool
parse_gpus(const char *v, int *list, int *n)
{
	const char *p = v;

	*n = -1;
	while (*p == ' ')
		p++;
	if (*p == '\0' || pg_strcasecmp(p, "all") == 0)
		return true;
	*n = 0;
	while (*p)
	{
		char	   *end;
		long		d = strtol(p, &end, 10);

		if (end == p || d < 0 || d > 63 || *n == GPUHASH_MAX_GPUS)
			return false;
		for (int i = 0; i < *n; i++)
			if (list[i] == d)
				return false;
		list[(*n)++] = (int) d;
		p = end;
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return false;
		while (*p == ' ')
			p++;
	}
	return *n > 0;
}

static bool
check_gpus(char **newval, void **extra, GucSource source)
{
	int			list[GPUHASH_MAX_GPUS];
	int			n;

	if (!parse_gpus(*newval, list, &n))
	{
		GUC_check_errdetail("gpuhash.gpus is \"all\" or up to %d distinct GPU numbers (0 to 63) separated by commas.",
							GPUHASH_MAX_GPUS);
		return false;
	}
	return true;
}

static void
assign_gpus(const char *newval, void *extra)
{
	if (!parse_gpus(newval, gpuhash_gpu_list, &gpuhash_gpu_list_n))
		gpuhash_gpu_list_n = -1;
}

void
_PG_init(void)
{
	DefineCustomBoolVariable("enable_gpuhashjoin",
							 "Enables the planner's use of GPU hash join plans.",
							 NULL,
							 &enable_gpuhashjoin,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuhash.device",
							 "Where GPU hash joins run: auto, gpu or host.",
							 "auto uses the GPU when one is usable and otherwise leaves "
							 "joins to PostgreSQL; gpu makes an unusable GPU an error; "
							 "host runs the same algorithms on the CPU.",
							 &gpuhash_device_mode,
							 GPUHASH_DEVICE_AUTO, device_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuhash.scheme",
							 "Hash scheme of the join table: auto, gph, fks, linear, cuckoo, hashgraph or dycuckoo.",
							 "auto chooses per join the scheme with the least estimated "
							 "build and probe time, from the planner's estimates of inner "
							 "rows, distinct keys and outer rows and the schemes' costs "
							 "measured on the H100 (EXPLAIN VERBOSE shows them).",
							 &gpuhash_scheme,
							 GPUHASH_SCHEME_AUTO, scheme_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	/* bounded: any user may set it, and the node sizes its batch arrays by it */
	DefineCustomIntVariable("gpuhash.batch_rows",
							"Outer rows probed per batch.",
							"Through the GPU service, a batch larger than a staging chunk "
							"(gpuhash.staging_memory / 64, 8 bytes a row) goes in several "
							"requests; EXPLAIN ANALYZE then shows Probe Requests.",
							&gpuhash_batch_rows,
							65536, 1, GPUHASH_MAX_BATCH_ROWS,
							PGC_USERSET, 0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuhash.max_gpu_memory",
							"GPU memory one join table may use (0: no limit).",
							NULL,
							&gpuhash_max_gpu_memory_mb,
							0, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_MB,
							NULL, NULL, NULL);

	/* hidden, superuser only: for tests, as debug_fail_gpu, fingerprint_bits and test_bypass_join_hook */
	DefineCustomIntVariable("gpuhash.host_partitions",
							"For tests: the host twin builds each join table partitioned over this many parts, as the GPU service does over several GPUs.",
							NULL,
							&gpuhash_host_partitions,
							1, 1, GPUHASH_MAX_GPUS,
							PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomIntVariable("gpuhash.debug_fail_gpu",
							"For tests: the GPU service treats this GPU's next build or probe as a CUDA failure (-1: none).",
							NULL,
							&gpuhash_debug_fail_gpu,
							-1, -1, 63,
							PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.debug_lose_gpu",
							 "For tests: the GPU service treats this session's next request as a CUDA failure that loses the GPU's context, and restarts.",
							 NULL,
							 &gpuhash_debug_lose_gpu,
							 false,
							 PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/*
	 * Hidden, superuser only: a benchmark knob, and a low factor multiplies
	 * the GPU memory a table takes from every other session.
	 */
	DefineCustomRealVariable("gpuhash.load_factor",
							 "Target load factor of GPH and linear join tables; DyCuckoo's fill bound, cuckoo's fill above 0.5.",
							 NULL,
							 &gpuhash_load_factor,
							 0.5, 0.05, 0.9,
							 PGC_SUSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.min_gain",
							 "Fraction of a join's estimated cost a GPU join must save to replace PostgreSQL's.",
							 "A GPU join path is kept only when its estimated cost is below "
							 "(1 - min_gain) times the cheapest PostgreSQL path of the same join: "
							 "a smaller gain is within the noise of the cost model.",
							 &gpuhash_min_gain,
							 0.1, 0.0, 0.9,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	/*
	 * Hidden: the switches of single cost rules (on and 1 in use), kept to
	 * compare plans with a rule off.
	 */
	DefineCustomRealVariable("gpuhash.serial_inner_penalty",
							 "Charge again, this many times, what a parallel GPU join's whole inner side would save by running in parallel.",
							 "Where the inner relation's cheapest plan runs in parallel (under a Gather), "
							 "a parallel-aware GPU join over its serial plan runs it in one process while "
							 "the other participants wait; PostgreSQL's costs see only part of that. "
							 "Charged to GPU paths only. 0 charges nothing.",
							 &gpuhash_serial_inner_penalty,
							 1.0, 0.0, 100.0,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	/*
	 * The cost constants, hidden from SHOW ALL and settable by anyone, as
	 * PostgreSQL's own: bench/calibrate.py measures all but
	 * absorbed_page_cost on the running server and prints the SET commands.
	 */
	DefineCustomRealVariable("gpuhash.setup_cost",
							 "Planner's estimate of the fixed cost of a GPU join.",
							 NULL,
							 &gpuhash_setup_cost,
							 26.6, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.absorbed_page_cost",
							 "Planner's cost of a heap page read by a scan absorbed into a GPU join; -1: the tablespace's seq_page_cost, shared among a parallel outer scan's participants where the table fits in effective_cache_size.",
							 "Only the GPU join's absorbed scans are costed this way, not PostgreSQL's own "
							 "plans: with the tables cached, a page costs far less than seq_page_cost next "
							 "to the index lookups it competes with.",
							 &gpuhash_absorbed_page_cost,
							 -1.0, -1.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.build_row_cost",
							 "Planner's estimate of the cost of building the join table, per inner row.",
							 NULL,
							 &gpuhash_build_row_cost,
							 0.0, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.kept_row_cost",
							 "Planner's estimate of the cost of keeping an inner row's columns for output, per inner row.",
							 "Charged where the join emits or checks inner columns, as PostgreSQL's hash join charges cpu_tuple_cost per inserted row.",
							 &gpuhash_kept_row_cost,
							 0.00527, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.kept_join_row_cost",
							 "Planner's estimate of the added cost of keeping a row of a join's output, per inner row.",
							 "Charged on top of kept_row_cost where the inner side is itself a join: its rows are formed by the join below and copied, where a chain of GPU joins probing the same outer side would form none.",
							 &gpuhash_kept_join_row_cost,
							 0.00196, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.match_row_cost",
							 "Planner's estimate of the cost of emitting one hash match.",
							 "Charged per match in place of cpu_tuple_cost, which PostgreSQL's "
							 "hash join is charged; the clauses checked per match are costed apart.",
							 &gpuhash_match_row_cost,
							 0.00072, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.page_cpu_cost",
							 "Planner's estimate of the CPU's cost of handing one heap page to the page walker; -1: the page path is priced as the tuple path.",
							 "Charged per outer page a participant reads where an absorbed outer scan "
							 "goes by pages (gpuhash.page_scan), in place of the tuple path's "
							 "cpu_tuple_cost and quals per tuple, with page_row_cost and "
							 "page_match_cost.",
							 &gpuhash_page_cpu_cost,
							 0.02251, -1.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.page_row_cost",
							 "Planner's estimate of the cost of the page walker's work per tuple on a page.",
							 "Deforming, the clauses it runs, the key and the probe, per tuple of "
							 "the pages handed over.",
							 &gpuhash_page_row_cost,
							 0.000052, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("gpuhash.page_match_cost",
							 "Planner's estimate of the cost of one record the page walker hands back.",
							 "The CPU reads the row in its page and emits its matches; charged in "
							 "place of match_row_cost where the outer scan goes by pages.",
							 &gpuhash_page_match_cost,
							 0.00094, 0.0, 1e10,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	/* superuser only: a large value switches the memory guard off */
	DefineCustomIntVariable("gpuhash.max_inner_memory",
							"Largest estimated inner side a GPU join keeps in memory.",
							NULL,
							&gpuhash_max_inner_memory_kb,
							8 * 1024 * 1024, 64, INT_MAX,
							PGC_SUSET, GUC_UNIT_KB,
							NULL, NULL, NULL);

	/* superuser only: off, each backend holds a CUDA context and GPU memory */
	DefineCustomBoolVariable("gpuhash.use_service",
							 "Runs GPU hash joins through the GPU service when it runs.",
							 "Off: tables live in the backend, which then creates its own CUDA context.",
							 &gpuhash_use_service,
							 true,
							 PGC_SUSET, 0,
							 NULL, NULL, NULL);

	/*
	 * superuser only: a testing knob; the join hook acts as if a library
	 * loaded later had replaced it without calling it (planner.c's check)
	 */
	DefineCustomBoolVariable("gpuhash.test_bypass_join_hook",
							 "Makes the join hook act as if it were not installed (for testing only).",
							 NULL,
							 &gpuhash_test_bypass_join_hook,
							 false,
							 PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							 NULL, NULL, NULL);

	/* superuser only: a testing knob; few bits make keys collide on purpose */
	DefineCustomIntVariable("gpuhash.fingerprint_bits",
							"Bits of a join key fingerprint kept (for testing only).",
							"Fewer than 64 makes different key values collide on purpose, "
							"to exercise the equality recheck after a fingerprint match.",
							&gpuhash_fingerprint_bits,
							64, 1, 64,
							PGC_SUSET, GUC_NO_SHOW_ALL | GUC_NOT_IN_SAMPLE,
							NULL, NULL, NULL);

	/*
	 * Hidden: switches of one mechanism or cost rule each (on in use), kept
	 * to measure and test with it off.
	 */
	DefineCustomBoolVariable("gpuhash.outer_filter",
							 "Drops outer rows whose key a filter of the join table's keys rules out.",
							 "A Bloom filter checked on the CPU before a row is copied and probed; "
							 "inner, semi and right joins only, and only while it drops rows.",
							 &gpuhash_outer_filter,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.absorb_outer_scan",
							 "Lets a GPU hash join read its outer table's pages itself.",
							 "When the outer side is a plain table, the join scans it a page "
							 "at a time instead of running a Seq Scan under it.",
							 &gpuhash_absorb_outer_scan,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.absorb_inner_scan",
							 "Lets a GPU hash join read its inner table's pages itself.",
							 "When the inner side is a Seq Scan of a plain table, the join's "
							 "build scans it a page at a time instead of running the Seq Scan.",
							 &gpuhash_absorb_inner_scan,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuhash.right_semi_anti",
							 "Offers semi and anti joins built on their preserved side (right semi and right anti GPU joins).",
							 "The table is built of the side whose rows come out and probed by the other, "
							 "whose matching rows only mark table rows; each table row comes out once after "
							 "the probe, matched (semi) or not (anti).  \"only\" (for tests) offers semi "
							 "and anti joins no other GPU join.",
							 &gpuhash_right_semi_anti,
							 GPUHASH_RIGHT_ON, right_options,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.shared_inner_pages",
							 "Costs a parallel inner scan the GPU join reads itself as the outer one: a share of its pages per participant.",
							 "An absorbed inner table that all participants read is charged "
							 "a share of its pages, and an absorbed outer scan takes the workers of the partial "
							 "inner side: a large filtered inner table then costs its participants what reading "
							 "their share costs, so the join may build it rather than probe it.",
							 &gpuhash_shared_inner_pages,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.scan_filter_in_place",
							 "Evaluates an absorbed scan's simple quals on the heap tuple.",
							 "Comparisons of integer, date and timestamp columns and NULL "
							 "tests leading a scan's quals are read from the page without "
							 "deforming the row (scan_filter.c); the rest run as a Seq Scan's.",
							 &gpuhash_scan_filter_in_place,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.page_scan",
							 "Hands an absorbed scan's heap pages to the GPU, which filters, keys and probes them.",
							 "Off: the CPU walks every tuple and ships keys (scan/page_scan.c; "
							 "the inner side's build: scan/page_inner.c).",
							 &gpuhash_page_scan,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);

	DefineCustomEnumVariable("gpuhash.page_inner",
							 "Hands an absorbed inner scan's heap pages to the page walker too, "
							 "where gpuhash.page_scan is on.",
							 "gpu: only where the join runs on a GPU of the GPU service, which "
							 "walks the pages against a one-row table of its own there; "
							 "always: on the host twin too, where the walk is slower than the "
							 "tuple path's in-place filter; off: never (scan/page_inner.c). "
							 "Off by default: on an H200 its one-row table's round trips and "
							 "page copies made the inner read slower than the tuple path's.",
							 &gpuhash_page_inner,
							 GPUHASH_PAGE_INNER_OFF, page_inner_options,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.page_inner_service",
							 "Walks an absorbed inner scan's pages in the GPU service, on the host twin too.",
							 "With gpuhash.page_inner = always: the one-row table the walk goes "
							 "against is built in the service even where it has no GPU, so "
							 "tests exercise its life; off: the walk runs in the backend there "
							 "(scan/page_inner.c).",
							 &gpuhash_page_inner_service,
							 false,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.page_inner_keys",
							 "Has the page walker make an absorbed inner scan's keys where the "
							 "build needs nothing else of a row.",
							 "Where the join keeps no inner column and no NULL-key row and the "
							 "walker takes every qual of the inner scan, its pages go to the "
							 "GPU service's walk, which answers the passing rows' keys, and no "
							 "tuple is read (scan/page_inner.c).  Where the join runs on a GPU "
							 "of the service, or with gpuhash.page_inner = always; "
							 "gpuhash.page_scan must be on.",
							 &gpuhash_page_inner_keys,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.page_in_place",
							 "Lets the GPU service read the page path's pages in the buffer pool.",
							 "Off: every page is copied into the request, as when the service "
							 "could not map the buffer pool (tests compare both modes).",
							 &gpuhash_page_in_place,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.prefault",
							 "Maps memory a join is about to write all over in one call.",
							 "Kept inner rows, their arrays and the shares of a parallel "
							 "build are mapped with MADV_POPULATE_WRITE instead of a page "
							 "fault a page (benchmarks compare both).",
							 &gpuhash_prefault_on,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("gpuhash.page_cache_size",
							"GPU memory the GPU service keeps copies of heap pages in (0: none).",
							"A page the page path reads again is then walked from its copy "
							"on the GPU instead of crossing PCIe, while the page's LSN is "
							"the one copied.  Each GPU has a cache of this size, allocated "
							"as it fills; off (0) frees it.",
							&gpuhash_page_cache_mb,
							0, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.chain",
							 "Runs a stack of GPU hash joins as one multi-level probe.",
							 "When a GPU hash join's outer side is another one, the levels' "
							 "tables are probed together per outer batch and only the final "
							 "rows are formed (chain.c).",
							 &gpuhash_chain_joins,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.gpu_aggregate",
							 "Lets the planner compute partial aggregates over a plain table on the GPU.",
							 "A GpuPreAgg node reads the table's pages and folds each group's "
							 "partial states on the GPU; PostgreSQL's Finalize Aggregate "
							 "combines them (src/agg/).",
							 &gpuhash_gpu_aggregate,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.shared_dimension",
							 "Lets a parallel GPU aggregate over a join read its inner side in parallel into one dimension.",
							 "Where the inner side has a partial path, the participants read it "
							 "together and all probe one dimension (src/agg/agg_join_par.c); "
							 "off: each participant reads the whole inner side and builds its own.",
							 &gpuhash_preagg_shared_dim,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.gpu_aggregate_join",
							 "Lets the planner compute partial aggregates over an inner join on the GPU.",
							 "A GpuPreAgg node walks one table's pages and joins each row on "
							 "the GPU to the other side's rows, which PostgreSQL's own plan "
							 "produces, before it folds them (src/agg/agg_join_paths.c); with "
							 "gpuhash.gpu_aggregate.",
							 &gpuhash_gpu_aggregate_join,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("gpuhash.dimension_pages",
							 "Lets a GPU aggregate over a join build its dimension from the inner table's pages.",
							 "Where the inner side is a Seq Scan whose quals and columns the "
							 "page walker takes, its pages are walked on the GPU into the "
							 "dimension (src/agg/agg_join_pages.c); off: the inner plan runs "
							 "and its rows are shipped.  With gpuhash.page_scan.",
							 &gpuhash_dimension_pages,
							 true,
							 PGC_USERSET, GUC_NO_SHOW_ALL,
							 NULL, NULL, NULL);

	/* the GPU service exists only when preloaded: it needs shared memory */
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("gpuhash.staging_memory",
								"Shared memory the GPU service page-locks for transfers.",
								NULL,
								&gpuhash_staging_memory_mb,
								256, 16, 64 * 1024,
								PGC_POSTMASTER, GUC_UNIT_MB,
								NULL, NULL, NULL);

		DefineCustomIntVariable("gpuhash.service_threads",
								"Requests the GPU service serves at once.",
								NULL,
								&gpuhash_service_threads,
								4, 1, 64,
								PGC_POSTMASTER, 0,
								NULL, NULL, NULL);

		DefineCustomStringVariable("gpuhash.gpus",
								   "The GPUs GPU joins use: \"all\" (the default), or CUDA device numbers, as in \"0,1\".",
								   "The GPU service spreads tables over them, copies small tables to "
								   "several of them, and partitions a table too large for one of them.",
								   &gpuhash_gpus,
								   "all",
								   PGC_POSTMASTER, 0,
								   check_gpus, assign_gpus, NULL);

		gpuhash_service_register();
		/* the page path's buffer hints (buffer_hint.c) */
		gpuhash_buffer_hints_register();
	}
	else
	{
		/*
		 * LOAD: a PGC_POSTMASTER setting cannot be defined after startup.
		 * The backend's own tables still go to the first GPU of the
		 * configured list (left as a placeholder; "all" when unset or bad).
		 */
		const char *gpus = GetConfigOption("gpuhash.gpus", true, false);

		if (gpus == NULL || !parse_gpus(gpus, gpuhash_gpu_list, &gpuhash_gpu_list_n))
			gpuhash_gpu_list_n = -1;
	}

	MarkGUCPrefixReserved("gpuhash");

	RegisterCustomScanMethods(&gpuhash_scan_methods);
	gpuhash_planner_init();
	gpuhash_agg_planner_init();
}

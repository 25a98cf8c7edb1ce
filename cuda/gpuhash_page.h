/*
 * gpuhash_page.h
 *		The page walker's C door: heap pages in, matches out.
 *
 * An absorbed scan hands whole heap pages (8 kB, PostgreSQL's page layout)
 * to the walker with a scan program built once per scan: the layout of the
 * attributes up to the last one it needs, a qual program, the join key's
 * columns and how they pack.  For each visible tuple of each page the
 * walker deforms the needed columns, evaluates the quals with SQL's
 * three-valued logic, makes the 64-bit key exactly as the extension's
 * tuple path does (gpuhash_pack in src/gpuhash.h), probes the table and
 * writes one match record per row that joins (or, in GH_PAGE_ALL_ROWS mode,
 * per row that passes the quals), in (page, line pointer) order.
 *
 * Visibility is the caller's: a page marked all-visible is walked over
 * every LP_NORMAL line pointer up to the maxoff the caller saw under its
 * buffer lock; any other page comes with the list of visible offsets that
 * page-mode heapgetpage found, strictly ascending as it makes them (a list
 * out of order, or naming an item that holds no tuple, refuses the page).
 *
 * What the walker cannot do exactly (a needed value compressed or stored
 * out of line, a by-reference missing attribute, an arithmetic overflow, a
 * malformed page) refuses the whole page: no match of it is written and
 * refused[page] is set, so the caller reads that page through its tuple
 * path.  Nothing is dropped silently.
 *
 * The same code runs in the GPU kernels and in the host twin (page_walk.cuh,
 * __host__ __device__); both give identical output, order included.
 * Everything here is plain C data: a scan program and the page references
 * travel through the GPU service's shared-memory staging as they are.
 */
#ifndef GPUHASH_PAGE_H
#define GPUHASH_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "gpuhash_table.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GH_PAGE_SIZE		8192	/* BLCKSZ; the extension checks it */
#define GH_PAGE_MAX_TUPLES	291		/* MaxHeapTuplesPerPage of an 8 kB page */
#define GH_PAGE_MAX_ATTS	64		/* attributes walked, up to the last needed */
#define GH_PAGE_MAX_KEYS	8
#define GH_PAGE_MAX_INSNS	128
#define GH_PAGE_POOL_BYTES	8192	/* constants: numerics, strings, IN lists */
#define GH_PAGE_ALL_VISIBLE	0xFFFF	/* gh_page_ref.nvis: walk every LP_NORMAL item */

/* How the walker reads an attribute's value. */
typedef enum gh_col_type
{
	GH_T_SKIP = 0,				/* walked over by attlen/attalign only */
	GH_T_INT2,
	GH_T_INT4,
	GH_T_INT8,
	GH_T_OID,
	GH_T_BOOL,
	GH_T_FLOAT4,
	GH_T_FLOAT8,
	GH_T_DATE,					/* int32 days */
	GH_T_TIME,					/* int64 microseconds */
	GH_T_TIMESTAMP,				/* int64 microseconds, also timestamptz */
	GH_T_NUMERIC,				/* varlena, short or long header */
	GH_T_TEXT,					/* text, varchar: varlena bytes */
	GH_T_BPCHAR					/* char(n): varlena bytes, trailing spaces
								 * insignificant */
} gh_col_type;

/* What a tuple that lacks the attribute (added after it was written) has. */
typedef enum gh_missing
{
	GH_MISSING_NULL = 0,		/* no default: NULL */
	GH_MISSING_VALUE,			/* pg_attribute.attmissingval, by value */
	GH_MISSING_REFUSE			/* by reference: the page goes to the CPU */
} gh_missing;

typedef struct gh_page_column
{
	int16_t		attlen;			/* > 0 fixed, -1 varlena, -2 cstring */
	uint8_t		attalign;		/* 1, 2, 4 or 8 bytes */
	uint8_t		type;			/* gh_col_type; GH_T_SKIP if not needed */
	uint8_t		missing;		/* gh_missing */
	uint8_t		pad[3];
	int64_t		missing_value;	/* GH_MISSING_VALUE, as a Datum */
} gh_page_column;

/*
 * The qual program: a stack machine over typed values, postfix.  A value is
 * NULL or not; comparisons of NULL give NULL; AND/OR/NOT follow SQL's
 * three-valued logic; a row passes when the program leaves TRUE.  An empty
 * program passes every row.
 */
typedef enum gh_qop
{
	GH_Q_COL,					/* push column a (index into scan->col) */
	GH_Q_CONST,					/* push constant: type b, pool offset a
								 * (by-value types: 8 bytes, integers, oid,
								 * bool, date, time and timestamps as int64,
								 * float4 and float8 as a double's bits;
								 * numeric: its varlena, either header;
								 * text/bpchar: uint32 length then bytes) */
	GH_Q_NULL,					/* push a NULL */
	GH_Q_CMP,					/* pop r, l; push l op r (op = c, mode = b) */
	GH_Q_IN,					/* pop v; push v = ANY (list at pool offset a:
								 * uint32 count, uint32 has_null, then the
								 * elements as GH_Q_CONST lays one out, each
								 * 8-aligned, of the type mode b compares v
								 * with: int64 for GH_M_INT, double for
								 * GH_M_FLOAT, timestamps for GH_M_DATE_TS,
								 * dates (as int64) for GH_M_TS_DATE), mode b;
								 * NULL if v is NULL or no element matched and
								 * the list had a NULL */
	GH_Q_LIKE,					/* pop v; push v LIKE pattern (pool offset a,
								 * as a text constant); c: 1 for NOT LIKE;
								 * b: 1 when the database encoding is UTF-8
								 * ('_' matches one character); 0: bytewise,
								 * exact for single-byte encodings only */
	GH_Q_IS_NULL,				/* pop v; push v IS NULL (never NULL) */
	GH_Q_IS_NOT_NULL,
	GH_Q_IS_TRUE,				/* boolean tests, never NULL */
	GH_Q_IS_FALSE,
	GH_Q_AND,					/* pop a values, push their AND */
	GH_Q_OR,					/* pop a values, push their OR */
	GH_Q_NOT,
	GH_Q_ADD,					/* pop r, l; push l + r in mode b; an overflow
								 * (PostgreSQL would raise an error) refuses
								 * the page.  The mode is the wider operand's
								 * (int2 + int2 is not expressible); for
								 * GH_M_DATE_INT l is the date */
	GH_Q_SUB,
	GH_Q_MUL
} gh_qop;

/* How two operands compare or combine: PostgreSQL's operator, exactly. */
typedef enum gh_qmode
{
	GH_M_INT = 0,				/* int2/int4/int8/oid/date/time/timestamp as
								 * int64 (the same type, or integers mixed) */
	GH_M_INT4,					/* arithmetic: int4's overflow rules */
	GH_M_INT8,					/* arithmetic: int8's */
	GH_M_FLOAT,					/* float4/float8 as double: NaN equals NaN and
								 * sorts above everything; -0 = 0 */
	GH_M_NUMERIC,				/* cmp_numerics: -Inf < finite < +Inf < NaN */
	GH_M_DATE_TS,				/* date against timestamp(tz) without a zone
								 * conversion: date_cmp_timestamp_internal
								 * (against timestamptz PostgreSQL converts
								 * the date in the session's zone: exact only
								 * where that zone's offset is 0) */
	GH_M_TS_DATE,
	GH_M_DATE_INT,				/* arithmetic: date + or - int4 days */
	GH_M_TEXT,					/* bytes: = and <> under any deterministic
								 * collation, ordering only under "C" */
	GH_M_BPCHAR					/* as GH_M_TEXT without trailing spaces */
} gh_qmode;

typedef enum gh_cmp
{
	GH_LT = 0,
	GH_LE,
	GH_EQ,
	GH_NE,
	GH_GE,
	GH_GT
} gh_cmp;

typedef struct gh_qinsn
{
	uint8_t		op;				/* gh_qop */
	uint8_t		b;				/* mode or type, per op */
	uint8_t		c;				/* comparison or flag, per op */
	uint8_t		pad;
	uint32_t	a;				/* column, pool offset or count, per op */
} gh_qinsn;

typedef enum gh_page_mode
{
	GH_PAGE_MATCHES = 0,		/* rows whose key has inner rows */
	GH_PAGE_ALL_ROWS			/* every row that passes the quals (outer, anti
								 * and full joins; a CPU remainder that may
								 * raise an error) */
} gh_page_mode;

/* A key column: exact keys only (GPUKEY_* of src/gpuhash.h, same values). */
typedef struct gh_page_key
{
	int16_t		col;			/* index into scan->col */
	uint8_t		conv;			/* 0 int16, 1 int32, 2 int64, 3 uint32, 4 bool */
	uint8_t		width;			/* bits in a packed key */
} gh_page_key;

/*
 * The scan program: built once per scan by the extension (src/scan/), plain
 * data, copied with every request.
 */
typedef struct gh_page_scan
{
	uint32_t	mode;			/* gh_page_mode */
	int16_t		natts;			/* attributes walked (col[0 .. natts)) */
	int16_t		nkeys;
	int16_t		ninsns;
	int16_t		pad;
	uint32_t	pool_bytes;
	gh_page_column col[GH_PAGE_MAX_ATTS];
	gh_page_key key[GH_PAGE_MAX_KEYS];
	gh_qinsn	insn[GH_PAGE_MAX_INSNS];
	uint8_t		pool[GH_PAGE_POOL_BYTES];	/* 8-aligned entries */
} gh_page_scan;

/* One page of a request. */
typedef struct gh_page_ref
{
	uint64_t	offset;			/* of its 8 kB in the request's page data */
	uint32_t	vis_start;		/* its visible offsets in visible[] */
	uint16_t	nvis;			/* how many; GH_PAGE_ALL_VISIBLE: every
								 * LP_NORMAL item up to maxoff */
	uint16_t	maxoff;			/* line pointers the caller saw */
} gh_page_ref;

/* A row that passed: (page, line pointer) and its key's inner rows. */
typedef struct gh_page_match
{
	uint32_t	page;			/* index of the page in the request */
	uint16_t	lp;				/* offset number, 1-based */
	uint16_t	flags;			/* GH_PM_* */
	gh_range	range;			/* count 0: no inner row (ALL_ROWS mode) */
} gh_page_match;

#define GH_PM_NULL_KEY	0x1		/* a key column is NULL: matches nothing */

typedef struct gh_page_stats
{
	uint64_t	pages;
	uint64_t	refused;		/* pages left to the CPU */
	uint64_t	tuples;			/* visible tuples walked (pages not refused) */
	uint64_t	passed;			/* of them, passed the quals */
	uint64_t	written;		/* match records */
	double		kernel_ms;		/* GPU: CUDA events around the walk; host: 0 */
	double		copy_ms;		/* GPU: pages in, matches out */
	uint64_t	stored;			/* pages read from the page store (the GPU
								 * service's page cache sets these two) */
	uint64_t	filled;			/* of them, copied into it for this walk */
} gh_page_stats;

/* Checks a scan program's bounds and encoding; GH_OK if the walker takes it. */
gh_status	gh_page_scan_check(const gh_page_scan *scan);

/*
 * Walks n_pages pages and probes t (built on either device; NULL: no table,
 * for a scan whose matches are the rows that pass: each is written with an
 * empty range, in either mode).  A partitioned table is refused
 * (GH_ERR_INVALID): the walk takes single tables.  Page i is the
 * GH_PAGE_SIZE bytes at page_data + refs[i].offset; visible[] holds the
 * offset numbers of pages that are not all-visible.  out receives the
 * matches in (page, lp) order: at most capacity of them; *n_out says how
 * many there were (GH_ERR_OUTPUT_FULL when more than capacity, nothing
 * lost: the caller splits the request).  refused[i] (n_pages bytes) is set
 * to 1 for a page left to the CPU.  The table's device decides where the
 * walk runs; page_data need not be pinned (the service passes its pinned
 * staging).
 */
gh_status	gh_page_probe(gh_table *t, const gh_page_scan *scan,
						  const gh_page_ref *refs, uint32_t n_pages,
						  const uint8_t *page_data, size_t page_data_bytes,
						  const uint16_t *visible, uint32_t n_visible,
						  gh_page_match *out, size_t capacity, size_t *n_out,
						  uint8_t *refused, gh_page_stats *stats);

/* The host twin on any table (tests compare it with the GPU). */
gh_status	gh_page_probe_host(gh_table *t, const gh_page_scan *scan,
							   const gh_page_ref *refs, uint32_t n_pages,
							   const uint8_t *page_data, size_t page_data_bytes,
							   const uint16_t *visible, uint32_t n_visible,
							   gh_page_match *out, size_t capacity, size_t *n_out,
							   uint8_t *refused, gh_page_stats *stats);

/*
 * Pages read in place: page_data is host memory the walker may read where
 * it lies (the buffer pool), never copied as a whole to the device.  A GPU
 * table's kernel reads each page of the request through the mapping that
 * gh_page_register_host made (an unregistered range fails the walk: the
 * caller reads its pages itself); the host twin reads them directly.  The
 * same arguments, checks and answer as gh_page_probe; the caller keeps the
 * listed items of every page unchanged until the walk returns.
 */
gh_status	gh_page_probe_mapped(gh_table *t, const gh_page_scan *scan,
								 const gh_page_ref *refs, uint32_t n_pages,
								 const uint8_t *page_data, size_t page_data_bytes,
								 const uint16_t *visible, uint32_t n_visible,
								 gh_page_match *out, size_t capacity, size_t *n_out,
								 uint8_t *refused, gh_page_stats *stats);

/*
 * Walks on one table at once.  gh_page_probe and gh_page_probe_mapped on
 * one GPU table take turns: they use the table's stream and scratch.  A
 * caller that walks one table from several threads (the GPU service, for a
 * parallel plan's participants) takes a lane for each walk: a stream,
 * scratch and events of its own, so that one request's pages cross the link
 * while another's kernels run.  gh_page_lane_take and gh_page_lane_give
 * run under the caller's lock on the table (the lane's memory is counted
 * in the table's, the walk's figures added to its); gh_page_probe_lane
 * needs none, the table only being read.  *lane is NULL where the table
 * has no lanes (not on a GPU): walk with gh_page_probe* under the lock.
 * take: for up to n_pages pages and n_visible listed items, page_bytes of
 * pages copied (0: read in place).  probe_lane: gh_page_probe's arguments
 * and answer, in_place as gh_page_probe_mapped.  give: stats is the
 * walk's (NULL after a failed walk: nothing of it stays in flight or held).
 */
typedef struct gh_page_lane gh_page_lane;

gh_status	gh_page_lane_take(gh_table *t, size_t page_bytes, uint32_t n_pages,
							  uint32_t n_visible, gh_page_lane **lane);
gh_status	gh_page_probe_lane(gh_page_lane *lane, int in_place, const gh_page_scan *scan,
							   const gh_page_ref *refs, uint32_t n_pages,
							   const uint8_t *page_data, size_t page_data_bytes,
							   const uint16_t *visible, uint32_t n_visible,
							   gh_page_match *out, size_t capacity, size_t *n_out,
							   uint8_t *refused, gh_page_stats *stats);
void		gh_page_lane_give(gh_table *t, gh_page_lane *lane, const gh_page_stats *stats);

/*
 * Chain probes on lanes (gpuhash_table.h's chains).  gh_chain_lane_take:
 * under the caller's lock on t, the table of level 0 of the chains to be
 * probed, a lane for probes of up to n outer rows (n_outer_cols columns,
 * validity bytes with them or not); *lane NULL where t is not on a GPU:
 * probe under the locks with gh_chain_probe_window.  gh_chain_probe_lane:
 * gh_chain_probe_window on the lane, no lock held, every level's table
 * only read (the caller keeps each from being freed or given new carried
 * columns meanwhile).  Where the lane's scratch is too small for the
 * probe's combinations, GH_ERR_GPU_MEMORY with *lane_short set and
 * nothing written: the caller probes under its locks instead, and the
 * lane, given back, asks its table's next chain lane for more.  Give the
 * lane back with gh_page_lane_give (stats: passed the outer rows,
 * kernel_ms the levels' time; NULL after a failed probe).
 */
gh_status	gh_chain_lane_take(gh_table *t, int n_levels, int n_outer_cols, size_t n,
							   int has_valid, gh_page_lane **lane);
gh_status	gh_chain_probe_lane(gh_page_lane *lane, const gh_chain_level *levels, int n_levels,
								const uint64_t *outer_keys, const uint8_t *outer_valid,
								int n_outer_cols, size_t n, uint64_t skip,
								uint32_t *out_outer, uint32_t *out_pos,
								uint64_t capacity, uint64_t *total, uint64_t *written,
								double *level_ms, int *lane_short);

/*
 * The page store: copies of pages in the memory of the device that walks
 * them (the GPU service's page cache, service_page_cache.c), so that a
 * page read again does not cross the link again.  gh_page_store_alloc
 * gives n_pages pages of GH_PAGE_SIZE on GPU ordinal (-1: host memory,
 * the host twin's), gh_page_store_free frees them.  gh_page_mapped_address
 * says where GPU ordinal's kernels read host memory that
 * gh_page_register_host mapped (-1: the host twin, ptr itself).
 *
 * gh_page_probe_at walks pages by address: refs[i].offset is where page i
 * lies for t's device (a store page, or mapped host memory); first, on the
 * walk's stream, each fill copies GH_PAGE_SIZE bytes from src (mapped host
 * memory) to dst (a store page), so a page filled can be walked at dst in
 * the same request.  lane: one gh_page_lane_take gave (GPU tables), or
 * NULL: the table's own stream under the caller's lock, or the host twin
 * (t NULL or on the host).  Otherwise gh_page_probe_mapped's arguments and
 * answer (stats->stored and ->filled are the caller's to set).
 */
/*
 * page_data NULL with page_data_bytes GH_PAGE_DATA_AT: each refs[i].offset
 * is the address of page i for the walking device (gh_page_probe_at, and
 * GpuPreAgg's gh_page_agg_mapped and gh_page_agg_join_mapped).
 */
#define GH_PAGE_DATA_AT ((size_t) -1)

typedef struct gh_page_fill
{
	uint64_t	src;			/* address of the page where it lies */
	uint64_t	dst;			/* address of its store page */
} gh_page_fill;

/*
 * The fills alone, before a walk by address that is not gh_page_probe_at's
 * (GpuPreAgg's): on GPU ordinal (-1: the host twin), done when it returns.
 */
gh_status	gh_page_fill_pages(int ordinal, const gh_page_fill *fills, uint32_t n_fills);
gh_status	gh_page_store_alloc(int ordinal, size_t n_pages, uint8_t **store);
void		gh_page_store_free(int ordinal, uint8_t *store);
gh_status	gh_page_mapped_address(int ordinal, const void *ptr, uint64_t *addr);
gh_status	gh_page_probe_at(gh_table *t, gh_page_lane *lane,
							 const gh_page_fill *fills, uint32_t n_fills,
							 const gh_page_scan *scan, const gh_page_ref *refs,
							 uint32_t n_pages, const uint16_t *visible, uint32_t n_visible,
							 gh_page_match *out, size_t capacity, size_t *n_out,
							 uint8_t *refused, gh_page_stats *stats);

/*
 * Page-locks host memory that lives as long as the process and maps it into
 * every GPU's address space (cudaHostRegister, mapped and portable; the
 * range widened to whole OS pages), for gh_page_probe_mapped.  GH_OK, or an
 * error when there is no GPU or the memory cannot be locked.
 */
gh_status	gh_page_register_host(void *ptr, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif							/* GPUHASH_PAGE_H */

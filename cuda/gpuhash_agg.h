/*
 * gpuhash_agg.h
 *		Partial aggregation over the page walker: heap pages in, one partial
 *		state per group and aggregate out, exact as PostgreSQL 15's own
 *		transition functions.
 *
 * For each row of a request's pages that passes the scan program's quals
 * (gh_page_scan: its join keys are not used), the aggregation program
 * below makes a group key from its key columns and folds the values of
 * its aggregates into that group's states.  The states are what
 * PostgreSQL's partial aggregates hold (ARCHITECTURE.md maps each onto its
 * serialized transition state), so the extension hands them to a Finalize
 * Aggregate that combines them with PostgreSQL's own functions.
 *
 * Exact means: counts, integer sums, numeric sums (192-bit fixed point at
 * a scale the program fixes, the display scale carried as numeric_add
 * carries it), min and max are bit-identical on the GPU and the host twin
 * whatever the order rows are folded in.  Float sums are IEEE sums in
 * whatever order the rows arrive: like PostgreSQL's own parallel plans
 * they may differ in the last bits from one run to another.  Whatever
 * cannot be exact is never rounded: a value that does not fit sets
 * GH_AGG_S_FALLBACK on its group's state (the caller recomputes that
 * group, or the request, on the CPU), a page the walker cannot read is
 * refused as a whole (refused[page], none of its rows folded), and more
 * groups than the caller allowed is GH_ERR_OUTPUT_FULL.
 *
 * Plain C data throughout, like gh_page_scan: the program travels through
 * the GPU service's staging as it is.
 */
#ifndef GPUHASH_AGG_H
#define GPUHASH_AGG_H

#include "gpuhash_page.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GH_AGG_MAX_AGGS		16
#define GH_AGG_MAX_KEYS		GH_PAGE_MAX_KEYS
#define GH_AGG_MAX_SCALE	30	/* the largest accumulator scale */
#define GH_AGG_HOST			(-1)	/* gh_page_agg's device: the host twin */

typedef enum gh_agg_fn
{
	GH_AGG_COUNT_STAR = 0,		/* rows of the group */
	GH_AGG_COUNT,				/* non-NULL values */
	GH_AGG_SUM,
	GH_AGG_AVG,					/* as SUM: the count and the sum */
	GH_AGG_MIN,
	GH_AGG_MAX
} gh_agg_fn;

/* The value an aggregate folds: a column, or exact numeric arithmetic. */
typedef enum gh_agg_expr
{
	GH_AGG_E_COL = 0,			/* col */
	GH_AGG_E_MUL_ONE_MINUS,		/* col * (1 - col2), both numeric: numeric_mul's
								 * exact product, dscale col's + col2's */
	GH_AGG_E_MUL,				/* col * col2, both numeric */
	GH_AGG_E_MUL_ONE_MINUS_ONE_PLUS, /* col * (1 - col2) * (1 + col3), all
									 * numeric: numeric_mul left to right,
									 * dscale the three operands' sum */
	GH_AGG_E_CONST,				/* the constant konst, of integer type
								 * spec.type (CASE WHEN c THEN 1 ELSE 0) */
	GH_AGG_E_INT_ADD,			/* col + col2, integers, in integer type
								 * spec.type; a result outside it sets
								 * GH_AGG_S_FALLBACK (PostgreSQL's operator
								 * raises "out of range" on the CPU) */
	GH_AGG_E_INT_SUB,			/* col - col2, likewise */
	GH_AGG_E_INT_MUL			/* col * col2, likewise */
} gh_agg_expr;

#define GH_AGG_E_IS_INT(e)	((e) >= GH_AGG_E_INT_ADD && (e) <= GH_AGG_E_INT_MUL)

/*
 * A group key column: exact keys, packed as the walker packs join keys
 * (gh_page_key: conv 0 int16, 1 int32, 2 int64, 3 uint32, 4 bool) plus
 * conv GH_AGG_KEY_BPCHAR: a char(n) or text value's bytes without trailing
 * spaces (bpchar's equality), at most the key's slot of them
 * (gh_agg_key_bits / 8), packed big-endian and zero-filled (a text value
 * holds no zero byte, so the packing is one-to-one); a longer value refuses
 * its page, never truncated.  char(1) takes 8 bits.  A NULL key column
 * groups with the other NULLs (GROUP BY's rule): its bit in the group's
 * null mask is set and its bits in the key are zero.
 *
 * The columns are packed one after the other, the first the most
 * significant, into one 64-bit word when their bits fit in 64 (a narrow
 * key: one word to hash and compare), else into two words when they fit
 * in 128, else into GH_AGG_KEY_WORDS words (wide keys), the packed bits
 * right-aligned in the last word(s) and the words above them zero
 * (gh_agg_key_words).  A key is always its program's number of words, in
 * the fold's registers and in every table and set, so that the GPU unrolls
 * its packing, hashing and comparison over constant indices.
 */
#define GH_AGG_KEY_BPCHAR	5

/*
 * conv GH_AGG_KEY_TEXT: as GH_AGG_KEY_BPCHAR but every byte counts, trailing
 * spaces too (text's and varchar's equality under a deterministic
 * collation: 'a' and 'a ' are two groups).
 */
#define GH_AGG_KEY_TEXT		6

/*
 * A wide key's words: 6 x 64 = 384 bits, room for two char(25)-sized text
 * keys and an integer, or three text keys of ~15 bytes.  Each word is two
 * registers for every thread of a wide-key fold while it packs and probes
 * (12 in all) and 8 bytes of every slot of the request's table and group
 * of a resident set: more words would cost those kernels occupancy and
 * the sets memory beside states of ~100 bytes per aggregate.
 */
#define GH_AGG_KEY_WORDS	6
#define GH_AGG_KEY_MAX_BITS	(64 * GH_AGG_KEY_WORDS)

/* the few inline helpers below, for the GPU's code too (nvcc) */
#if defined(__CUDACC__)
#define GH_AGG_INLINE static inline __host__ __device__
#else
#define GH_AGG_INLINE static inline
#endif

/*
 * The aggregate over a join (gh_page_agg_join): each row that passes the
 * scan's quals is joined, on the device, to the rows of a dimension
 * (gh_agg_dim: the inner side's rows, built once per scan) whose key equals
 * its own packed key (scan->key[0 .. scan->nkeys), packed as the walker packs
 * join keys: the same 64-bit key as the extension's tuple path); a NULL key
 * column joins nothing (inner join).  Each (row, inner row) pair then passes
 * the join's qual (gh_agg_prog.insn[jq_start, +jq_len), over outer and inner
 * columns; 0 long: every pair passes) and is folded: group keys and
 * aggregate operands may name inner columns.
 *
 * Column indices: 0 .. GH_PAGE_MAX_ATTS - 1 are the scan's (scan->col[]);
 * GH_AGG_INNER_COL0 + j is the dimension's column j (gh_agg_join.inner_type[j]),
 * in group keys, aggregate operands and qual programs (GH_Q_COL) alike.
 */
#define GH_AGG_MAX_INNER	16
#define GH_AGG_INNER_COL0	GH_PAGE_MAX_ATTS
#define GH_AGG_MAX_INSNS	96	/* gh_agg_prog.insn: join qual and conditions */

typedef struct gh_agg_join
{
	int16_t		ninner;			/* dimension columns; 0: no join (gh_page_agg) */
	int16_t		jq_start;		/* the join qual in gh_agg_prog.insn */
	int16_t		jq_len;
	int16_t		flags;			/* GH_AGG_JOIN_* */
	uint8_t		inner_type[GH_AGG_MAX_INNER];	/* gh_col_type of each; never GH_T_SKIP */
} gh_agg_join;

/*
 * gh_agg_join.flags: GH_AGG_JOIN_MARK: every folded pair also sets its inner
 * row's matched flag in the dimension (gh_agg_dim_matched), for an outer
 * join that preserves the inner side: the caller folds the rows no pair
 * matched once, null-extended, after the walk.
 */
#define GH_AGG_JOIN_MARK	0x1

/*
 * One dimension value.  By value (integers, oid, bool, date, time,
 * timestamps as int64; float4 and float8 as a double's bits, as the walker
 * holds them): bits.  By reference (numeric, text, bpchar): bits is the
 * offset of its data in the dimension's heap, len its bytes: the varlena's
 * data without its header, never compressed or external (the extension
 * detoasts it).  null: SQL NULL (bits and len 0).
 */
typedef struct gh_agg_inval
{
	uint64_t	bits;
	uint32_t	len;
	uint8_t		null;
	uint8_t		pad[3];
} gh_agg_inval;

typedef struct gh_agg_dim gh_agg_dim;	/* opaque: a built dimension */

/*
 * Builds a dimension on device (a GPU ordinal, or GH_AGG_HOST) from n inner
 * rows: keys[i] is row i's packed key, vals[i * ninner + j] its column j
 * (heap_bytes of by-reference data in heap).  The rows are copied: the
 * caller's arrays may go once it returns.  max_device_bytes bounds the GPU
 * memory it takes (0: none): beyond it GH_ERR_GPU_MEMORY, nothing held.
 */
gh_status	gh_agg_dim_build(int device, const uint64_t *keys, uint64_t n,
							 const gh_agg_inval *vals, int ninner,
							 const uint8_t *heap, uint64_t heap_bytes,
							 size_t max_device_bytes, gh_agg_dim **out);
void		gh_agg_dim_free(gh_agg_dim *d);

/*
 * The matched flags of rows [pos, pos + n) (by position: the order of
 * gh_agg_dim_build's keys) into out: 1 where a walk whose program has
 * GH_AGG_JOIN_MARK folded a pair with that row since the build, else 0.
 * A page that is refused marks nothing: the caller joins it and marks
 * its own.
 */
gh_status	gh_agg_dim_matched(const gh_agg_dim *d, uint64_t pos, uint64_t n, uint8_t *out);
/*
 * A star's dimension: dims[0 .. ndims) (built on one device) side by side,
 * for gh_page_agg_join_mapped with a program whose star.ndims is ndims.
 * Nothing is copied: the parts must outlive it; gh_agg_dim_free frees the
 * star alone, never its parts.
 */
gh_status	gh_agg_dim_star(const gh_agg_dim *const *dims, int ndims, gh_agg_dim **out);

/* its device (GPU ordinal or GH_AGG_HOST), rows and memory held */
int			gh_agg_dim_device(const gh_agg_dim *d);
uint64_t	gh_agg_dim_rows(const gh_agg_dim *d);
size_t		gh_agg_dim_bytes(const gh_agg_dim *d);

/*
 * The value an aggregate folds under a condition (gh_agg_spec.cond_len > 0):
 * CASE WHEN cond THEN <expr> ELSE <else> END, cond the program
 * gh_agg_prog.insn[cond_start, +cond_len).  Where cond is not TRUE the
 * aggregate folds its else value: GH_AGG_ELSE_NULL folds nothing (a NULL
 * input), GH_AGG_ELSE_ZERO a zero of the input type (numeric: 0 with display
 * scale 0, counted as an input as PostgreSQL counts it).
 */
#define GH_AGG_ELSE_NULL	0
#define GH_AGG_ELSE_ZERO	1

typedef struct gh_agg_spec
{
	uint8_t		fn;				/* gh_agg_fn */
	uint8_t		expr;			/* gh_agg_expr */
	uint8_t		scale;			/* numeric sums: the accumulator's scale
								 * (digits after the point it holds exactly,
								 * <= GH_AGG_MAX_SCALE; e.g. the column's
								 * typmod scale); a value with nonzero digits
								 * beyond it sets GH_AGG_S_FALLBACK */
	uint8_t		pad;
	int16_t		col;			/* index into scan->col (COUNT_STAR: any, e.g. 0) */
	int16_t		col2;			/* second operand of expr */
	int16_t		col3;			/* third operand of expr */
	int16_t		cond_start;		/* condition in gh_agg_prog.insn; */
	int16_t		cond_len;		/* 0: none */
	uint8_t		else_kind;		/* GH_AGG_ELSE_* */
	uint8_t		type;			/* GH_AGG_E_CONST, GH_AGG_E_INT_*: the
								 * input's gh_col_type (an integer type) */
	int16_t		pad2;
	int64_t		konst;			/* GH_AGG_E_CONST: the value */
} gh_agg_spec;

/*
 * A star (several dimensions, gh_agg_dim_star): each passing row is joined
 * to dimension d's rows of its own packed key, star.dim[d].key[] over the
 * scan's columns (packed as gh_walk_key packs the scan's key[]); each
 * combination of one row of every dimension then passes the join qual
 * (over the scan's and every dimension's columns) and is folded.
 * Dimension d's columns are GH_AGG_INNER_COL0 + col0 + j, j < ninner, their
 * types in join.inner_type[col0 + j]: the dimensions' columns side by side,
 * join.ninner all of them.  ndims 0: one dimension, or none (join.ninner).
 */
#define GH_AGG_MAX_DIMS		4

typedef struct gh_agg_star_dim
{
	int16_t		nkeys;
	int16_t		col0;			/* its first column in the inner numbering */
	int16_t		ninner;
	int16_t		pad;
	gh_page_key key[GH_PAGE_MAX_KEYS];	/* over scan->col, as scan->key */
	uint64_t	ref;			/* the caller's: its name for the dimension
								 * (the GPU service's id); the core reads
								 * nothing of it */
} gh_agg_star_dim;

typedef struct gh_agg_star
{
	int16_t		ndims;			/* 0, or 2 .. GH_AGG_MAX_DIMS */
	int16_t		pad[3];
	gh_agg_star_dim dim[GH_AGG_MAX_DIMS];
} gh_agg_star;

typedef struct gh_agg_prog
{
	int16_t		nkeys;			/* 0: one group of every row (a plain aggregate) */
	int16_t		naggs;
	uint32_t	pad;
	gh_page_key key[GH_AGG_MAX_KEYS];	/* conv as above; width: bits in the
										 * packed key (the sum of every key's
										 * bits <= GH_AGG_KEY_MAX_BITS) */
	gh_agg_spec agg[GH_AGG_MAX_AGGS];
	gh_agg_join join;			/* ninner 0: no join */
	int16_t		ninsns;			/* insn[] in use: join qual, conditions */
	int16_t		pad3[3];
	gh_qinsn	insn[GH_AGG_MAX_INSNS];	/* as gh_page_scan.insn, constants in
										 * the scan program's pool */
	uint16_t	key_bytes[GH_AGG_MAX_KEYS];	/* a text key's slot in bytes
											 * where key[i].width (8 bits)
											 * cannot say it; 0: width / 8 */
	gh_agg_star star;			/* several dimensions (ndims 0: not a star) */
} gh_agg_prog;

/* Key i's bits in the packed key. */
GH_AGG_INLINE int
gh_agg_key_bits(const gh_agg_prog *agg, int i)
{
	return agg->key_bytes[i] != 0 ? 8 * (int) agg->key_bytes[i] : (int) agg->key[i].width;
}

/*
 * The program's key words: 1 (narrow), 2 (two integers of 64 bits, a date
 * and an int8 and an int4: what integer keys mostly need, at a third of
 * the memory and hashing of the widest) or GH_AGG_KEY_WORDS.
 */
GH_AGG_INLINE int
gh_agg_key_words(const gh_agg_prog *agg)
{
	int			bits = 0;

	for (int i = 0; i < agg->nkeys; i++)
		bits += gh_agg_key_bits(agg, i);
	return bits <= 64 ? 1 : bits <= 128 ? 2 : GH_AGG_KEY_WORDS;
}

/*
 * One aggregate's partial state in one group.  Which fields mean what
 * depends on the aggregate and its input type:
 *	count		COUNT_STAR: rows; every other: non-NULL inputs folded
 *				(numeric: finite ones, PostgreSQL's N; NaN and infinities
 *				are counted apart)
 *	sum[3]		SUM/AVG of integers and numerics: the exact sum, a 192-bit
 *				two's complement integer (sum[0] least significant) equal
 *				to the sum * 10^scale (scale of the spec; integers: 0)
 *	dscale		numerics: the largest display scale among the finite inputs
 *				(numeric_add's result scale; 0 with no input), and
 *	dscale_count	how many inputs had it (NumericAggState's maxScale and
 *				maxScaleCount)
 *	nan, pinf, ninf	numerics: NaN, +Infinity and -Infinity inputs
 *	fsum		SUM/AVG of floats: the IEEE sum (float4 SUM: float
 *				arithmetic, as float4pl; AVG: double)
 *	mm			MIN/MAX: the value as the walker holds it (integers,
 *				dates, timestamps as int64; floats as a double's bits);
 *				meaningful when count > 0
 *	flags		GH_AGG_S_*
 */
typedef struct gh_agg_state
{
	int64_t		count;
	uint64_t	sum[3];
	double		fsum;
	uint64_t	mm;
	int64_t		nan,
				pinf,
				ninf;
	uint64_t	scale_word;		/* internal: dscale << 40 | dscale_count */
	uint32_t	dscale;			/* set by the walk's end from scale_word */
	uint32_t	flags;
	int64_t		dscale_count;
} gh_agg_state;

#define GH_AGG_S_FALLBACK	0x1	/* a value did not fit: recompute on the CPU */
#define GH_AGG_S_FLOAT_OVERFLOW 0x2 /* a finite float sum overflowed: PostgreSQL
									 * raises "value out of range" (CPU) */

/*
 * A set of groups: the result of one or more requests (gh_page_agg folds
 * into what out already holds, so a scan's requests accumulate into one
 * set), sorted by (null mask, key) after every call.  Group i's key is
 * keys[i * key_words .. + key_words), the most significant word first
 * (key_words: the program's gh_agg_key_words, set by gh_agg_groups_init;
 * 0 reads as 1).
 */
typedef struct gh_agg_groups
{
	int16_t		naggs;
	uint64_t	max_groups;		/* the caller's bound (work_mem-derived) */
	uint64_t	n_groups;
	uint64_t   *keys;			/* n_groups packed keys, key_words each */
	uint8_t    *nulls;			/* n_groups null masks (bit i: key column i) */
	gh_agg_state *states;		/* n_groups * naggs, group-major */
	uint64_t	fallback_groups;	/* groups with GH_AGG_S_FALLBACK somewhere */
	int16_t		key_words;		/* words per key (above) */
} gh_agg_groups;

GH_AGG_INLINE int
gh_agg_groups_key_words(const gh_agg_groups *g)
{
	return g->key_words > 1 ? g->key_words : 1;
}

typedef struct gh_agg_stats
{
	uint64_t	pages;
	uint64_t	refused;
	uint64_t	tuples;
	uint64_t	passed;			/* rows folded (over a join: the (row,
								 * inner row) pairs that passed the join
								 * qual) */
	double		kernel_ms;		/* GPU: CUDA events around the walk and fold */
	double		copy_ms;		/* GPU: pages in, groups out */
	uint64_t	stored;			/* pages read from the page store (the GPU
								 * service's page cache sets these two) */
	uint64_t	filled;			/* of them, copied into it for this request */
} gh_agg_stats;

/* Checks an aggregation program against its scan program. */
gh_status	gh_agg_prog_check(const gh_page_scan *scan, const gh_agg_prog *agg);

/* An empty group set for agg's aggregates, bounded by max_groups. */
gh_status	gh_agg_groups_init(gh_agg_groups *g, const gh_agg_prog *agg, uint64_t max_groups);
void		gh_agg_groups_free(gh_agg_groups *g);

/*
 * The device memory a GPU's fold of a request of n_pages pages listing up
 * to n_visible tuples into at most groups groups takes besides its pages
 * (its inputs, its answer, its table): what a request is sized by under a
 * GPU memory budget.
 */
size_t		gh_agg_fold_device_bytes(uint32_t n_pages, uint32_t n_visible, uint64_t groups,
									 int naggs, int key_words);

/*
 * Walks n_pages pages (arguments as gh_page_probe's) and folds every row
 * that passes the quals into out.  device: a GPU ordinal, or GH_AGG_HOST
 * for the host twin.  GH_ERR_OUTPUT_FULL: the request's groups and out's
 * together are more than out->max_groups; out is then left as it was (the
 * caller splits the request, spills, or runs it on the CPU).  refused[i]
 * is set to 1 for a page none of whose rows were folded.
 */
gh_status	gh_page_agg(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
						const gh_page_ref *refs, uint32_t n_pages,
						const uint8_t *page_data, size_t page_data_bytes,
						const uint16_t *visible, uint32_t n_visible,
						uint8_t *refused, gh_agg_groups *out, gh_agg_stats *stats);

/*
 * Pages read in place, as gh_page_probe_mapped reads them: page_data is host
 * memory (the buffer pool) that a GPU reads through the mapping
 * gh_page_register_host made, never copied to the device as a whole; the
 * host twin reads it directly.  The same arguments, checks and answer as
 * gh_page_agg; the caller keeps the listed items of every page unchanged
 * (pinned) until it returns.
 */
gh_status	gh_page_agg_mapped(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
							   const gh_page_ref *refs, uint32_t n_pages,
							   const uint8_t *page_data, size_t page_data_bytes,
							   const uint16_t *visible, uint32_t n_visible,
							   uint8_t *refused, gh_agg_groups *out, gh_agg_stats *stats);

/*
 * gh_page_agg_mapped over a join: every row that passes the quals, joined
 * to dim's rows of equal key (agg->join says how; dim built on the same
 * device: a GPU ordinal or GH_AGG_HOST), folded into out.  The same checks
 * and answer as gh_page_agg_mapped; GH_ERR_INVALID when agg->join.ninner
 * does not match the dimension or a program names a column it lacks.
 */
gh_status	gh_page_agg_join_mapped(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
									const gh_agg_dim *dim,
									const gh_page_ref *refs, uint32_t n_pages,
									const uint8_t *page_data, size_t page_data_bytes,
									const uint16_t *visible, uint32_t n_visible,
									uint8_t *refused, gh_agg_groups *out, gh_agg_stats *stats);

/*
 * Combines src's groups into dst (both for the same programs), as
 * PostgreSQL's combine functions do.  GH_ERR_OUTPUT_FULL if the union has
 * more than dst->max_groups groups (dst unchanged).
 */
gh_status	gh_agg_merge(gh_agg_groups *dst, const gh_agg_groups *src,
						 const gh_page_scan *scan, const gh_agg_prog *agg);

#ifdef __cplusplus
}
#endif

#endif							/* GPUHASH_AGG_H */

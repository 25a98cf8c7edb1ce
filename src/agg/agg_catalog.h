/*
 * agg_catalog.h
 *		Which aggregates and group keys the GPU aggregate (GpuPreAgg) folds
 *		exactly, and the partial states it hands PostgreSQL's Finalize
 *		Aggregate: the same Datums PostgreSQL 15's partial aggregates
 *		(AGGSPLIT_INITIAL_SERIAL) produce, so that PostgreSQL's own
 *		deserialize, combine and final functions finish them.
 */
#ifndef AGG_CATALOG_H
#define AGG_CATALOG_H

#include "postgres.h"

#include "fmgr.h"

#include "nodes/bitmapset.h"
#include "nodes/primnodes.h"

#include "gpuhash_agg.h"

typedef struct GpuAggSupport
{
	uint8		fn;				/* gh_agg_fn */
	uint8		expr;			/* gh_agg_expr */
	uint8		scale;			/* numeric accumulator scale (gh_agg_spec.scale) */
	Oid			input_type;		/* the type of the value folded */
	AttrNumber	attno[3];		/* the relation's columns the argument reads;
								 * 0 unused (or an inner column) */
	Oid			partial_type;	/* the partial Aggref's aggtype (int8, bytea,
								 * float8[], ...) */
	Oid			aggfnoid;

	/* the aggregate over a join (gpuhash_agg_supported_join) */
	Var		   *inner_var[3];	/* operand i is this Var of the inner side
								 * (attno[i] is then 0); NULL: not inner */
	Expr	   *cond;			/* CASE WHEN cond THEN x ELSE 0|NULL END: the
								 * WHEN (over both sides); NULL: no CASE */
	uint8		else_kind;		/* GH_AGG_ELSE_* where cond is set */
	int64		konst;			/* expr GH_AGG_E_CONST: x, an integer */
	Oid			const_type;		/* its type (int2, int4 or int8) */
	PGFunction	opfn;			/* expr GH_AGG_E_INT_*: the operator's function
								 * (int4mul, int48pl, ...), for the CPU's rows */
} GpuAggSupport;

/*
 * true if the GPU folds aggref exactly (no FILTER, DISTINCT, ORDER BY; args
 * over columns of scanrelid in a supported form); else *why says why.
 */
extern bool gpuhash_agg_supported(const Aggref *aggref, Index scanrelid,
								  GpuAggSupport *s, const char **why);

/*
 * The same over an inner join of scanrelid (the outer side, its pages
 * walked) with the relations inner_relids (NULL: no join): operands may be
 * plain columns of either side (an inner one in inner_var[i]), and the
 * argument may be CASE WHEN cond THEN x ELSE 0|NULL END (ELSE absent is
 * NULL), x a form taken above or an integer constant (GH_AGG_E_CONST), the
 * ELSE a zero Const of the CASE's type (numeric: 0 of display scale 0).
 * cond is only recorded: whether the GPU runs it is the qual compiler's
 * business (gpuhash_agg_qual_compiles).  gpuhash_agg_supported takes
 * neither CASE nor constants: what a plan without a join folds is
 * unchanged.
 */
extern bool gpuhash_agg_supported_join(const Aggref *aggref, Index scanrelid,
									   Bitmapset *inner_relids, GpuAggSupport *s,
									   const char **why);

/*
 * true if a GROUP BY expression can be a GPU group key (a Var of scanrelid
 * whose type packs, see gh_agg_prog.key); *conv and *width as gh_page_key
 * wants them.
 */
extern bool gpuhash_agg_key_supported(const Expr *expr, Index scanrelid,
									  uint8 *conv, uint8 *width,
									  const char **why);

/* The same where the key may also be a column of the inner side. */
extern bool gpuhash_agg_key_supported_join(const Expr *expr, Index scanrelid,
										   Bitmapset *inner_relids, uint8 *conv,
										   uint8 *width, const char **why);

/*
 * The partial state Datum a Finalize Aggregate deserializes/combines, from a
 * GPU group state (finished: gh_page_agg's output).  Never for a state with
 * GH_AGG_S_FALLBACK (an error: the caller recomputes that group on the CPU);
 * a GH_AGG_S_FLOAT_OVERFLOW state raises PostgreSQL's float overflow error.
 * The Datum is allocated in the current memory context.
 */
extern Datum gpuhash_agg_state_datum(const GpuAggSupport *s,
									 const gh_agg_state *st, bool *isnull);

/*
 * The same for one row the CPU read itself (a refused page): vals[i] and
 * nulls[i] are the row's values of column s->attno[i] (i < 3, where attno[i]
 * is not 0; count(*) reads none).
 */
extern Datum gpuhash_agg_row_datum(const GpuAggSupport *s, const Datum *vals,
								   const bool *nulls, bool *isnull);

/*
 * A group column's value back from a packed group key of kw words (the
 * most significant first; type and typmod of the column): its bits are
 * the width bits from bit shift up, shift being the bits of the key
 * columns packed after it (0 for the last or only one).  *isnull is always
 * false: a NULL key column is the group's null mask's business, which the
 * caller checks first.
 */
extern Datum gpuhash_agg_key_datum(uint8 conv, Oid type, int32 typmod,
								   const uint64 *key, int kw, int shift, int width,
								   bool *isnull);

/*
 * Each group key's bits in the packed key (gpuhash_agg.h): bits[k] holds
 * an integer key's width (gpuhash_agg_key_supported's) on entry; a text
 * key's slot is chosen here from its declared length (typmod) and the
 * database encoding's longest character: false when they cannot fit
 * GH_AGG_KEY_MAX_BITS.
 */
extern bool gpuhash_agg_key_slots(int nkeys, const uint8 *conv, const int32 *typmod, int *bits);

#endif							/* AGG_CATALOG_H */

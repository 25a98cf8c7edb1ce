/*
 * gpuhash_agg_set.h
 *		Resident groups: a set of groups that stays on its device (a GPU, or
 *		the host twin) while a scan's requests are merged into it, and is
 *		read back once, filtered by the HAVING conjuncts that can be
 *		evaluated exactly on the groups' final values.
 *
 * A set belongs to one aggregation program (gh_agg_prog over its
 * gh_page_scan).  gh_agg_set_merge combines a request's groups (finished
 * states, as gh_page_agg answers them) into it as gh_agg_merge would:
 * PostgreSQL's combine functions, written once for the GPU and the host
 * twin (agg_set.cuh).  The set is an open-addressing table over (null
 * mask, packed key) whose slots hold group indices; keys, null masks and
 * states are dense by group.  It grows by rehashing, never past the
 * caller's byte cap: a merge that would pass it is refused whole
 * (GH_ERR_OUTPUT_FULL, the set unchanged), so a set never holds part of a
 * request.  Merges into one set must not run at once (the caller
 * serializes them).
 *
 * gh_agg_set_finish reads the set back: every group exactly once, or only
 * those for which every HAVING term holds.  A term compares one
 * aggregate's final value with a constant exactly:
 *	COUNT	count(*), count(x): the count
 *	SUM		sum of integers and numerics: the 192-bit fixed-point sum at
 *			the aggregate's scale (integers: 0) against konst, the
 *			constant's floor at that scale (exact: the constant is konst
 *			itself); NaN and +Infinity compare above every finite
 *			constant, -Infinity below (numeric's order); NULL (no input)
 *			satisfies nothing
 *	MINMAX	min/max of integers, dates, times, timestamps: the int64
 *			value against konst; NULL (no input) satisfies nothing
 * A group whose state is flagged (GH_AGG_S_*) is kept whatever the terms
 * say: its values are not exact, the caller decides.
 */
#ifndef GPUHASH_AGG_SET_H
#define GPUHASH_AGG_SET_H

#include "gpuhash_agg.h"

#ifdef __cplusplus
extern "C"
{
#endif

#define GH_AGG_MAX_HAVING	8

typedef enum gh_having_kind
{
	GH_HV_COUNT = 0,
	GH_HV_SUM,
	GH_HV_MINMAX
} gh_having_kind;

typedef enum gh_having_op
{
	GH_HV_LT = 0,
	GH_HV_LE,
	GH_HV_EQ,
	GH_HV_GE,
	GH_HV_GT,
	GH_HV_NE
} gh_having_op;

typedef struct gh_agg_having_term
{
	int16_t		agg;			/* the aggregate: index into gh_agg_prog.agg */
	uint8_t		kind;			/* gh_having_kind */
	uint8_t		op;				/* gh_having_op: value op constant */
	uint8_t		exact;			/* SUM: konst is the constant (else its floor) */
	uint8_t		pad[3];
	uint64_t	konst[3];		/* 192-bit two's complement (COUNT, MINMAX:
								 * the int64 sign-extended) */
} gh_agg_having_term;

typedef struct gh_agg_having
{
	int16_t		nterms;			/* 0: every group */
	int16_t		pad[3];
	gh_agg_having_term term[GH_AGG_MAX_HAVING];
} gh_agg_having;

typedef struct gh_agg_set gh_agg_set;	/* opaque */

/*
 * An empty set on device (a GPU ordinal or GH_AGG_HOST) for agg over scan
 * (both copied), holding at most max_bytes of memory on its device (0: no
 * cap).
 */
gh_status	gh_agg_set_create(int device, const gh_page_scan *scan, const gh_agg_prog *agg,
							  size_t max_bytes, gh_agg_set **out);
void		gh_agg_set_free(gh_agg_set *set);

/*
 * Combines src's groups (finished states, unique (null mask, key)) into
 * the set.  GH_ERR_OUTPUT_FULL: the set would pass its cap (unchanged).
 */
gh_status	gh_agg_set_merge(gh_agg_set *set, const gh_agg_groups *src);

/*
 * The set's groups into out (a fresh set of agg's program: gh_agg_groups_init,
 * max_groups ignored), sorted by (null mask, key): all of them when having
 * is NULL or has no term, else those every term keeps; *removed: the
 * groups the terms dropped.  The set is unchanged.
 */
gh_status	gh_agg_set_finish(gh_agg_set *set, const gh_agg_having *having, gh_agg_groups *out,
							  uint64_t *removed);

/* Checks having's terms against the set's program. */
gh_status	gh_agg_having_check(const gh_page_scan *scan, const gh_agg_prog *agg,
								const gh_agg_having *having);

int			gh_agg_set_device(const gh_agg_set *set);
int			gh_agg_set_naggs(const gh_agg_set *set);
uint64_t	gh_agg_set_groups(const gh_agg_set *set);
size_t		gh_agg_set_bytes(const gh_agg_set *set);

#ifdef __cplusplus
}
#endif

#endif							/* GPUHASH_AGG_SET_H */

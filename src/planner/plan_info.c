/*-------------------------------------------------------------------------
 *
 * plan_info.c
 *	  The contract between the planner and the executor of a GpuHashJoin,
 *	  written and read in one place: every slot of the path's and the
 *	  plan's private lists and of custom_exprs has a name (gpuhash.h's
 *	  enums), as postgres_fdw names its fdw_private slots.
 *
 *	  CustomPath.custom_private: GpuPathPrivate's slots, as nodes.
 *	  CustomScan.custom_private: a list of Integers, so copyObject and
 *		nodeToString work: the GpuPlanPrivate head (n_outer_cols, scheme,
 *		jointype, fingerprint, single_match, n_filter, n_gate,
 *		parallel_inner, outer_scan, inner_scan, key_filter, scheme_auto,
 *		nkeys), then (outer_conv, inner_conv, width, outer_hashfn,
 *		inner_hashfn, collation) per key (OIDs stored as their int bit
 *		pattern); with scheme_auto, then the estimates it chose by (Floats).
 *	  CustomScan.custom_exprs: the GpuPlanExprs lists one after the other:
 *		nkeys outer keys, nkeys inner keys, the join filter, n_filter
 *		filter clauses on joined rows, n_gate pseudoconstant quals.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include "nodes/pg_list.h"
#include "nodes/nodes.h"
#include "nodes/value.h"

/* the head of CustomScan.custom_private */
typedef enum GpuPlanPrivate
{
	GPV_N_OUTER_COLS,
	GPV_SCHEME,
	GPV_JOINTYPE,
	GPV_FINGERPRINT,
	GPV_SINGLE_MATCH,
	GPV_N_FILTER,
	GPV_N_GATE,
	GPV_PARALLEL_INNER,
	GPV_OUTER_SCAN,
	GPV_INNER_SCAN,
	GPV_KEY_FILTER,
	GPV_SCHEME_AUTO,
	GPV_NKEYS,
	GPV_HEAD					/* the per-key entries start here */
} GpuPlanPrivate;

/* per key, after the head */
typedef enum GpuKeyPrivate
{
	GKV_OUTER_CONV,
	GKV_INNER_CONV,
	GKV_WIDTH,
	GKV_OUTER_HASHFN,
	GKV_INNER_HASHFN,
	GKV_COLLATION,
	GKV_PER_KEY
} GpuKeyPrivate;

/* with gpuhash.scheme = auto, after the keys: rows, distinct keys, probes */
#define GPV_N_ESTIMATES 3

List *
gpuhash_form_private(const GpuJoinPlanInfo *info)
{
	int			head[GPV_HEAD];
	List	   *l = NIL;

	head[GPV_N_OUTER_COLS] = info->n_outer_cols;
	head[GPV_SCHEME] = info->scheme;
	head[GPV_JOINTYPE] = info->jointype;
	head[GPV_FINGERPRINT] = info->fingerprint;
	head[GPV_SINGLE_MATCH] = info->single_match;
	head[GPV_N_FILTER] = info->n_filter;
	head[GPV_N_GATE] = info->n_gate;
	head[GPV_PARALLEL_INNER] = info->parallel_inner;
	head[GPV_OUTER_SCAN] = info->outer_scan;
	head[GPV_INNER_SCAN] = info->inner_scan;
	head[GPV_KEY_FILTER] = info->key_filter;
	head[GPV_SCHEME_AUTO] = info->scheme_auto;
	head[GPV_NKEYS] = info->nkeys;
	for (int i = 0; i < GPV_HEAD; i++)
		l = lappend(l, makeInteger(head[i]));
	for (int i = 0; i < info->nkeys; i++)
	{
		const GpuKeySpec *k = &info->keys[i];
		int			v[GKV_PER_KEY];

		v[GKV_OUTER_CONV] = k->outer_conv;
		v[GKV_INNER_CONV] = k->inner_conv;
		v[GKV_WIDTH] = k->width;
		v[GKV_OUTER_HASHFN] = (int) k->outer_hashfn;
		v[GKV_INNER_HASHFN] = (int) k->inner_hashfn;
		v[GKV_COLLATION] = (int) k->collation;
		for (int j = 0; j < GKV_PER_KEY; j++)
			l = lappend(l, makeInteger(v[j]));
	}
	/*
	 * auto's estimates: Floats, for the row counts exceed an int.  With a
	 * decimal point, or a parallel worker's nodeRead reads an Integer.
	 */
	if (info->scheme_auto)
	{
		l = lappend(l, makeFloat(psprintf("%.1f", info->est_rows)));
		l = lappend(l, makeFloat(psprintf("%.1f", info->est_distinct)));
		l = lappend(l, makeFloat(psprintf("%.1f", info->est_probes)));
	}
	return l;
}

static int
private_int(List *priv, int pos)
{
	return intVal(list_nth(priv, pos));
}

void
gpuhash_deform_private(List *priv, GpuJoinPlanInfo *info)
{
	info->n_outer_cols = private_int(priv, GPV_N_OUTER_COLS);
	info->scheme = private_int(priv, GPV_SCHEME);
	info->jointype = private_int(priv, GPV_JOINTYPE);
	info->fingerprint = private_int(priv, GPV_FINGERPRINT) != 0;
	info->single_match = private_int(priv, GPV_SINGLE_MATCH) != 0;
	info->n_filter = private_int(priv, GPV_N_FILTER);
	info->n_gate = private_int(priv, GPV_N_GATE);
	info->parallel_inner = private_int(priv, GPV_PARALLEL_INNER) != 0;
	info->outer_scan = private_int(priv, GPV_OUTER_SCAN) != 0;
	info->inner_scan = private_int(priv, GPV_INNER_SCAN) != 0;
	info->key_filter = private_int(priv, GPV_KEY_FILTER) != 0;
	info->scheme_auto = private_int(priv, GPV_SCHEME_AUTO) != 0;
	info->nkeys = private_int(priv, GPV_NKEYS);
	Assert(list_length(priv) == GPV_HEAD + GKV_PER_KEY * info->nkeys +
		   (info->scheme_auto ? GPV_N_ESTIMATES : 0));
	info->keys = palloc(sizeof(GpuKeySpec) * Max(info->nkeys, 1));
	for (int i = 0; i < info->nkeys; i++)
	{
		GpuKeySpec *k = &info->keys[i];
		int			base = GPV_HEAD + GKV_PER_KEY * i;

		k->outer_conv = (GpuKeyConv) private_int(priv, base + GKV_OUTER_CONV);
		k->inner_conv = (GpuKeyConv) private_int(priv, base + GKV_INNER_CONV);
		k->width = private_int(priv, base + GKV_WIDTH);
		k->outer_hashfn = (Oid) private_int(priv, base + GKV_OUTER_HASHFN);
		k->inner_hashfn = (Oid) private_int(priv, base + GKV_INNER_HASHFN);
		k->collation = (Oid) private_int(priv, base + GKV_COLLATION);
	}
	if (info->scheme_auto)
	{
		int			base = GPV_HEAD + GKV_PER_KEY * info->nkeys;

		info->est_rows = floatVal(list_nth(priv, base));
		info->est_distinct = floatVal(list_nth(priv, base + 1));
		info->est_probes = floatVal(list_nth(priv, base + 2));
	}
}

/* CustomPath.custom_private, from its slots */
List *
gpuhash_form_path_private(List *hash_rinfos, List *other_rinfos, List *outer_keys,
						  List *inner_keys, const GpuJoinPlanInfo *info,
						  List *pushed_rinfos)
{
	List	   *l = NIL;

	for (int slot = 0; slot < GPP_N; slot++)
	{
		switch ((GpuPathPrivate) slot)
		{
			case GPP_HASH_RINFOS:
				l = lappend(l, hash_rinfos);
				break;
			case GPP_OTHER_RINFOS:
				l = lappend(l, other_rinfos);
				break;
			case GPP_OUTER_KEYS:
				l = lappend(l, outer_keys);
				break;
			case GPP_INNER_KEYS:
				l = lappend(l, inner_keys);
				break;
			case GPP_PLAN_INFO:
				l = lappend(l, gpuhash_form_private(info));
				break;
			case GPP_PUSHED_RINFOS:
				l = lappend(l, pushed_rinfos);
				break;
			case GPP_N:
				break;
		}
	}
	return l;
}

List *
gpuhash_path_private(List *priv, GpuPathPrivate slot)
{
	Assert(list_length(priv) == GPP_N);
	return (List *) list_nth(priv, slot);
}

/*
 * custom_exprs from its lists; sets info's n_filter and n_gate, which say
 * where the lists end.
 */
List *
gpuhash_form_exprs(GpuJoinPlanInfo *info, List *outer_keys, List *inner_keys,
				   List *join_qual, List *filter, List *gate)
{
	Assert(list_length(outer_keys) == info->nkeys &&
		   list_length(inner_keys) == info->nkeys);
	info->n_filter = list_length(filter);
	info->n_gate = list_length(gate);
	return list_concat(list_concat(list_concat(list_concat_copy(outer_keys, inner_keys),
											   join_qual),
								   filter),
					   gate);
}

/* One of custom_exprs' lists (a new list; its members are shared). */
List *
gpuhash_plan_exprs(List *custom_exprs, const GpuJoinPlanInfo *info, GpuPlanExprs which)
{
	int			n_join = list_length(custom_exprs) - 2 * info->nkeys -
		info->n_filter - info->n_gate;
	int			start[GPE_N + 1];

	start[GPE_OUTER_KEYS] = 0;
	start[GPE_INNER_KEYS] = info->nkeys;
	start[GPE_JOIN_QUAL] = 2 * info->nkeys;
	start[GPE_FILTER] = start[GPE_JOIN_QUAL] + n_join;
	start[GPE_GATE] = start[GPE_FILTER] + info->n_filter;
	start[GPE_N] = start[GPE_GATE] + info->n_gate;
	Assert(n_join >= 0 && start[GPE_N] == list_length(custom_exprs));
	return list_copy_head(list_copy_tail(custom_exprs, start[which]),
						  start[which + 1] - start[which]);
}

/* The join type as EXPLAIN names it. */
const char *
gpuhash_jointype_name(int jointype)
{
	if (jointype == GPUHASH_JOIN_RIGHT_SEMI)
		return "Right Semi";
	if (jointype == GPUHASH_JOIN_RIGHT_ANTI)
		return "Right Anti";
	switch ((JoinType) jointype)
	{
		case JOIN_INNER:
			return "Inner";
		case JOIN_LEFT:
			return "Left";
		case JOIN_FULL:
			return "Full";
		case JOIN_RIGHT:
			return "Right";
		case JOIN_SEMI:
			return "Semi";
		case JOIN_ANTI:
			return "Anti";
		default:
			return "?";
	}
}

/*-------------------------------------------------------------------------
 *
 * keys.c
 *	  Which join keys map exactly to 64 bits, and how; and the extended hash
 *	  functions that fingerprint every other hashable key.
 *
 * A key column maps exactly when its equality operator is one of
 * PostgreSQL's built-in equalities on integer-like types, whose equality is
 * equality of the widened integer value: int2/int4/int8 in any combination
 * (int2 = int8 matches as PostgreSQL's cross-type operator does), date,
 * timestamp, timestamptz, oid and bool.  When every key column of a join
 * maps exactly and they pack into 64 bits, the key is the values
 * themselves.  Otherwise every key column of any hashable type is hashed
 * with the extended hash function of its operator's hash opfamily (for each
 * side's own type, so cross-type operators hash alike); the executor
 * combines the hashes into a 64-bit fingerprint and rechecks the key
 * clauses after a match.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include "access/hash.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_type_d.h"
#include "utils/catcache.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/*
 * How a value of typid packs into a key exactly (its Datum widened as an
 * integer); false for types that do not.  The join's exact keys and the
 * aggregate's group keys share it.
 */
bool
gpuhash_conv_for_type(Oid typid, GpuKeyConv *conv)
{
	switch (typid)
	{
		case INT2OID:
			*conv = GPUKEY_INT16;
			return true;
		case INT4OID:
		case DATEOID:
			*conv = GPUKEY_INT32;
			return true;
		case INT8OID:
		case TIMEOID:
		case TIMESTAMPOID:
		case TIMESTAMPTZOID:
			*conv = GPUKEY_INT64;
			return true;
		case OIDOID:
			*conv = GPUKEY_UINT32;
			return true;
		case BOOLOID:
			*conv = GPUKEY_BOOL;
			return true;
		default:
			return false;
	}
}

int
gpuhash_conv_width(GpuKeyConv conv)
{
	switch (conv)
	{
		case GPUKEY_INT16:
			return 16;
		case GPUKEY_INT32:
		case GPUKEY_UINT32:
			return 32;
		case GPUKEY_INT64:
		case GPUKEY_HASH:
			return 64;
		case GPUKEY_BOOL:
			return 1;
	}
	return 64;
}

/*
 * Is opno an equality whose truth equals equality of the two sides'
 * widened values?  Checked on the operator's function, so a user-defined
 * operator that merely looks like `=` never qualifies.
 */
static bool
exact_equality(Oid opno)
{
	switch (get_opcode(opno))
	{
		case F_INT2EQ:
		case F_INT4EQ:
		case F_INT8EQ:
		case F_INT24EQ:
		case F_INT42EQ:
		case F_INT28EQ:
		case F_INT82EQ:
		case F_INT48EQ:
		case F_INT84EQ:
		case F_DATE_EQ:
		case F_TIMESTAMP_EQ:
		case F_OIDEQ:
		case F_BOOLEQ:
			return true;
		default:
			return false;
	}
}

/*
 * Fills *spec for a join clause `left opno right` whose outer side is the
 * left argument when outer_is_left.  False when the key cannot be encoded
 * exactly.
 */
bool
gpuhash_key_spec_for_op(Oid opno, bool outer_is_left, GpuKeySpec *spec)
{
	Oid			ltype,
				rtype;
	GpuKeyConv	lconv,
				rconv;

	if (!exact_equality(opno))
		return false;
	op_input_types(opno, &ltype, &rtype);
	if (!gpuhash_conv_for_type(ltype, &lconv) || !gpuhash_conv_for_type(rtype, &rconv))
		return false;

	/* one family per operator: no date = int4 or bool = int2 mixing */
	if ((lconv == GPUKEY_BOOL) != (rconv == GPUKEY_BOOL) ||
		(lconv == GPUKEY_UINT32) != (rconv == GPUKEY_UINT32) ||
		(ltype == DATEOID) != (rtype == DATEOID) ||
		((ltype == TIMESTAMPOID || ltype == TIMESTAMPTZOID) !=
		 (rtype == TIMESTAMPOID || rtype == TIMESTAMPTZOID)))
		return false;

	memset(spec, 0, sizeof(*spec));
	spec->outer_conv = outer_is_left ? lconv : rconv;
	spec->inner_conv = outer_is_left ? rconv : lconv;
	/* both sides in the wider type's range: packing into it is injective */
	spec->width = Max(gpuhash_conv_width(lconv), gpuhash_conv_width(rconv));
	return true;
}

/*
 * Fills *spec for a hashable join clause whose values cannot be used as
 * keys themselves (text, numeric, uuid, ...): each side is hashed by the
 * extended hash function its type has in the operator's hash opfamily, which
 * is what makes cross-type operators such as float4 = float8 hash equal
 * values alike.  False when the operator has no such pair of functions, or
 * compares under a non-deterministic collation (equal strings of different
 * bytes): those joins stay PostgreSQL's.
 */
bool
gpuhash_fingerprint_spec_for_op(Oid opno, Oid collation, bool outer_is_left,
								GpuKeySpec *spec)
{
	CatCList   *catlist;
	bool		found = false;

	if (OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return false;

	catlist = SearchSysCacheList1(AMOPOPID, ObjectIdGetDatum(opno));
	for (int i = 0; i < catlist->n_members && !found; i++)
	{
		Form_pg_amop aform = (Form_pg_amop) GETSTRUCT(&catlist->members[i]->tuple);
		Oid			lfn,
					rfn;

		if (aform->amopmethod != HASH_AM_OID || aform->amopstrategy != HTEqualStrategyNumber)
			continue;
		lfn = get_opfamily_proc(aform->amopfamily, aform->amoplefttype,
								aform->amoplefttype, HASHEXTENDED_PROC);
		rfn = get_opfamily_proc(aform->amopfamily, aform->amoprighttype,
								aform->amoprighttype, HASHEXTENDED_PROC);
		if (!OidIsValid(lfn) || !OidIsValid(rfn))
			continue;
		spec->outer_conv = spec->inner_conv = GPUKEY_HASH;
		spec->width = 64;
		spec->outer_hashfn = outer_is_left ? lfn : rfn;
		spec->inner_hashfn = outer_is_left ? rfn : lfn;
		spec->collation = collation;
		found = true;
	}
	ReleaseSysCacheList(catlist);
	return found;
}

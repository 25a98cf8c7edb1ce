/*
 * agg_states.c
 *		The partial states GpuPreAgg hands PostgreSQL's Finalize Aggregate.
 */
#include "postgres.h"

#include "agg_catalog.h"

Datum
gpuhash_agg_state_datum(const GpuAggSupport *s, const gh_agg_state *st,
						bool *isnull)
{
	elog(ERROR, "gpuhash: GPU aggregate states are not yet supported");
	return (Datum) 0;
}

Datum
gpuhash_agg_row_datum(const GpuAggSupport *s, const Datum *vals,
					  const bool *nulls, bool *isnull)
{
	elog(ERROR, "gpuhash: GPU aggregate states are not yet supported");
	return (Datum) 0;
}

Datum
gpuhash_agg_key_datum(uint8 conv, Oid type, int32 typmod, uint64 packed,
					  int shift, int width, bool *isnull)
{
	elog(ERROR, "gpuhash: GPU aggregate keys are not yet supported");
	return (Datum) 0;
}

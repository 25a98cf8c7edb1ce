/*
 * agg_catalog.c
 *		Which aggregates and group keys the GPU aggregate folds exactly.
 */
#include "postgres.h"

#include "agg_catalog.h"

bool
gpuhash_agg_supported(const Aggref *aggref, Index scanrelid,
					  GpuAggSupport *s, const char **why)
{
	*why = "GPU aggregates are not yet supported";
	return false;
}

bool
gpuhash_agg_key_supported(const Expr *expr, Index scanrelid,
						  uint8 *conv, uint8 *width, const char **why)
{
	*why = "GPU group keys are not yet supported";
	return false;
}

/*-------------------------------------------------------------------------
 *
 * info.c
 *	  gpuhash_info(): the GPUs this backend sees and what a GPU hash join in
 *	  this session would run on.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"

#include "fmgr.h"
#include "funcapi.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gpuhash_info);

#define INFO_COLS 10

static char *
version_text(int v)
{
	return v > 0 ? psprintf("%d.%d", v / 1000, (v % 1000) / 10) : NULL;
}

static const char *
session_device(void)
{
	switch (gpuhash_device_mode)
	{
		case GPUHASH_DEVICE_HOST:
			return "host";
		case GPUHASH_DEVICE_GPU:
			return gpuhash_gpu_usable(NULL) ? "gpu" : "error: no usable GPU";
		default:
			return gpuhash_gpu_usable(NULL) ? "gpu" : "none (PostgreSQL joins)";
	}
}

Datum
gpuhash_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *reason;
	int			driver,
				runtime;
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	gh_cuda_versions(&driver, &runtime);
	n = gpuhash_gpu_usable(&reason) ? gh_gpu_count() : 0;

	for (int i = 0; i < n; i++)
	{
		gh_gpu_info gi;
		Datum		values[INFO_COLS];
		bool		nulls[INFO_COLS] = {0};
		char	   *dv = version_text(driver),
				   *rv = version_text(runtime);

		if (gh_gpu_get_info(i, &gi) != GH_OK)
		{
			ereport(WARNING, (errmsg("gpuhash: GPU %d: %s", i, gh_last_error())));
			continue;
		}
		values[0] = Int32GetDatum(i);
		values[1] = CStringGetTextDatum(gi.name);
		values[2] = Int64GetDatum((int64) (gi.total_memory >> 20));
		values[3] = Int64GetDatum((int64) (gi.free_memory >> 20));
		values[4] = CStringGetTextDatum(psprintf("%d.%d", gi.cc_major, gi.cc_minor));
		values[5] = Int32GetDatum(gi.multiprocessors);
		if (dv)
			values[6] = CStringGetTextDatum(dv);
		else
			nulls[6] = true;
		if (rv)
			values[7] = CStringGetTextDatum(rv);
		else
			nulls[7] = true;
		values[8] = BoolGetDatum(i == gpuhash_gpu_ordinal &&
								 gpuhash_device_mode != GPUHASH_DEVICE_HOST);
		values[9] = CStringGetTextDatum(session_device());
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (n == 0)
	{
		/* one row that says why no GPU is in use */
		Datum		values[INFO_COLS] = {0};
		bool		nulls[INFO_COLS] = {true, false, true, true, true, true, false, false, false, false};
		char	   *rv = version_text(runtime);

		values[1] = CStringGetTextDatum(psprintf("no usable GPU: %s", reason));
		if (version_text(driver))
			values[6] = CStringGetTextDatum(version_text(driver));
		else
			nulls[6] = true;
		if (rv)
			values[7] = CStringGetTextDatum(rv);
		else
			nulls[7] = true;
		values[8] = BoolGetDatum(false);
		values[9] = CStringGetTextDatum(session_device());
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

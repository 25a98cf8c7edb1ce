/*-------------------------------------------------------------------------
 *
 * info.c
 *	  gpuhash_info(): the GPUs in use and what a GPU hash join in this
 *	  session would run on; with the GPU service, its state: staging memory
 *	  in use, join tables alive and the GPU memory they hold; and whether
 *	  this session's planner calls gpuhash's join hook.
 *
 * The service's state covers the whole cluster, other sessions' joins
 * included: as pg_stat_activity hides other sessions' details, only
 * superusers and roles with pg_monitor's privileges see it.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service.h"

#include "catalog/pg_authid.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(gpuhash_info);

#define INFO_COLS 20

static char *
version_text(int v)
{
	return v > 0 ? psprintf("%d.%d", v / 1000, (v % 1000) / 10) : NULL;
}

static const char *
session_device(void)
{
	switch (gpuhash_effective_device(NULL))
	{
		case GPUHASH_RUN_GPU:
			return "gpu";
		case GPUHASH_RUN_HOST:
			return "host";
		case GPUHASH_RUN_ERROR:
			return "error: no usable GPU";
		case GPUHASH_RUN_NATIVE:
			break;
	}
	return "none (PostgreSQL joins)";
}

static void
set_text(Datum *values, bool *nulls, int col, const char *text)
{
	if (text)
		values[col] = CStringGetTextDatum(text);
	else
		nulls[col] = true;
}

/* The service's columns (10-14), the same on every row; NULL unless shown. */
static void
service_columns(Datum *values, bool *nulls, bool shown)
{
	GhServiceStatus st;

	if (!shown)
	{
		for (int c = 10; c <= 14; c++)
			nulls[c] = true;
		return;
	}
	gpuhash_service_status(&st);
	if (!st.running)
	{
		set_text(values, nulls, 10, gpuhash_use_service ? "not running" : "not used (gpuhash.use_service is off)");
		for (int c = 11; c <= 14; c++)
			nulls[c] = true;
		return;
	}
	values[10] = CStringGetTextDatum(psprintf("running (pid %d, %s%s%s)", st.pid,
											  st.gpus > 0 ? "GPU" : "host twin",
											  st.pinned ? ", staging page-locked" : "",
											  st.pool_in_place ? ", pages read in place" : ""));
	values[11] = Int64GetDatum((int64) (st.staging_bytes >> 20));
	values[12] = Int64GetDatum((int64) (st.staging_in_use >> 20));
	values[13] = Int32GetDatum(st.tables_alive);
	values[14] = Int64GetDatum((int64) (st.device_bytes >> 20));
}

/*
 * A GPU's own columns: in_use (8), and what the service keeps on it
 * (16-18, shown as the service's state is) and its state (19).
 */
static void
gpu_columns(Datum *values, bool *nulls, int i, const gh_gpu_info *gi, bool via_service,
			bool shown)
{
	GhGpuUse	u;
	bool		host = gpuhash_device_mode == GPUHASH_DEVICE_HOST;

	if (via_service && gpuhash_service_gpu_use(i, &u))
	{
		values[8] = BoolGetDatum(!host && !u.failed);
		values[16] = Int32GetDatum(u.tables);
		values[17] = Int64GetDatum((int64) (u.bytes >> 20));
		values[18] = Int64GetDatum((int64) u.requests);
		for (int c = 16; c <= 18; c++)
			nulls[c] = !shown;
		values[19] = CStringGetTextDatum(u.failed ? psprintf("failed: %s", u.failure) :
										 "in use by the GPU service");
		return;
	}
	for (int c = 16; c <= 18; c++)
		nulls[c] = true;
	if (via_service)
	{
		values[8] = BoolGetDatum(false);
		nulls[19] = true;
		return;
	}
	/* without the service, a backend's tables go to one GPU */
	values[8] = BoolGetDatum(!host && gi->ordinal == gpuhash_local_gpu(gh_gpu_count()));
	values[19] = CStringGetTextDatum(DatumGetBool(values[8]) ? "in use by this backend" :
									 "not used by this backend");
}

Datum
gpuhash_info(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const char *reason;
	int			driver = 0,
				runtime = 0;
	bool		via_service = gpuhash_service_ready();
	bool		show_service = has_privs_of_role(GetUserId(), ROLE_PG_MONITOR);
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	if (!via_service)
		gh_cuda_versions(&driver, &runtime);
	n = !gpuhash_gpu_usable(&reason) ? 0 :
		via_service ? gpuhash_service_gpu_count() : gh_gpu_count();

	for (int i = 0; i < n; i++)
	{
		gh_gpu_info gi;
		Datum		values[INFO_COLS] = {0};
		bool		nulls[INFO_COLS] = {0};

		if (via_service ? !gpuhash_service_gpu_info(i, &gi, &driver, &runtime)
			: gh_gpu_get_info(i, &gi) != GH_OK)
		{
			ereport(WARNING, (errmsg("gpuhash: GPU %d: no information", i)));
			continue;
		}
		values[1] = CStringGetTextDatum(gi.name);
		values[2] = Int64GetDatum((int64) (gi.total_memory >> 20));
		values[3] = Int64GetDatum((int64) (gi.free_memory >> 20));
		values[4] = CStringGetTextDatum(psprintf("%d.%d", gi.cc_major, gi.cc_minor));
		values[5] = Int32GetDatum(gi.multiprocessors);
		set_text(values, nulls, 6, version_text(driver));
		set_text(values, nulls, 7, version_text(runtime));
		values[0] = Int32GetDatum(gi.ordinal);
		values[9] = CStringGetTextDatum(session_device());
		service_columns(values, nulls, show_service);
		values[15] = CStringGetTextDatum(gpuhash_join_hook_state());
		gpu_columns(values, nulls, i, &gi, via_service, show_service);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	if (n == 0)
	{
		/* one row that says why no GPU is in use */
		Datum		values[INFO_COLS] = {0};
		bool		nulls[INFO_COLS] = {true, false, true, true, true, true};

		values[1] = CStringGetTextDatum(psprintf("no usable GPU: %s", reason));
		if (via_service)
			gh_cuda_versions(&driver, &runtime);
		set_text(values, nulls, 6, version_text(driver));
		set_text(values, nulls, 7, version_text(runtime));
		values[8] = BoolGetDatum(false);
		values[9] = CStringGetTextDatum(session_device());
		service_columns(values, nulls, show_service);
		values[15] = CStringGetTextDatum(gpuhash_join_hook_state());
		for (int c = 16; c < INFO_COLS; c++)
			nulls[c] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

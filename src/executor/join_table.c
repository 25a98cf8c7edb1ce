/*-------------------------------------------------------------------------
 *
 * join_table.c
 *	  The join table's life.  Built over the kept keys with the plan's scheme
 *	  (gph -> fks -> linear when a scheme cannot place the keys), on the GPU
 *	  or the host twin: a GPU failure moves the join to the host twin with a
 *	  NOTICE, or is an ERROR when gpuhash.device is "gpu"; a GPU without room
 *	  for a batch's table splits the batch instead.  Then its row order, the
 *	  probes (split in halves when the GPU lacks room for a whole batch of
 *	  keys), and freeing; in the GPU service when it runs, in this process
 *	  otherwise.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "join_state.h"
#include "service.h"
#include "storage/ipc.h"

#include "access/htup_details.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "portability/instr_time.h"

/* Frees the join table, unless a parallel plan's leader owns it. */
void
gpuhash_free_table(GpuJoinState *gs)
{
	gs->table_version++;
	if (gs->owns_table)
		gpuhash_table_free(&gs->table);
	else
		memset(&gs->table, 0, sizeof(gs->table));
}

static void
gpu_failed(GpuJoinState *gs, const char *what)
{
	if (gpuhash_device_mode == GPUHASH_DEVICE_GPU)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: %s on the GPU failed: %s", what, gh_last_error())));
	ereport(NOTICE,
			(errmsg("gpuhash: %s on the GPU failed, this join continues on the host: %s",
					what, gh_last_error())));
	gs->stats.fallbacks++;
}

/*
 * A probe failed on one of the service's GPUs, which leaves that GPU out:
 * asked again, the probe goes to another.  False when there is no other.
 */
static bool
gpu_moved(GpuJoinState *gs)
{
	if (!gs->table.remote || gs->device != GH_DEVICE_GPU || gpuhash_service_gpu_count() < 2)
		return false;
	ereport(NOTICE,
			(errmsg("gpuhash: probing on a GPU failed, the probe moves to another GPU: %s",
					gh_last_error())));
	gs->stats.fallbacks++;
	return true;
}

static void
raise_build_error(gh_status st)
{
	ereport(ERROR,
			(errcode(st == GH_ERR_HOST_MEMORY ? ERRCODE_OUT_OF_MEMORY :
					 st == GH_ERR_TOO_LARGE ? ERRCODE_PROGRAM_LIMIT_EXCEEDED :
					 ERRCODE_INTERNAL_ERROR),
			 errmsg("gpuhash: could not build the join table: %s", gh_last_error())));
}

/*
 * Builds gs->table over the kept keys.  A GPU failure moves the build to the
 * host twin; a scheme that cannot place the keys within its retry budget
 * (a GPH cell of crafted keys can hold more keys than any bucket group)
 * gives way to the next scheme: gph -> fks -> linear, which always builds.
 * With may_split, a table the GPU has no memory for is not built (false):
 * the caller splits the batch and tries again on the GPU.
 */
static bool
build_table(GpuJoinState *gs, const GpuKeyParts *keys, gh_device device, bool may_split)
{
	gh_build_options opt;
	gh_status	st;

	gs->device = device;
	gs->scheme = gs->info.scheme;
	for (;;)
	{
		instr_time	t0;

		gpuhash_build_options(&opt, gs->device, gs->scheme);
		INSTR_TIME_SET_CURRENT(t0);
		st = gpuhash_table_build(&gs->table, &opt, keys, gs->table_owner_pid);
		gs->stats.table_ms += gpuhash_ms_since(t0);
		if (st == GH_OK)
		{
			GpuTableTimes *tt = &gs->stats.table_parts_ms;
			gh_table_info ti;

			/* a fresh table's figures are its build's alone */
			gpuhash_table_info(&gs->table, &ti);
			tt->ship_ms += gs->table.remote ? gs->table.svc.ship_ms : 0.0;
			tt->build_ms += ti.build_ms;
			tt->copy_ms += ti.transfer_ms;
			tt->sort_ms += ti.build_sort_ms;
			tt->hash_ms += ti.build_hash_ms;
			gs->stats.in_service = gs->table.remote;
			/* the service moved the table off a GPU that failed or had no room */
			if (gs->table.remote && gs->table.svc.note[0] != '\0')
			{
				ereport(NOTICE, (errmsg("gpuhash: %s", gs->table.svc.note)));
				gs->stats.fallbacks++;
			}
			return true;
		}
		if (st == GH_ERR_BUILD_FAILED && gs->scheme != GH_SCHEME_LINEAR)
		{
			ereport(NOTICE,
					(errmsg("gpuhash: %s could not place the join keys, using %s: %s",
							gh_scheme_name((gh_scheme) gs->scheme),
							gh_scheme_name(gs->scheme == GH_SCHEME_GPH ? GH_SCHEME_FKS : GH_SCHEME_LINEAR),
							gh_last_error())));
			gs->scheme = gs->scheme == GH_SCHEME_GPH ? GH_SCHEME_FKS : GH_SCHEME_LINEAR;
			continue;
		}
		if (st == GH_ERR_GPU_MEMORY && may_split && gs->device == GH_DEVICE_GPU)
			return false;
		if (gs->device == GH_DEVICE_GPU && st != GH_ERR_HOST_MEMORY && st != GH_ERR_TOO_LARGE)
		{
			gpu_failed(gs, "building the join table");
			gs->device = GH_DEVICE_HOST;
			continue;
		}
		raise_build_error(st);
	}
}

/*
 * The table's key-grouped rowid order: a probe's range [offset, offset +
 * count) indexes rows in this order.  A GPU failure here rebuilds the table
 * on the host twin (same order: the host twin builds the same layout).
 */
static const uint32 *
table_order(GpuJoinState *gs, const GpuKeyParts *keys)
{
	const uint32 *order = gpuhash_table_rowids(&gs->table, gs->inner_cxt);

	if (order == NULL)
	{
		gpu_failed(gs, "fetching the row order");
		gpuhash_free_table(gs);
		build_table(gs, keys, GH_DEVICE_HOST, false);
		order = gpuhash_table_rowids(&gs->table, gs->inner_cxt);
		if (order == NULL)
			raise_build_error(GH_ERR_HOST_MEMORY);
	}
	return order;
}

/* No inner column is read and no inner row marked: the row order is moot. */
static bool
order_needed(GpuJoinState *gs)
{
	return gs->n_inner_keep > 0 || gs->fill_inner;
}

/*
 * After a build: the table's row order (NULL when none is needed: a
 * count(*) or a semi/anti join reads no inner row) and its figures for
 * EXPLAIN ANALYZE.
 */
static const uint32 *
table_built(GpuJoinState *gs, const GpuKeyParts *keys)
{
	const uint32 *order;
	gh_table_info ti;

	order = order_needed(gs) ? table_order(gs, keys) : NULL;
	gpuhash_table_info(&gs->table, &ti);
	gs->stats.distinct_keys = ti.n_distinct;
	gs->stats.gpu_bytes = Max(gs->stats.gpu_bytes, ti.device_bytes);
	gs->stats.table_parts = Max(gs->stats.table_parts, ti.parts);
	return order;
}

/*
 * Builds the table over n keys (n > 0) and returns its row order, or NULL
 * (table_built).  Parallel plans reorder shared rows by it.
 */
const uint32 *
gpuhash_build_keys(GpuJoinState *gs, const GpuKeyParts *keys)
{
	gpuhash_free_table(gs);
	build_table(gs, keys, gpuhash_exec_device(), false);
	return table_built(gs, keys);
}

/*
 * Does a GPU table leave a quarter of gpuhash.max_gpu_memory for the probes'
 * keys and ranges?  (Without a budget the GPU itself says when it is full.)
 */
static bool
leaves_probe_room(GpuJoinState *gs)
{
	gh_table_info ti;
	size_t		budget = gpuhash_gpu_budget();

	if (gs->device != GH_DEVICE_GPU || budget == 0)
		return true;
	gpuhash_table_info(&gs->table, &ti);
	/* the budget is each GPU's: a partitioned table's parts each have it */
	return ti.device_bytes / Max(ti.parts, 1) <= budget / 4 * 3;
}

/* Reads this batch's inner rows and builds its table. */
void
gpuhash_build_inner(GpuJoinState *gs)
{
	instr_time	t0;
	GpuKeyParts keys;

	gpuhash_read_inner_rows(gs);
	/* a parallel join split while reading: the rows went to shared batches */
	if (gpuhash_split_writing(gs))
		return;
	INSTR_TIME_SET_CURRENT(t0);
	gpuhash_free_table(gs);

	/*
	 * A table the GPU has no room for (gpuhash.max_gpu_memory), or none
	 * left to probe it in: split further.
	 */
	while (gs->n_inner > 0)
	{
		bool		may_split = gs->hb.can_batch && gs->hb.grow_enabled;

		gpuhash_keys_one(&keys, gs->inner_keys_arr, gs->n_inner);
		if (build_table(gs, &keys, gpuhash_exec_device(), may_split))
		{
			if (!may_split || leaves_probe_room(gs))
				break;
			gpuhash_free_table(gs);
		}
		gpuhash_increase_batches(gs);
	}
	gpuhash_finish_inner(gs);
	if (gs->n_inner > 0)
	{
		gpuhash_keys_one(&keys, gs->inner_keys_arr, gs->n_inner);
		gpuhash_reorder_inner(gs, table_built(gs, &keys));
		if (gpuhash_keyfilter_wanted(gs))
		{
			/* the keys as reordered (the array before is gone) */
			gpuhash_keys_one(&keys, gs->inner_keys_arr, gs->n_inner);
			gpuhash_keyfilter_make(gs, gs->inner_cxt, gs->n_inner, &keys);
		}
	}
	gpuhash_keyfilter_start(gs);
	gpuhash_inner_matched_clear(gs);
	gs->stats.build_ms += gpuhash_ms_since(t0);
	if (gs->curbatch == 0)
	{
		/* batch 0's outer rows are read next, and spilled for this many batches */
		gpuhash_batches_outer_start(gs);
		/* a scan's figures: its batches together */
		gs->stats.inner_rows = 0;
		gs->stats.builds++;
	}
	gs->stats.inner_rows += gs->n_inner;
	gs->stats.hash_batches = Max(gs->stats.hash_batches, gs->nbatch);
	gs->stats.device = gs->device;
	gs->stats.built = true;
	gs->built = true;
}

/*
 * Probes n keys; a GPU without memory for all of them at once (a budget
 * that the table alone nearly fills) is asked for halves.
 */
static gh_status
probe_keys(GpuJoinState *gs, const uint64 *keys, int n, gh_range *ranges)
{
	gh_status	st = gpuhash_table_probe(&gs->table, keys, n, ranges);
	int			half = n / 2;

	if (st != GH_ERR_GPU_MEMORY || gs->device != GH_DEVICE_GPU || n < 256)
		return st;
	st = probe_keys(gs, keys, half, ranges);
	if (st == GH_OK)
		st = probe_keys(gs, keys + half, n - half, ranges + half);
	return st;
}

/*
 * Submits the batch's probe to the service without waiting (the pipeline,
 * probe_pipeline.c); a table in this process, or a service that cannot take it
 * now, is probed when the batch is waited for.
 */
void
gpuhash_probe_submit(GpuJoinState *gs, GpuProbeBatch *b)
{
	b->state = PB_FILLED;
	if (gs->table.remote &&
		gpuhash_svc_probe_submit(&gs->table.svc, b->keys, b->n, &b->ticket))
	{
		b->state = PB_IN_FLIGHT;
		gs->stats.probe_requests++;
	}
}

/* Gives up the batch's probe in flight; the batch is probed again when waited for. */
void
gpuhash_probe_abandon(GpuJoinState *gs, GpuProbeBatch *b)
{
	if (b->state != PB_IN_FLIGHT)
		return;
	gpuhash_svc_probe_abandon(&b->ticket);
	b->state = PB_FILLED;
}

/*
 * The batch's ranges: its probe in flight answered, or the batch probed now.
 * After a GPU failure the table is rebuilt on the host (the other batches in
 * flight are given up, to be probed again) and the batch probed there.
 */
void
gpuhash_probe_wait(GpuJoinState *gs, GpuProbeBatch *b)
{
	gh_status	st = GH_ERR_INVALID;
	gh_table_info before,
				after;
	uint64		requests = gs->table.svc.probe_requests;
	GpuKeyParts keys;

	gpuhash_table_info(&gs->table, &before);
	if (b->state == PB_IN_FLIGHT)
	{
		st = gpuhash_svc_probe_wait(&gs->table.svc, &b->ticket, b->ranges);
		b->state = PB_FILLED;
		if (st == GH_ERR_CUDA)
			gpu_moved(gs);
	}
	if (st != GH_OK)
		st = probe_keys(gs, b->keys, b->n, b->ranges);
	if (st == GH_ERR_CUDA && gpu_moved(gs))
		st = probe_keys(gs, b->keys, b->n, b->ranges);
	if (st != GH_OK && gpuhash_shares_table(gs))
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuhash: probing the shared join table of a parallel plan failed: %s",
						gh_last_error())));
	if (st != GH_OK && gs->device == GH_DEVICE_GPU)
	{
		gpu_failed(gs, "probing the join table");
		for (int i = 0; i < gs->pb_depth; i++)
			gpuhash_probe_abandon(gs, &gs->pb[i]);
		gpuhash_free_table(gs);
		gpuhash_keys_one(&keys, gs->inner_keys_arr, gs->n_inner);
		build_table(gs, &keys, GH_DEVICE_HOST, false);
		/* the kept rows are in this scheme's order already: normally a no-op */
		if (order_needed(gs))
			gpuhash_reorder_inner(gs, table_order(gs, &keys));
		gpuhash_table_info(&gs->table, &before);
		st = gpuhash_table_probe(&gs->table, b->keys, b->n, b->ranges);
	}
	if (st != GH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: probing the join table failed: %s", gh_last_error())));
	b->state = PB_READY;
	gpuhash_table_info(&gs->table, &after);
	gs->stats.probe_ms += after.probe_ms - before.probe_ms;
	gs->stats.transfer_ms += after.transfer_ms - before.transfer_ms;
	gs->stats.batches++;
	if (gs->table.remote)
		gs->stats.probe_requests += gs->table.svc.probe_requests - requests;
	gs->stats.outer_rows += b->n;
	gs->stats.device = gs->device;
}

/* ---------------------------------------------------------------------
 * Where a table lives: in the GPU service when it runs, else in this
 * process (device_choice.c decides GPU or host twin)
 * --------------------------------------------------------------------- */

/*
 * Service tables this process built for another owner (a parallel plan's
 * builder builds for the leader) and has not handed over yet.  A parallel
 * worker that leaves by FATAL may skip the memory-context cleanup that
 * would free them, and the owner's exit comes too late: this process frees
 * them at its exit.
 */
#define MAX_HELD 8
static GhRemoteTable held[MAX_HELD];
static int	n_held = 0;
static bool held_exit_set = false;

static void
free_held(int code, Datum arg)
{
	while (n_held > 0)
	{
		GpuTable	t;

		memset(&t, 0, sizeof(t));
		t.remote = true;
		t.svc = held[--n_held];
		gpuhash_svc_free(&t.svc);
	}
}

static void
unhold(const GhRemoteTable *r)
{
	for (int i = 0; i < n_held; i++)
	{
		if (held[i].id == r->id && held[i].generation == r->generation)
		{
			held[i] = held[--n_held];
			return;
		}
	}
}

/* The shared state of a parallel plan owns the table from now on. */
void
gpuhash_table_handed_over(const GpuTable *t)
{
	if (t->remote)
		unhold(&t->svc);
}

/* owner_pid: the backend whose exit frees a service table (0: this one) */
gh_status
gpuhash_table_build(GpuTable *t, const gh_build_options *opt, const GpuKeyParts *keys,
					int owner_pid)
{
	gh_status	st;

	memset(t, 0, sizeof(*t));
	if (!gpuhash_service_ready())
	{
		const uint64 *all = keys->nparts > 0 ? keys->keys[0] : NULL;
		uint64	   *joined = NULL;

		/* here the table is built from one array */
		if (keys->nparts > 1)
		{
			uint64		pos = 0;

			joined = MemoryContextAllocHuge(CurrentMemoryContext,
											sizeof(uint64) * Max(keys->total, 1));
			for (int p = 0; p < keys->nparts; p++)
			{
				memcpy(joined + pos, keys->keys[p], sizeof(uint64) * keys->n[p]);
				pos += keys->n[p];
			}
			all = joined;
		}
		if (opt->device == GH_DEVICE_HOST && gpuhash_host_partitions > 1)
			st = gh_build_partitioned(opt, NULL, gpuhash_host_partitions, all, keys->total, &t->local);
		else
			st = gh_build(opt, all, NULL, 4, keys->total, &t->local);
		if (joined)
			pfree(joined);
		return st;
	}
	t->remote = true;
	st = gpuhash_svc_build(opt, keys, owner_pid, &t->svc);
	if (st == GH_OK && owner_pid != 0 && owner_pid != MyProcPid && n_held < MAX_HELD)
	{
		/* after the client's exit callback, so this one runs first */
		if (!held_exit_set)
		{
			before_shmem_exit(free_held, (Datum) 0);
			held_exit_set = true;
		}
		held[n_held++] = t->svc;
	}
	return st;
}

/* The table's key-grouped row order; remote tables' order lands in cxt. */
const uint32 *
gpuhash_table_rowids(GpuTable *t, MemoryContext cxt)
{
	uint32	   *rows;

	if (!t->remote)
		return gh_sorted_rowids(t->local);
	rows = MemoryContextAllocHuge(cxt, sizeof(uint32) * Max(t->svc.n_rows, 1));
	if (gpuhash_svc_rowids(&t->svc, rows) != GH_OK)
	{
		pfree(rows);
		return NULL;
	}
	return rows;
}

gh_status
gpuhash_table_probe(GpuTable *t, const uint64 *keys, uint64 n, gh_range *ranges)
{
	uint64		total;

	if (t->remote)
		return gpuhash_svc_probe(&t->svc, keys, n, ranges);
	return gh_probe_ranges(t->local, keys, n, ranges, &total);
}

/*
 * Carried key columns for later levels of a chain (issue 14), in the
 * table's key-grouped order: keys[c * rows + p] for position p of
 * gpuhash_table_rowids().  Returns the status; the caller raises errors.
 */
gh_status
gpuhash_table_set_carried(GpuTable *t, const uint64 *keys, const uint8 *valid, int ncols)
{
	if (t->remote)
		return gpuhash_svc_set_carried(&t->svc, keys, valid, ncols);
	if (t->local == NULL)
	{
		gh_set_last_error("no join table to carry columns");
		return GH_ERR_INVALID;
	}
	return gh_set_carried_ordered(t->local, keys, valid, ncols);
}

/*
 * A chain probe over tables[l] for level l (levels[l].table is not read),
 * answered by windows as gh_chain_probe_window is.  The tables must all be
 * in this process or all in the GPU service: one request probes them
 * together.  Returns the status; the caller raises errors.
 */
gh_status
gpuhash_table_chain_probe(GpuTable *const *tables, const gh_chain_level *levels, int n_levels,
						  const uint64 *outer_keys, const uint8 *outer_valid, int n_outer_cols,
						  uint64 n, uint64 skip, uint32 *out_outer, uint32 *out_pos,
						  uint64 capacity, uint64 *total, uint64 *written, double *level_ms)
{
	gh_chain_level local[GH_MAX_CHAIN_LEVELS];
	GhRemoteTable *remote[GH_MAX_CHAIN_LEVELS];
	int			n_remote = 0;

	if (tables == NULL || levels == NULL || n_levels < 1 || n_levels > GH_MAX_CHAIN_LEVELS)
	{
		gh_set_last_error("a chain probe needs 1 to " CppAsString2(GH_MAX_CHAIN_LEVELS) " levels");
		return GH_ERR_INVALID;
	}
	for (int l = 0; l < n_levels; l++)
	{
		if (tables[l] == NULL || !gpuhash_table_exists(tables[l]))
		{
			gh_set_last_error("a chain level has no join table");
			return GH_ERR_INVALID;
		}
		if (tables[l]->remote)
			remote[n_remote++] = &tables[l]->svc;
	}
	if (n_remote == n_levels)
		return gpuhash_svc_chain_probe(remote, levels, n_levels, outer_keys, outer_valid,
									   n_outer_cols, n, skip, out_outer, out_pos, capacity,
									   total, written, level_ms);
	if (n_remote > 0)
	{
		gh_set_last_error("a chain's join tables are partly in the GPU service and partly in this backend");
		return GH_ERR_INVALID;
	}
	for (int l = 0; l < n_levels; l++)
	{
		local[l] = levels[l];
		local[l].table = tables[l]->local;
	}
	return gh_chain_probe_window(local, n_levels, outer_keys, outer_valid, n_outer_cols, n, skip,
								 out_outer, out_pos, capacity, total, written, level_ms);
}

/*
 * The chain probe of gpuhash_table_chain_probe sent to the GPU service
 * without waiting, so that the caller reads its next pages meanwhile;
 * gpuhash_table_chain_wait reads the answer.  Every table must be the
 * service's (tables in this process are probed by
 * gpuhash_table_chain_probe).  Not GH_OK: nothing is out.
 */
gh_status
gpuhash_table_chain_submit(GpuTable *const *tables, const gh_chain_level *levels, int n_levels,
						   const uint64 *outer_keys, const uint8 *outer_valid, int n_outer_cols,
						   uint64 n, uint64 skip, uint64 capacity, GhChainTicket *tk)
{
	GhRemoteTable *remote[GH_MAX_CHAIN_LEVELS];

	tk->slot = NULL;
	if (tables == NULL || n_levels < 1 || n_levels > GH_MAX_CHAIN_LEVELS)
	{
		gh_set_last_error("a chain probe needs 1 to " CppAsString2(GH_MAX_CHAIN_LEVELS) " levels");
		return GH_ERR_INVALID;
	}
	for (int l = 0; l < n_levels; l++)
	{
		if (tables[l] == NULL || !tables[l]->remote || !gpuhash_table_exists(tables[l]))
		{
			gh_set_last_error("a chain level has no join table in the GPU service");
			return GH_ERR_INVALID;
		}
		remote[l] = &tables[l]->svc;
	}
	return gpuhash_svc_chain_submit(remote, levels, n_levels, outer_keys, outer_valid,
									n_outer_cols, n, skip, capacity, tk);
}

gh_status
gpuhash_table_chain_wait(GhChainTicket *tk, uint32 *out_outer, uint32 *out_pos, uint64 capacity,
						 uint64 *total, uint64 *written, double *level_ms)
{
	return gpuhash_svc_chain_wait(tk, out_outer, out_pos, capacity, total, written, level_ms);
}

/* Gives up a chain probe still out (an error before its wait); never throws. */
void
gpuhash_table_chain_abandon(GhChainTicket *tk)
{
	gpuhash_svc_chain_abandon(tk);
}

void
gpuhash_table_info(const GpuTable *t, gh_table_info *info)
{
	if (t->remote)
		*info = t->svc.info;
	else if (t->local)
		gh_table_get_info(t->local, info);
	else
		memset(info, 0, sizeof(*info));
}

bool
gpuhash_table_exists(const GpuTable *t)
{
	return t->remote ? t->svc.id != 0 : t->local != NULL;
}

/*
 * Frees the table; never waits and never fails, so error cleanup can call
 * it.  A local GPU table's memory goes back to the device, not just to
 * this backend's allocation pool, so others can use it.
 */
void
gpuhash_table_free(GpuTable *t)
{
	if (t->remote)
	{
		unhold(&t->svc);
		gpuhash_svc_free(&t->svc);
	}
	else if (t->local)
	{
		gh_table_info info;

		gh_table_get_info(t->local, &info);
		gh_free(t->local);
		if (info.device == GH_DEVICE_GPU)
			gh_gpu_trim(info.gpu_ordinal);
	}
	memset(t, 0, sizeof(*t));
}

/* The table is built (and probed as it is), or to be built again. */
void
gpuhash_table_set_built(GpuJoinState *gs, bool built)
{
	gs->built = built;
}

/* A table another participant built and published (parallel_build.c). */
void
gpuhash_table_adopt(GpuJoinState *gs, const GpuTable *table, gh_device device, int scheme)
{
	gs->table = *table;
	gs->device = device;
	gs->scheme = scheme;
}

/*-------------------------------------------------------------------------
 *
 * service_dim.c
 *	  A backend's side of dimensions in the GPU service (the inner rows of
 *	  an aggregate over a join): built through the staging chunks as join
 *	  tables are (DIM_BEGIN, DIM_APPEND of keys, values and heap, DIM_FINISH
 *	  on the device), named by id in PAGE_AGG requests (service_agg.c), and
 *	  freed through the free queue as tables are, so that error cleanup and
 *	  exit can free them.  The service's side is service_dim_serve.c.
 *
 * A dimension's id is its service generation (high 32 bits) and its
 * registry id (low 32 bits): an id of a service that restarted is known
 * stale without asking.
 *
 * What frees a dimension: gpuhash_svc_dim_free (the executor's end,
 * rescan and error cleanup); this backend's exit (an exit callback, for a
 * FATAL that skips the executor's cleanup); and, for a backend that died
 * without either, the service's owner sweep (service_registry.c).
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "client_internal.h"
#include "service_dim.h"

#include "miscadmin.h"
#include "storage/ipc.h"

#define DIM_ID(gen, id)		(((uint64) (gen) << 32) | (uint64) (id))

/*
 * Dimensions this backend holds, freed at its exit.  Beyond MAX_HELD_DIMS
 * (a query holds one per joined GpuPreAgg) the owner sweep frees the rest.
 */
#define MAX_HELD_DIMS 32
static uint64 held_dims[MAX_HELD_DIMS];
static int	n_held_dims = 0;
static bool dims_exit_set = false;

static void
free_held_dims(int code, Datum arg)
{
	while (n_held_dims > 0)
		gpuhash_svc_dim_free(held_dims[n_held_dims - 1]);
}

static void
hold_dim(uint64 dim_id)
{
	/* after the slots' exit callback (registered at the first claim): runs first */
	if (!dims_exit_set)
	{
		before_shmem_exit(free_held_dims, (Datum) 0);
		dims_exit_set = true;
	}
	if (n_held_dims < MAX_HELD_DIMS)
		held_dims[n_held_dims++] = dim_id;
}

static void
unhold_dim(uint64 dim_id)
{
	for (int i = 0; i < n_held_dims; i++)
		if (held_dims[i] == dim_id)
		{
			held_dims[i] = held_dims[--n_held_dims];
			return;
		}
}

/*
 * One of a dimension's arrays, or a piece of it, a staging chunk at a
 * time: bytes of data at byte at of the array.  Values (shift > 0) have
 * their by-reference offsets moved by shift on their way, in the chunk:
 * a piece whose heap lies past the heaps of the pieces before it.
 */
static gh_status
send_part(SvcSlot *s, uint32 gen, uint32 id, int part, const void *data, uint64 bytes,
		  uint64 at, uint64 shift)
{
	uint64		per = gpuhash_svc->chunk_bytes;
	gh_status	st = GH_OK;

	for (uint64 pos = 0; pos < bytes && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, bytes - pos);

		memcpy(chunk_of(s), (const char *) data + pos, cnt);
		if (shift > 0)
		{
			/* whole values: chunks and pieces are multiples of one */
			gh_agg_inval *v = (gh_agg_inval *) chunk_of(s);

			for (uint64 i = 0; i < cnt / sizeof(gh_agg_inval); i++)
				if (!v[i].null && v[i].len > 0)
					v[i].bits += shift;
		}
		s->type = REQ_DIM_APPEND;
		s->table_id = id;
		s->column = part;
		s->pos = at + pos;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, gen);
	}
	return st;
}

/*
 * The pieces' arrays where they go in the whole: keys and values end to
 * end, each heap at the next multiple of 8 after the heaps before it (the
 * gap sent as zeros), its values' offsets moved there.
 */
static gh_status
send_parts(SvcSlot *s, uint32 gen, uint32 id, const GhDimPart *parts, int nparts, int ninner)
{
	static const uint8 zeros[8] = {0};
	uint64		rows = 0,
				heap = 0;
	gh_status	st = GH_OK;

	for (int p = 0; p < nparts && st == GH_OK; p++)
	{
		const GhDimPart *d = &parts[p];
		uint64		pad = TYPEALIGN(8, heap) - heap;

		if (d->heap_len > 0 && pad > 0)
			st = send_part(s, gen, id, SVC_DIM_HEAP, zeros, pad, heap, 0);
		if (d->heap_len > 0)
			heap += pad;
		if (st == GH_OK)
			st = send_part(s, gen, id, SVC_DIM_KEYS, d->keys, d->n * sizeof(uint64),
						   rows * sizeof(uint64), 0);
		if (st == GH_OK)
			st = send_part(s, gen, id, SVC_DIM_VALS, d->vals,
						   d->n * (uint64) ninner * sizeof(gh_agg_inval),
						   rows * (uint64) ninner * sizeof(gh_agg_inval), heap);
		if (st == GH_OK)
			st = send_part(s, gen, id, SVC_DIM_HEAP, d->heap, d->heap_len, heap, 0);
		rows += d->n;
		heap += d->heap_len;
	}
	return st;
}

/* The rows and heap bytes of the pieces laid end to end, as send_parts lays them. */
static void
parts_size(const GhDimPart *parts, int nparts, uint64 *n, uint64 *heap_bytes)
{
	*n = *heap_bytes = 0;
	for (int p = 0; p < nparts; p++)
	{
		*n += parts[p].n;
		if (parts[p].heap_len > 0)
			*heap_bytes = TYPEALIGN(8, *heap_bytes) + parts[p].heap_len;
	}
}

/* Was st the service's going away (not a failure of the request)? */
static bool
service_went(gh_status st, uint32 gen)
{
	return st != GH_OK &&
		(pg_atomic_read_u32(&gpuhash_svc->ready) == 0 ||
		 pg_atomic_read_u32(&gpuhash_svc->generation) != gen);
}

bool
gpuhash_svc_dim_build_info(const uint64 *keys, uint64 n, const gh_agg_inval *vals,
						   int ninner, const uint8 *heap, uint64 heap_bytes,
						   gh_device device, uint64 *dim_id, GhSvcDimInfo *info)
{
	return gpuhash_svc_dim_build_for(MyProcPid, keys, n, vals, ninner, heap, heap_bytes,
									 device, dim_id, info);
}

bool
gpuhash_svc_dim_build_for(int owner_pid, const uint64 *keys, uint64 n,
						  const gh_agg_inval *vals, int ninner, const uint8 *heap,
						  uint64 heap_bytes, gh_device device, uint64 *dim_id,
						  GhSvcDimInfo *info)
{
	GhDimPart	part;

	if ((n > 0 && keys == NULL) || (n > 0 && ninner > 0 && vals == NULL) ||
		(heap_bytes > 0 && heap == NULL))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpuhash: invalid dimension (%d columns, " UINT64_FORMAT " rows)",
						ninner, n)));
	part.keys = keys;
	part.vals = vals;
	part.heap = heap;
	part.n = n;
	part.heap_len = heap_bytes;
	return gpuhash_svc_dim_build_parts(owner_pid, &part, 1, ninner, device, dim_id, info);
}

bool
gpuhash_svc_dim_build_parts(int owner_pid, const GhDimPart *parts, int nparts, int ninner,
							gh_device device, uint64 *dim_id, GhSvcDimInfo *info)
{
	GhRemoteTable t;
	uint32		gen;
	SvcSlot    *s;
	gh_status	st;
	instr_time	t0;
	uint64		n,
				heap_bytes;

	*dim_id = 0;
	parts_size(parts, nparts, &n, &heap_bytes);
	if (ninner < 0 || ninner > GH_AGG_MAX_INNER ||
		n > PG_UINT64_MAX / sizeof(gh_agg_inval) / GH_AGG_MAX_INNER)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("gpuhash: invalid dimension (%d columns, " UINT64_FORMAT " rows)",
						ninner, n)));
	if (!gpuhash_service_ready() ||
		(device == GH_DEVICE_GPU && gpuhash_service_gpu_count() == 0))
		return false;
	INSTR_TIME_SET_CURRENT(t0);
	gen = pg_atomic_read_u32(&gpuhash_svc->generation);
	if ((s = svc_try_claim_slot()) == NULL)
		return false;
	s->type = REQ_DIM_BEGIN;
	s->n = n;
	s->ninner = ninner;
	s->heap_bytes = heap_bytes;
	s->table_id = 0;			/* set by the service: no stale id to free */
	s->table_owner = owner_pid;
	st = svc_submit(s, gen);
	if (st != GH_OK)
	{
		svc_release_if_ours(s, gen, st);
		if (service_went(st, gen))
			return false;
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("gpuhash: the GPU service could not take the join's dimension ("
						UINT64_FORMAT " rows): %s", n, gh_last_error())));
	}
	memset(&t, 0, sizeof(t));
	t.id = s->table_id;
	t.generation = gen;

	/*
	 * A cancel while a chunk is on its way gives the request up, and the
	 * service drops the dimension with it (service_worker.c's discard).
	 */
	st = send_parts(s, gen, t.id, parts, nparts, ninner);
	if (info != NULL)
	{
		memset(info, 0, sizeof(*info));
		info->ship_ms = gpuhash_ms_since(t0);
	}
	if (st == GH_OK)
	{
		s->type = REQ_DIM_FINISH;
		s->table_id = t.id;
		memset(&s->opt, 0, sizeof(s->opt));
		s->opt.device = device;
		s->opt.max_device_bytes = device == GH_DEVICE_GPU ? gpuhash_gpu_budget() : 0;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, gen);
	}
	if (st == GH_OK && info != NULL)
	{
		info->rows = s->n;
		info->bytes = s->total;
		info->device = s->column;
		strlcpy(info->note, s->note, sizeof(info->note));
	}
	svc_release_if_ours(s, gen, st);
	if (st != GH_OK)
	{
		/* nothing is held after a failure */
		gpuhash_svc_free(&t);
		if (service_went(st, gen) || st == GH_ERR_NO_GPU)
		{
			elog(DEBUG1, "gpuhash: the GPU service did not build the join's dimension: %s",
				 gh_last_error());
			return false;
		}
		if (st == GH_ERR_GPU_MEMORY)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("gpuhash: no GPU has room for the join's dimension ("
							UINT64_FORMAT " rows, %d columns)", n, ninner),
					 errdetail("%s", gh_last_error()),
					 errhint("Raise gpuhash.max_gpu_memory, or run the query with gpuhash.device = host.")));
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: building the join's dimension in the GPU service failed: %s",
						gh_last_error())));
	}
	*dim_id = DIM_ID(gen, t.id);
	/* another owner frees it (its node's end, its exit or the sweep), never this one */
	if (owner_pid == MyProcPid)
		hold_dim(*dim_id);
	if (info != NULL)
		info->build_ms = gpuhash_ms_since(t0);
	return true;
}

bool
gpuhash_svc_dim_build(const uint64 *keys, uint64 n, const gh_agg_inval *vals,
					  int ninner, const uint8 *heap, uint64 heap_bytes,
					  gh_device device, uint64 *dim_id)
{
	return gpuhash_svc_dim_build_info(keys, n, vals, ninner, heap, heap_bytes, device,
									  dim_id, NULL);
}

void
gpuhash_svc_dim_free(uint64 dim_id)
{
	GhRemoteTable t;

	if (dim_id == 0)
		return;
	unhold_dim(dim_id);
	memset(&t, 0, sizeof(t));
	t.id = (uint32) dim_id;
	t.generation = (uint32) (dim_id >> 32);
	gpuhash_svc_free(&t);		/* a stale generation: gone already */
}

void
gpuhash_svc_dim_disown(uint64 dim_id)
{
	unhold_dim(dim_id);
}

int
gpuhash_svc_dims_alive(void)
{
	if (gpuhash_svc == NULL || pg_atomic_read_u32(&gpuhash_svc->ready) == 0)
		return -1;
	return gpuhash_svc->dims_alive;
}

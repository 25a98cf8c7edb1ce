/*-------------------------------------------------------------------------
 *
 * service_groups.c
 *	  A backend's side of resident groups in the GPU service: SET_BEGIN
 *	  makes a set for a GpuPreAgg's programs, its PAGE_AGG requests name it
 *	  (gpuhash_svc_agg_submit_set) so that their groups stay in the service,
 *	  SET_FINISH reads the survivors back a staging chunk at a time (any
 *	  range of them, so that several participants read at once), and the
 *	  set is freed through the free queue as tables and dimensions are, so
 *	  that error cleanup and exit can free it.  The service's side is
 *	  service_groups_serve.c.
 *
 * A set's id is its service generation (high 32 bits) and its registry id
 * (low 32 bits), as a dimension's.  What frees it: gpuhash_svc_groups_free
 * (the node's end, rescan and error cleanup), this backend's exit, and the
 * service's owner sweep for a backend that died without either.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "client_internal.h"
#include "service_groups.h"

#include "miscadmin.h"
#include "storage/ipc.h"

#define SET_ID(gen, id)		(((uint64) (gen) << 32) | (uint64) (id))

/* Sets this backend holds, freed at its exit (a query holds one per node). */
#define MAX_HELD_SETS 32
static uint64 held_sets[MAX_HELD_SETS];
static int	n_held_sets = 0;
static bool sets_exit_set = false;

static void
free_held_sets(int code, Datum arg)
{
	while (n_held_sets > 0)
		gpuhash_svc_groups_free(held_sets[n_held_sets - 1]);
}

static void
hold_set(uint64 set_id)
{
	if (!sets_exit_set)
	{
		before_shmem_exit(free_held_sets, (Datum) 0);
		sets_exit_set = true;
	}
	if (n_held_sets < MAX_HELD_SETS)
		held_sets[n_held_sets++] = set_id;
}

bool
gpuhash_svc_groups_begin(int owner_pid, const gh_page_scan *scan, const gh_agg_prog *agg,
						 gh_device device, uint64 cap_bytes, uint64 *set_id)
{
	uint32		gen;
	SvcSlot    *s;
	gh_status	st;
	uint32		id;

	*set_id = 0;
	if (!gpuhash_service_ready() ||
		(device == GH_DEVICE_GPU && gpuhash_service_gpu_count() == 0) ||
		gpuhash_svc->chunk_bytes < TYPEALIGN(64, sizeof(gh_page_scan)) + sizeof(gh_agg_prog))
		return false;
	gen = pg_atomic_read_u32(&gpuhash_svc->generation);
	if ((s = svc_try_claim_slot()) == NULL)
		return false;
	memcpy(chunk_of(s), scan, sizeof(gh_page_scan));
	memcpy(chunk_of(s) + TYPEALIGN(64, sizeof(gh_page_scan)), agg, sizeof(gh_agg_prog));
	s->type = REQ_SET_BEGIN;
	s->table_id = 0;			/* set by the service: no stale id to free */
	s->table_owner = owner_pid;
	memset(&s->opt, 0, sizeof(s->opt));
	s->opt.device = device;
	s->capacity = cap_bytes;
	st = svc_submit(s, gen);
	id = s->table_id;
	svc_release_if_ours(s, gen, st);
	if (st != GH_OK)
	{
		elog(DEBUG1, "gpuhash: the GPU service did not make resident groups: %s",
			 gh_last_error());
		return false;
	}
	*set_id = SET_ID(gen, id);
	if (owner_pid == MyProcPid)
		hold_set(*set_id);
	return true;
}

void
gpuhash_svc_groups_read(uint64 set_id, const gh_agg_having *having, bool apply, uint64 pos,
						gh_agg_groups *out, GhSvcGroupsInfo *info)
{
	uint32		gen = (uint32) (set_id >> 32);
	SvcSlot    *s;
	gh_status	st;
	int			na = out->naggs,
				kw = gh_agg_groups_key_words(out);
	uint64		room,
				n = 0;
	Size		o_nulls,
				o_states;

	if (!gpuhash_service_ready() || pg_atomic_read_u32(&gpuhash_svc->generation) != gen)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("gpuhash: the aggregate's resident groups are gone: the GPU service restarted")));
	room = set_answer_room(gpuhash_svc->chunk_bytes, na, kw);
	if (room == 0)
		elog(ERROR, "gpuhash: a staging chunk holds no group of %d aggregates", na);
	o_nulls = TYPEALIGN(64, SET_ANSWER_OFF + room * sizeof(uint64) * kw);
	o_states = TYPEALIGN(64, o_nulls + room);
	s = svc_claim_slot();
	if (having != NULL)
		memcpy(chunk_of(s), having, sizeof(gh_agg_having));
	else
		memset(chunk_of(s), 0, sizeof(gh_agg_having));
	s->type = REQ_SET_FINISH;
	s->table_id = 0;
	s->set_id = (uint32) set_id;
	s->set_apply = apply && having != NULL && having->nterms > 0;
	s->pos = pos;
	st = svc_submit(s, gen);
	/* a range from past the end answers nothing (another reader took the last) */
	if (st == GH_OK && (s->written > room || (s->written > 0 && s->pos + s->written > s->total)))
	{
		gh_set_last_error("GPU service: bad resident groups answer");
		st = GH_ERR_INVALID;
	}
	if (st == GH_OK)
	{
		n = s->written;
		gh_agg_groups_free(out);
		out->key_words = (int16) kw;
		out->keys = malloc(sizeof(uint64) * kw * Max(n, 1));
		out->nulls = malloc(Max(n, 1));
		out->states = malloc(sizeof(gh_agg_state) * Max(n, 1) * na);
		if (out->keys == NULL || out->nulls == NULL || out->states == NULL)
		{
			gh_set_last_error("no memory for resident groups");
			st = GH_ERR_HOST_MEMORY;
		}
		else
		{
			memcpy(out->keys, chunk_of(s) + SET_ANSWER_OFF, n * sizeof(uint64) * kw);
			memcpy(out->nulls, chunk_of(s) + o_nulls, n);
			memcpy(out->states, chunk_of(s) + o_states, n * na * sizeof(gh_agg_state));
			out->n_groups = n;
			info->resident = s->n;
			info->returned = s->total;
			info->removed = s->skip;
			info->applied = s->set_apply;
			info->device = s->column;
		}
	}
	svc_release_if_ours(s, gen, st);
	if (st != GH_OK)
	{
		gh_agg_groups_free(out);
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("gpuhash: reading the aggregate's resident groups failed: %s",
						gh_last_error())));
	}
}

uint64
gpuhash_svc_groups_room(int naggs, int key_words)
{
	if (!gpuhash_service_ready())
		return 1;
	return Max(set_answer_room(gpuhash_svc->chunk_bytes, naggs, key_words), 1);
}

void
gpuhash_svc_groups_free(uint64 set_id)
{
	GhRemoteTable t;

	if (set_id == 0)
		return;
	for (int i = 0; i < n_held_sets; i++)
		if (held_sets[i] == set_id)
		{
			held_sets[i] = held_sets[--n_held_sets];
			break;
		}
	memset(&t, 0, sizeof(t));
	t.id = (uint32) set_id;
	t.generation = (uint32) (set_id >> 32);
	gpuhash_svc_free(&t);		/* a stale generation: gone already */
}

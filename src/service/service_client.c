/*-------------------------------------------------------------------------
 *
 * service_client.c
 *	  A backend's side of the GPU service: it claims a request slot, writes
 *	  its request and data into the slot's staging chunk, and sleeps until
 *	  the service answers (the slots, probes in flight and frees through
 *	  the free queue are in service_slots.c).
 *
 * What a backend gives up (a cancelled request, a freed table) it waits
 * for, boundedly and without throwing, until the service has dropped it;
 * see service_internal.h for the protocol.
 *
 *-------------------------------------------------------------------------
 */
#include "gpuhash.h"
#include "service_internal.h"
#include "client_internal.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "port/pg_bitutils.h"
#include "portability/instr_time.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "utils/timestamp.h"

/*
 * Builds a table over the keys, sent a staging chunk at a time; a chunk
 * is filled from as many of the key parts as it takes.
 */
gh_status
gpuhash_svc_build(const gh_build_options *opt, const GpuKeyParts *keys, int owner_pid,
				  GhRemoteTable *t)
{
	uint32		gen = pg_atomic_read_u32(&gpuhash_svc->generation);
	uint64		per = gpuhash_svc->chunk_bytes / sizeof(uint64);
	uint64		n = keys->total;
	int			part = 0;
	uint64		in_part = 0;	/* keys of keys->keys[part] sent */
	SvcSlot    *s = svc_claim_slot();
	gh_status	st;
	instr_time	t0;

	INSTR_TIME_SET_CURRENT(t0);
	memset(t, 0, sizeof(*t));
	t->generation = gen;
	s->type = REQ_BUILD_BEGIN;
	s->opt = *opt;				/* a GPU build's keys go to its GPU as they come */
	s->n = n;
	s->table_id = 0;			/* set by the service: no stale id to free */
	s->table_owner = owner_pid ? owner_pid : MyProcPid;
	st = svc_submit(s, gen);
	if (st != GH_OK)
		return svc_release_if_ours(s, gen, st);
	t->id = s->table_id;
	t->n_rows = n;
	for (uint64 pos = 0; pos < n && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, n - pos);
		uint64	   *chunk = (uint64 *) chunk_of(s);

		for (uint64 filled = 0; filled < cnt;)
		{
			uint64		take = Min(cnt - filled, keys->n[part] - in_part);

			memcpy(chunk + filled, keys->keys[part] + in_part, take * sizeof(uint64));
			filled += take;
			in_part += take;
			if (in_part == keys->n[part])
			{
				part++;
				in_part = 0;
			}
		}
		s->type = REQ_BUILD_APPEND;
		s->table_id = t->id;
		s->pos = pos;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, gen);
	}
	t->ship_ms = gpuhash_ms_since(t0);
	if (st == GH_OK)
	{
		s->type = REQ_BUILD_FINISH;
		s->table_id = t->id;
		s->opt = *opt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, gen);
		t->info = s->info;
		strlcpy(t->note, s->note, sizeof(t->note));
	}
	svc_release_if_ours(s, gen, st);
	if (st != GH_OK)
		gpuhash_svc_free(t);
	return st;
}

gh_status
gpuhash_svc_rowids(GhRemoteTable *t, uint32 *rowids)
{
	uint64		per = gpuhash_svc->chunk_bytes / sizeof(uint32);
	SvcSlot    *s = svc_claim_slot();
	gh_status	st = GH_OK;

	for (uint64 pos = 0; pos < t->n_rows && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, t->n_rows - pos);

		s->type = REQ_ROWIDS;
		s->table_id = t->id;
		s->pos = pos;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, t->generation);
		if (st == GH_OK)
			memcpy(rowids + pos, chunk_of(s), cnt * sizeof(uint32));
	}
	return svc_release_if_ours(s, t->generation, st);
}

/*
 * Probes n keys.  A batch larger than the slot's staging chunk
 * (gpuhash.staging_memory / SVC_SLOTS, 8 bytes a key) goes as several
 * requests, counted in t->probe_requests for EXPLAIN ANALYZE.
 */
gh_status
gpuhash_svc_probe(GhRemoteTable *t, const uint64 *keys, uint64 n, gh_range *ranges)
{
	uint64		per = gpuhash_svc->chunk_bytes / Max(sizeof(uint64), sizeof(gh_range));
	SvcSlot    *s = svc_claim_slot();
	gh_status	st = GH_OK;

	for (uint64 pos = 0; pos < n && st == GH_OK; pos += per)
	{
		uint64		cnt = Min(per, n - pos);

		memcpy(chunk_of(s), keys + pos, cnt * sizeof(uint64));
		s->type = REQ_PROBE;
		s->table_id = t->id;
		s->n = cnt;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		t->probe_requests++;
		st = svc_submit(s, t->generation);
		if (st == GH_OK)
		{
			memcpy(ranges + pos, chunk_of(s), cnt * sizeof(gh_range));
			t->info = s->info;
		}
	}
	return svc_release_if_ours(s, t->generation, st);
}

uint64
gpuhash_service_probe_capacity(void)
{
	if (!gpuhash_service_ready())
		return 0;
	return gpuhash_svc->chunk_bytes / Max(sizeof(uint64), sizeof(gh_range));
}

/*
 * Gives the table ncols carried key columns in its key-grouped order
 * (gh_set_carried_ordered): keys[c * n_rows + p], valid likewise or NULL.
 * They go in chunks of one column's keys and validity bytes into a buffer
 * in the service, which hands them to the table at FINISH.
 */
gh_status
gpuhash_svc_set_carried(GhRemoteTable *t, const uint64 *keys, const uint8 *valid, int ncols)
{
	uint64		per = gpuhash_svc->chunk_bytes / (sizeof(uint64) + (valid ? 1 : 0));
	SvcSlot    *s;
	gh_status	st;

	if (t->id == 0 || ncols < 0 || (ncols > 0 && t->n_rows > 0 && keys == NULL))
	{
		gh_set_last_error("invalid carried columns");
		return GH_ERR_INVALID;
	}
	s = svc_claim_slot();
	s->type = REQ_CARRY_BEGIN;
	s->table_id = t->id;
	s->ncols = ncols;
	s->has_valid = valid != NULL;
	st = svc_submit(s, t->generation);
	for (int c = 0; c < ncols && st == GH_OK; c++)
	{
		for (uint64 pos = 0; pos < t->n_rows && st == GH_OK; pos += per)
		{
			uint64		cnt = Min(per, t->n_rows - pos);
			uint64		cell = (uint64) c * t->n_rows + pos;

			memcpy(chunk_of(s), keys + cell, cnt * sizeof(uint64));
			if (valid)
				memcpy(chunk_of(s) + cnt * sizeof(uint64), valid + cell, cnt);
			s->type = REQ_CARRY_APPEND;
			s->table_id = t->id;
			s->column = c;
			s->pos = pos;
			s->n = cnt;
			pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
			st = svc_submit(s, t->generation);
		}
	}
	if (st == GH_OK)
	{
		s->type = REQ_CARRY_FINISH;
		s->table_id = t->id;
		pg_atomic_write_u32(&s->state, SLOT_CLAIMED);
		st = svc_submit(s, t->generation);
		if (st == GH_OK)
			t->info = s->info;	/* device_bytes now counts the columns */
	}
	return svc_release_if_ours(s, t->generation, st);
}

/*
 * Sends a probe of n outer rows through a chain of the service's tables
 * (tables[l] for level l; levels[l].table is not read) in one request,
 * asking for the window of combinations from skip that fits capacity;
 * gpuhash_svc_chain_wait() reads the answer.  n may be up to what
 * chain_layout lets into a chunk with room for one combination
 * (gpuhash_service_chain_rows() sizes batches so that as many combinations
 * as rows fit).  Not GH_OK: nothing is out.
 */
gh_status
gpuhash_svc_chain_submit(GhRemoteTable *const *tables, const gh_chain_level *levels,
						 int n_levels, const uint64 *outer_keys, const uint8 *outer_valid,
						 int n_outer_cols, uint64 n, uint64 skip, uint64 capacity,
						 GhChainTicket *tk)
{
	SvcChainLayout lay;
	uint64		cells = (uint64) Max(n_outer_cols, 0) * n;
	uint32		gen;
	SvcSlot    *s;
	SvcChainLevel *lv;
	gh_status	st;

	tk->slot = NULL;
	if (tables == NULL || levels == NULL || n_levels < 1 || n_levels > GH_MAX_CHAIN_LEVELS ||
		n_outer_cols < 1 || (n > 0 && outer_keys == NULL))
	{
		gh_set_last_error("invalid chain probe arguments");
		return GH_ERR_INVALID;
	}
	if (!chain_layout(gpuhash_svc->chunk_bytes, n_levels, n_outer_cols, n, outer_valid != NULL,
					  &lay))
	{
		gh_set_last_error("a chain probe's outer rows do not fit a staging chunk of the GPU service");
		return GH_ERR_TOO_LARGE;
	}
	gen = tables[0]->generation;
	for (int l = 0; l < n_levels; l++)
	{
		if (tables[l] == NULL || tables[l]->id == 0)
		{
			gh_set_last_error("a chain level has no join table");
			return GH_ERR_INVALID;
		}
		/* an id of an earlier service may name another table now */
		if (tables[l]->generation != gen)
			return svc_service_gone();
	}

	s = svc_claim_slot();
	lv = (SvcChainLevel *) chunk_of(s);
	for (int l = 0; l < n_levels; l++)
	{
		lv[l].table_id = tables[l]->id;
		lv[l].kind = levels[l].kind;
		lv[l].n_parts = levels[l].n_parts;
		memcpy(lv[l].part, levels[l].part, sizeof(lv[l].part));
	}
	if (cells > 0)
		memcpy(chunk_of(s) + lay.keys, outer_keys, cells * sizeof(uint64));
	if (cells > 0 && outer_valid != NULL)
		memcpy(chunk_of(s) + lay.valid, outer_valid, cells);
	s->type = REQ_CHAIN;
	s->table_id = tables[0]->id;
	s->n = n;
	s->ncols = n_outer_cols;
	s->n_levels = n_levels;
	s->has_valid = outer_valid != NULL;
	s->skip = skip;
	s->capacity = capacity;
	tk->answered = svc_nowait_busy();
	if (tk->answered)
	{
		/* another request is out: this one goes and is answered now */
		st = svc_submit(s, gen);
		if (st != GH_OK)
			return svc_release_if_ours(s, gen, st);
	}
	else if ((st = svc_submit_nowait(s, gen)) != GH_OK)
		return st;
	tk->slot = s;
	tk->generation = gen;
	tk->n = n;
	tk->n_levels = n_levels;
	tk->n_outer_cols = n_outer_cols;
	tk->has_valid = outer_valid != NULL;
	return GH_OK;
}

/*
 * Waits for the chain probe tk and copies its window of combinations out:
 * *written of them (at most capacity, as submitted), of *total.  The caller
 * reads the rest by skip += *written.  level_ms as gh_chain_probe_window's.
 */
gh_status
gpuhash_svc_chain_wait(GhChainTicket *tk, uint32 *out_outer, uint32 *out_pos, uint64 capacity,
					   uint64 *total, uint64 *written, double *level_ms)
{
	SvcSlot    *s = (SvcSlot *) tk->slot;
	SvcChainLayout lay;
	gh_status	st;

	*written = 0;
	if (s == NULL)
	{
		gh_set_last_error("no chain probe out");
		return GH_ERR_INVALID;
	}
	tk->slot = NULL;
	st = tk->answered ? svc_answer(s, tk->generation) : svc_wait(s, tk->generation);
	if (st == GH_OK &&
		!chain_layout(gpuhash_svc->chunk_bytes, tk->n_levels, tk->n_outer_cols, tk->n,
					  tk->has_valid, &lay))
	{
		gh_set_last_error("GPU service: bad chain probe answer");
		st = GH_ERR_INVALID;
	}
	if (st == GH_OK)
	{
		const uint32 *out = (const uint32 *) (chunk_of(s) + lay.out);
		uint64		stride = s->capacity;
		uint64		w = Min(s->written, capacity);

		if (w > 0)
		{
			memcpy(out_outer, out, w * sizeof(uint32));
			for (int l = 0; l < tk->n_levels; l++)
				memcpy(out_pos + l * capacity, out + (1 + l) * stride, w * sizeof(uint32));
		}
		*total = s->total;
		*written = w;
		for (int l = 0; level_ms != NULL && l < tk->n_levels; l++)
			level_ms[l] += s->level_ms[l];
	}
	return svc_release_if_ours(s, tk->generation, st);
}

/* Gives up the chain probe tk, if it is out (an error while it runs). */
void
gpuhash_svc_chain_abandon(GhChainTicket *tk)
{
	SvcSlot    *s = (SvcSlot *) tk->slot;

	if (s == NULL)
		return;
	tk->slot = NULL;
	if (tk->answered)
		(void) svc_release_if_ours(s, tk->generation, GH_OK);
	else
		svc_abandon_nowait(s);
}

/* A chain probe as one round trip: submitted, then waited for. */
gh_status
gpuhash_svc_chain_probe(GhRemoteTable *const *tables, const gh_chain_level *levels,
						int n_levels, const uint64 *outer_keys, const uint8 *outer_valid,
						int n_outer_cols, uint64 n, uint64 skip, uint32 *out_outer,
						uint32 *out_pos, uint64 capacity, uint64 *total, uint64 *written,
						double *level_ms)
{
	GhChainTicket tk;
	gh_status	st;

	if (written != NULL)
		*written = 0;
	if (total == NULL || written == NULL)
	{
		gh_set_last_error("invalid chain probe arguments");
		return GH_ERR_INVALID;
	}
	st = gpuhash_svc_chain_submit(tables, levels, n_levels, outer_keys, outer_valid,
								  n_outer_cols, n, skip, capacity, &tk);
	if (st != GH_OK)
		return st;
	return gpuhash_svc_chain_wait(&tk, out_outer, out_pos, capacity, total, written, level_ms);
}

/*
 * The most outer rows one chain request takes (n_levels levels, n_outer_cols
 * key columns with validity bytes) with room for as many combinations
 * behind them; 0 without a service.
 */
uint64
gpuhash_service_chain_rows(int n_outer_cols, int n_levels)
{
	SvcChainLayout lay;
	uint64		fixed = sizeof(SvcChainLevel) * Max(n_levels, 0) + 2 * sizeof(uint64);
	uint64		per_row = (uint64) Max(n_outer_cols, 0) * (sizeof(uint64) + 1) +
		sizeof(uint32) * (1 + Max(n_levels, 0));
	uint64		rows;

	if (!gpuhash_service_ready() || n_outer_cols < 1 || n_levels < 1 ||
		n_levels > GH_MAX_CHAIN_LEVELS || gpuhash_svc->chunk_bytes <= fixed)
		return 0;
	rows = Min((gpuhash_svc->chunk_bytes - fixed) / per_row, (uint64) UINT32_MAX - 1);
	/* the layout's alignment is within fixed; this only guards the sum */
	while (rows > 0 &&
		   (!chain_layout(gpuhash_svc->chunk_bytes, n_levels, n_outer_cols, rows, true, &lay) ||
			lay.room < rows))
		rows--;
	return rows;
}

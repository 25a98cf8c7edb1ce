/*-------------------------------------------------------------------------
 *
 * join_table.h
 *	  Who frees the join table and whose exit ends it in the service
 *	  (join_table.c owns the table): inline, as a split parallel join hands
 *	  the ownership over from below join_table.c (parallel_split.c, while
 *	  join_table.c reads the inner rows), with no call back up to it.
 *	  Included by join_state.h, after the state they set.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_JOIN_TABLE_H
#define GPUHASH_JOIN_TABLE_H

/*
 * Whether this node frees its table (not a parallel worker's adopted one;
 * a parallel builder's only until it publishes it).
 */
static inline void
gpuhash_table_set_owns(GpuJoinState *gs, bool owns)
{
	gs->owns_table = owns;
}

/* The backend whose exit ends the table's life in the service; 0: this one. */
static inline void
gpuhash_table_set_service_owner(GpuJoinState *gs, int pid)
{
	gs->table_owner_pid = pid;
}

#endif							/* GPUHASH_JOIN_TABLE_H */

/*-------------------------------------------------------------------------
 *
 * client_internal.h
 *	  Between a backend's request slots (service_slots.c) and its requests
 *	  (service_client.c).  Not for the service process.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUHASH_CLIENT_INTERNAL_H
#define GPUHASH_CLIENT_INTERNAL_H

#include "service_internal.h"

/* service_slots.c */
extern SvcSlot *svc_claim_slot(void);
extern SvcSlot *svc_try_claim_slot(void);
extern gh_status svc_submit(SvcSlot *s, uint32 generation);
extern gh_status svc_submit_nowait(SvcSlot *s, uint32 generation);
extern gh_status svc_wait(SvcSlot *s, uint32 generation);
extern gh_status svc_answer(SvcSlot *s, uint32 generation);
extern bool svc_nowait_busy(void);
extern void svc_abandon_nowait(SvcSlot *s);
extern gh_status svc_release_if_ours(SvcSlot *s, uint32 generation, gh_status st);
extern gh_status svc_service_gone(void);

#endif							/* GPUHASH_CLIENT_INTERNAL_H */

/*-------------------------------------------------------------------------
 *
 * agg_keys.c
 *	  The GPU aggregate's group key slots: how many bytes of the packed key
 *	  (cuda/gpuhash_agg.h: one word when every column fits 64 bits, else
 *	  GH_AGG_KEY_WORDS) each text, varchar or char(n) group column gets.
 *	  The planner and the executor both ask here with the same columns, so
 *	  they agree on the slots.
 *
 * A value longer than its slot refuses its page (the CPU reads it: exact,
 * never truncated), so a slot should hold the column's longest value: its
 * declared length n is in characters, up to n x the encoding's longest
 * character in bytes.  A key that fits one word stays narrow (one word to
 * hash and compare): every column its declared bytes where they fit 64
 * bits with the integer columns, else, where n bytes each fit, n bytes
 * (single-byte values fit, as the narrow keys always took them).  A wide
 * key gives every column its declared bytes where they fit; otherwise the bytes left by the integer columns are shared out in
 * two rounds, first up to n bytes each (a column of single-byte
 * characters, the common case, then fits whole), then up to n x the
 * longest character, each round filling the smallest wants first so that
 * no column takes more than an equal share of what the others leave.  A
 * column without a declared length wants TEXT_GUESS bytes in the first
 * round and all there is in the second.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <limits.h>

#include "mb/pg_wchar.h"

#include "agg_catalog.h"
#include "gpuhash_agg.h"

#define TEXT_GUESS	16			/* a text key's first-round want, in bytes */

/* Raises got[] towards want[] (text columns only: want > 0) within budget bytes. */
static void
fill(int n, const int *want, int *got, int *budget)
{
	for (;;)
	{
		int			hungry = 0,
					least = INT_MAX;

		for (int k = 0; k < n; k++)
			if (got[k] < want[k])
			{
				hungry++;
				least = Min(least, want[k] - got[k]);
			}
		if (hungry == 0 || *budget < hungry)
			break;

		/* every hungry column the same step: the smallest want's, or an equal share */
		least = Min(least, *budget / hungry);
		for (int k = 0; k < n; k++)
			if (got[k] < want[k])
			{
				got[k] += least;
				*budget -= least;
			}
	}
}

bool
gpuhash_agg_key_slots(int nkeys, const uint8 *conv, const int32 *typmod, int *bits)
{
	int			want1[GH_AGG_MAX_KEYS],
				want2[GH_AGG_MAX_KEYS],
				got[GH_AGG_MAX_KEYS];
	int			maxlen = pg_database_encoding_max_length();
	int			fixed = 0,
				all = 0,
				all1 = 0,
				budget;
	bool		any = false,
				declared = true;

	if (nkeys > GH_AGG_MAX_KEYS)
		return false;
	for (int k = 0; k < nkeys; k++)
	{
		int			chars;

		want1[k] = want2[k] = got[k] = 0;
		if (conv[k] != GH_AGG_KEY_BPCHAR && conv[k] != GH_AGG_KEY_TEXT)
		{
			fixed += bits[k];
			continue;
		}
		any = true;
		chars = typmod[k] >= (int32) VARHDRSZ ? typmod[k] - VARHDRSZ : -1;
		declared &= chars >= 1;
		want1[k] = chars >= 1 ? chars : TEXT_GUESS;
		want2[k] = chars >= 1 ? chars * maxlen : GH_AGG_KEY_MAX_BITS / 8;
		all += want2[k];
		all1 += want1[k];
	}
	if (fixed > GH_AGG_KEY_MAX_BITS)
		return false;
	if (!any)
		return true;
	if (fixed + 8 * all <= 64)
		memcpy(got, want2, sizeof(int) * nkeys);
	else if (declared && fixed + 8 * all1 <= 64)
		memcpy(got, want1, sizeof(int) * nkeys);
	else if (fixed + 8 * all <= GH_AGG_KEY_MAX_BITS)
		memcpy(got, want2, sizeof(int) * nkeys);
	else
	{
		budget = (GH_AGG_KEY_MAX_BITS - fixed) / 8;
		for (int k = 0; k < nkeys; k++)
			want1[k] = Min(want1[k], want2[k]);
		fill(nkeys, want1, got, &budget);
		fill(nkeys, want2, got, &budget);
	}
	for (int k = 0; k < nkeys; k++)
	{
		if (conv[k] != GH_AGG_KEY_BPCHAR && conv[k] != GH_AGG_KEY_TEXT)
			continue;
		if (got[k] < 1)
			return false;
		bits[k] = 8 * got[k];
	}
	return true;
}

/* Field helpers shared by several tables. */
#ifndef TPCH_FIELDS_H
#define TPCH_FIELDS_H

#include "dists.h"
#include "out.h"
#include "rng.h"
#include "text.h"

/* Phone "CC-AAA-BBB-CCCC" with country code = nation key + 10 (clause 4.2.2.9). */
static inline void out_phone(rng_t *r, int nation)
{
	int cc = nation + 10;
	int a = (int)rng_range(r, 100, 999);
	int b = (int)rng_range(r, 100, 999);
	int c = (int)rng_range(r, 1000, 9999);
	char *p = out_pos;

	p[0] = (char)('0' + cc / 10);
	p[1] = (char)('0' + cc % 10);
	p[2] = '-';
	p[3] = (char)('0' + a / 100);
	p[4] = (char)('0' + a / 10 % 10);
	p[5] = (char)('0' + a % 10);
	p[6] = '-';
	p[7] = (char)('0' + b / 100);
	p[8] = (char)('0' + b / 10 % 10);
	p[9] = (char)('0' + b % 10);
	p[10] = '-';
	p[11] = (char)('0' + c / 1000);
	p[12] = (char)('0' + c / 100 % 10);
	p[13] = (char)('0' + c / 10 % 10);
	p[14] = (char)('0' + c % 10);
	p[15] = '\t';
	out_pos += 16;
}

static inline void out_text(rng_t *r, int min, int max)
{
	int n;
	const char *t = text_pick(r, min, max, &n);

	out_mem(t, n);
}

static inline void out_vstring(rng_t *r, int min, int max)
{
	out_pos += vstring(r, min, max, out_pos);
	*out_pos++ = '\t';
}

/*
 * The columns CUSTOMER and SUPPLIER share (clause 4.2.3): key, name
 * "<prefix>%09d", address, nation key, phone, account balance.
 */
static inline void out_party(rng_t *r, const char *prefix, int64_t key)
{
	int nation;

	out_int(key);
	out_tag9(prefix, key);
	out_vstring(r, 10, 40);
	nation = (int)rng_range(r, 0, N_NATIONS - 1);
	out_int(nation);
	out_phone(r, nation);
	out_money(rng_range(r, -99999, 999999));
}

#endif

/* PART and PARTSUPP (clause 4.2.3). */
#include "dists.h"
#include "fields.h"
#include "tables.h"

/* Append a word and a separator to the current field. */
static void put_word(const char *w, char sep)
{
	size_t n = strlen(w);

	memcpy(out_pos, w, n);
	out_pos[n] = sep;
	out_pos += n + 1;
}

/* P_NAME: five distinct color words separated by spaces. */
static void out_part_name(rng_t *r)
{
	int pick[5];

	for (int i = 0; i < 5; i++) {
		int c, dup;

		do {
			c = (int)rng_range(r, 0, N_COLORS - 1);
			dup = 0;
			for (int j = 0; j < i; j++)
				dup |= pick[j] == c;
		} while (dup);
		pick[i] = c;
		put_word(colors[c], i < 4 ? ' ' : '\t');
	}
}

int64_t gen_part(const scale_t *s, int64_t first, int64_t last)
{
	rng_t r;

	for (int64_t i = first; i < last; i++) {
		int64_t key = i + 1;
		int m, n;

		rng_row(&r, s->seed, T_PART, (uint64_t)key);
		out_int(key);
		out_part_name(&r);
		m = (int)rng_range(&r, 1, 5);
		n = (int)rng_range(&r, 1, 5);
		memcpy(out_pos, "Manufacturer#", 13);
		out_pos[13] = (char)('0' + m);
		out_pos[14] = '\t';
		out_pos += 15;
		memcpy(out_pos, "Brand#", 6);
		out_pos[6] = (char)('0' + m);
		out_pos[7] = (char)('0' + n);
		out_pos[8] = '\t';
		out_pos += 9;
		put_word(type_s1[rng_range(&r, 0, 5)], ' ');
		put_word(type_s2[rng_range(&r, 0, 4)], ' ');
		put_word(type_s3[rng_range(&r, 0, 4)], '\t');
		out_int(rng_range(&r, 1, 50));
		put_word(container_s1[rng_range(&r, 0, 4)], ' ');
		put_word(container_s2[rng_range(&r, 0, 7)], '\t');
		out_money(retail_cents(key));
		out_text(&r, 5, 22);
		out_row_end();
		if ((i & (PROGRESS_EVERY - 1)) == 0)
			progress(i - first);
	}
	return last - first;
}

int64_t gen_partsupp(const scale_t *s, int64_t first, int64_t last)
{
	rng_t r;

	for (int64_t i = first; i < last; i++) {
		int64_t key = i + 1;

		rng_row(&r, s->seed, T_PARTSUPP, (uint64_t)key);
		for (int j = 0; j < 4; j++) {
			out_int(key);
			out_int(ps_suppkey(s, key, j));
			out_int(rng_range(&r, 1, 9999));
			out_money(rng_range(&r, 100, 100000));
			out_text(&r, 49, 198);
			out_row_end();
		}
		if ((i & (PROGRESS_EVERY - 1)) == 0)
			progress(i - first);
	}
	return 4 * (last - first);
}

/*
 * tpchgen: TPC-H data generator writing PostgreSQL COPY text to stdout.
 *
 *   tpchgen -s SF -T TABLE [-C CHUNKS -c CHUNK] [-S SEED] [-q | -v]
 *
 * A table can be split into CHUNKS independent parts (CHUNK = 1..CHUNKS);
 * the concatenation of all chunks equals the whole table.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dates.h"
#include "dists.h"
#include "out.h"
#include "tables.h"
#include "text.h"

#define DEFAULT_SEED 19920101

typedef struct {
	const char *name;
	gen_fn fn;
} table_def;

static const table_def table_defs[] = {
	{"region", gen_region},
	{"nation", gen_nation},
	{"supplier", gen_supplier},
	{"customer", gen_customer},
	{"part", gen_part},
	{"partsupp", gen_partsupp},
	{"orders", gen_orders},
	{"lineitem", gen_lineitem},
};

static int verbose = 1;		/* 0: quiet, 1: summary, 2: progress */
static int64_t prog_total;
static int prog_next_pct;
static const char *prog_label;

void progress(int64_t done)
{
	int pct;

	if (verbose < 2 || prog_total <= 0)
		return;
	pct = (int)(100 * done / prog_total);
	if (pct >= prog_next_pct) {
		fprintf(stderr, "tpchgen: %s %d%%\n", prog_label, pct);
		prog_next_pct = pct / 10 * 10 + 10;
	}
}

/* Generation units of a table: rows, parts for PARTSUPP, orders for LINEITEM. */
static int64_t table_units(const scale_t *s, gen_fn fn)
{
	if (fn == gen_region)
		return N_REGIONS;
	if (fn == gen_nation)
		return N_NATIONS;
	if (fn == gen_supplier)
		return s->n_supplier;
	if (fn == gen_customer)
		return s->n_customer;
	if (fn == gen_part || fn == gen_partsupp)
		return s->n_part;
	return s->n_orders;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tpchgen -s SF -T TABLE [-C CHUNKS -c CHUNK] [-S SEED] [-q|-v]\n"
		"  -s SF      scale factor, fractions allowed (default 1)\n"
		"  -T TABLE   region, nation, supplier, customer, part, partsupp,\n"
		"             orders or lineitem\n"
		"  -C CHUNKS  split the table into CHUNKS parts (default 1)\n"
		"  -c CHUNK   which part to write, 1..CHUNKS (default 1)\n"
		"  -S SEED    random seed (default %d)\n"
		"  -q         no messages on stderr; -v progress every 10%%\n"
		"Rows go to stdout in PostgreSQL COPY text format.\n",
		DEFAULT_SEED);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double sf = 1.0, t0;
	long chunks = 1, chunk = 1;
	unsigned long long seed = DEFAULT_SEED;
	const table_def *t = NULL;
	scale_t s;
	int64_t units, first, last, rows;
	char label[64], *end;
	int opt;

	while ((opt = getopt(argc, argv, "s:T:C:c:S:qvh")) != -1) {
		switch (opt) {
		case 's':
			sf = strtod(optarg, &end);
			if (*end || !(sf > 0)) {
				fprintf(stderr, "tpchgen: bad scale factor '%s'\n", optarg);
				return 2;
			}
			break;
		case 'T':
			for (size_t i = 0; i < sizeof(table_defs) / sizeof(table_defs[0]); i++)
				if (strcmp(optarg, table_defs[i].name) == 0)
					t = &table_defs[i];
			if (!t) {
				fprintf(stderr, "tpchgen: unknown table '%s'\n", optarg);
				return 2;
			}
			break;
		case 'C':
			chunks = strtol(optarg, &end, 10);
			break;
		case 'c':
			chunk = strtol(optarg, &end, 10);
			break;
		case 'S':
			seed = strtoull(optarg, &end, 10);
			break;
		case 'q':
			verbose = 0;
			break;
		case 'v':
			verbose = 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!t || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (chunks < 1 || chunk < 1 || chunk > chunks) {
		fprintf(stderr, "tpchgen: need 1 <= CHUNK <= CHUNKS\n");
		return 2;
	}
	if (scale_init(&s, sf, seed) != 0) {
		fprintf(stderr, "tpchgen: scale factor %g is too small\n", sf);
		return 2;
	}

	t0 = now();
	dates_init();
	text_init(seed);

	/* Chunk boundaries in generation units; the last chunk takes the rest. */
	units = table_units(&s, t->fn);
	first = (int64_t)((__int128)units * (chunk - 1) / chunks);
	last = (int64_t)((__int128)units * chunk / chunks);
	snprintf(label, sizeof(label), "%s %ld/%ld", t->name, chunk, chunks);
	prog_label = label;
	prog_total = last - first;

	rows = t->fn(&s, first, last);
	out_flush();

	if (verbose)
		fprintf(stderr, "tpchgen: %s: %lld rows in %.2f s\n", label,
			(long long)rows, now() - t0);
	return 0;
}

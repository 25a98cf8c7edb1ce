/* Grammar-based text pool for comments, and random v-strings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define POOL_SIZE (8u << 20)

typedef struct {
	const char *word;
	int weight;
} wword;

typedef struct {
	const wword *words;
	int n;
	int total;
} wlist;

/*
 * Word lists in the spirit of the specification's grammar; words that the
 * queries search for ("special", "requests", ...) are among the frequent ones.
 */
static const wword nouns[] = {
	{"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40},
	{"foxes", 20}, {"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20},
	{"instructions", 20}, {"dependencies", 10}, {"excuses", 10},
	{"platelets", 10}, {"asymptotes", 10}, {"courts", 5}, {"dolphins", 5},
	{"multipliers", 1}, {"sauternes", 1}, {"warthogs", 1}, {"frets", 1},
	{"dinos", 1}, {"attainments", 1}, {"somas", 1}, {"patterns", 1},
	{"forges", 1}, {"braids", 1}, {"hockey players", 1}, {"frays", 1},
	{"warhorses", 1}, {"dugouts", 1}, {"notornis", 1}, {"epitaphs", 1},
	{"pearls", 1}, {"tithes", 1}, {"waters", 1}, {"orbits", 1},
	{"gifts", 1}, {"sheaves", 1}, {"depths", 1}, {"sentiments", 1},
	{"decoys", 1}, {"realms", 1}, {"pains", 1}, {"grouches", 1},
	{"escapades", 1},
};

static const wword verbs[] = {
	{"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20},
	{"nag", 10}, {"use", 10}, {"boost", 10}, {"affix", 5}, {"detect", 5},
	{"integrate", 5}, {"maintain", 1}, {"nod", 1}, {"was", 1}, {"lose", 1},
	{"sublate", 1}, {"solve", 1}, {"thrash", 1}, {"promise", 1},
	{"engage", 1}, {"hinder", 1}, {"print", 1}, {"x-ray", 1}, {"breach", 1},
	{"eat", 1}, {"grow", 1}, {"impress", 1}, {"mold", 1}, {"poach", 1},
	{"serve", 1}, {"run", 1}, {"dazzle", 1}, {"snooze", 1}, {"doze", 1},
	{"unwind", 1}, {"kindle", 1}, {"play", 1}, {"hang", 1}, {"believe", 1},
	{"doubt", 1},
};

static const wword adjectives[] = {
	{"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20},
	{"furious", 1}, {"sly", 1}, {"careful", 1}, {"blithe", 1}, {"quick", 1},
	{"fluffy", 1}, {"slow", 1}, {"quiet", 1}, {"ruthless", 1}, {"thin", 1},
	{"close", 1}, {"dogged", 1}, {"daring", 1}, {"brave", 1},
	{"stealthy", 1}, {"permanent", 1}, {"enticing", 1}, {"idle", 1},
	{"busy", 1}, {"regular", 50}, {"final", 40}, {"ironic", 40},
	{"even", 30}, {"bold", 20}, {"silent", 10},
};

static const wword adverbs[] = {
	{"sometimes", 1}, {"always", 1}, {"never", 1}, {"furiously", 50},
	{"slyly", 50}, {"carefully", 50}, {"blithely", 40}, {"quickly", 30},
	{"fluffily", 20}, {"slowly", 1}, {"quietly", 1}, {"ruthlessly", 1},
	{"thinly", 1}, {"closely", 1}, {"doggedly", 1}, {"daringly", 1},
	{"bravely", 1}, {"stealthily", 1}, {"permanently", 1},
	{"enticingly", 1}, {"idly", 1}, {"busily", 1}, {"regularly", 1},
	{"finally", 1}, {"ironically", 1}, {"evenly", 1}, {"boldly", 1},
	{"silently", 1},
};

static const wword prepositions[] = {
	{"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50},
	{"after", 50}, {"against", 40}, {"along", 40}, {"alongside of", 30},
	{"among", 30}, {"around", 20}, {"at", 10}, {"atop", 1}, {"before", 1},
	{"behind", 1}, {"beneath", 1}, {"beside", 1}, {"besides", 1},
	{"between", 1}, {"beyond", 1}, {"by", 1}, {"despite", 1}, {"during", 1},
	{"except", 1}, {"for", 1}, {"from", 1}, {"in place of", 1},
	{"inside", 1}, {"instead of", 1}, {"into", 1}, {"near", 1}, {"of", 1},
	{"on", 1}, {"outside", 1}, {"over", 1}, {"past", 1}, {"since", 1},
	{"through", 1}, {"throughout", 1}, {"to", 1}, {"toward", 1},
	{"under", 1}, {"until", 1}, {"up", 1}, {"upon", 1}, {"without", 1},
	{"with", 1}, {"within", 1},
};

static const wword auxiliaries[] = {
	{"do", 1}, {"may", 1}, {"might", 1}, {"shall", 1}, {"will", 1},
	{"would", 1}, {"can", 1}, {"could", 1}, {"should", 1}, {"ought to", 1},
	{"must", 1}, {"will have to", 1}, {"shall have to", 1},
	{"could have to", 1}, {"should have to", 1}, {"must have to", 1},
	{"need to", 1}, {"try to", 1},
};

static const wword terminators[] = {
	{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1},
};

#define WLIST(a) {a, (int)(sizeof(a) / sizeof(a[0])), 0}

static wlist l_noun = WLIST(nouns), l_verb = WLIST(verbs),
	l_adj = WLIST(adjectives), l_adv = WLIST(adverbs),
	l_prep = WLIST(prepositions), l_aux = WLIST(auxiliaries),
	l_term = WLIST(terminators);

static char *pool;
static size_t pool_len;

static void wl_init(wlist *l)
{
	l->total = 0;
	for (int i = 0; i < l->n; i++)
		l->total += l->words[i].weight;
}

static const char *wl_pick(wlist *l, rng_t *r)
{
	int x = (int)rng_range(r, 0, l->total - 1);
	int i = 0;

	while (x >= l->words[i].weight)
		x -= l->words[i++].weight;
	return l->words[i].word;
}

/* Append a word preceded by a space unless it starts the pool. */
static void put_word(const char *w)
{
	size_t n = strlen(w);

	if (pool_len + n + 1 >= POOL_SIZE)
		return;
	if (pool_len > 0)
		pool[pool_len++] = ' ';
	memcpy(pool + pool_len, w, n);
	pool_len += n;
}

/* Terminators attach to the preceding word. */
static void put_term(const char *t)
{
	size_t n = strlen(t);

	if (pool_len + n >= POOL_SIZE)
		return;
	memcpy(pool + pool_len, t, n);
	pool_len += n;
}

static void noun_phrase(rng_t *r)
{
	switch (rng_range(r, 0, 3)) {
	case 0:
		put_word(wl_pick(&l_noun, r));
		break;
	case 1:
		put_word(wl_pick(&l_adj, r));
		put_word(wl_pick(&l_noun, r));
		break;
	case 2:
		put_word(wl_pick(&l_adj, r));
		put_term(",");
		put_word(wl_pick(&l_adj, r));
		put_word(wl_pick(&l_noun, r));
		break;
	default:
		put_word(wl_pick(&l_adv, r));
		put_word(wl_pick(&l_adj, r));
		put_word(wl_pick(&l_noun, r));
		break;
	}
}

static void verb_phrase(rng_t *r)
{
	switch (rng_range(r, 0, 3)) {
	case 0:
		put_word(wl_pick(&l_verb, r));
		break;
	case 1:
		put_word(wl_pick(&l_aux, r));
		put_word(wl_pick(&l_verb, r));
		break;
	case 2:
		put_word(wl_pick(&l_verb, r));
		put_word(wl_pick(&l_adv, r));
		break;
	default:
		put_word(wl_pick(&l_aux, r));
		put_word(wl_pick(&l_verb, r));
		put_word(wl_pick(&l_adv, r));
		break;
	}
}

static void prep_phrase(rng_t *r)
{
	put_word(wl_pick(&l_prep, r));
	put_word("the");
	noun_phrase(r);
}

static void sentence(rng_t *r)
{
	switch (rng_range(r, 0, 4)) {
	case 0:
		noun_phrase(r);
		verb_phrase(r);
		break;
	case 1:
		noun_phrase(r);
		verb_phrase(r);
		prep_phrase(r);
		break;
	case 2:
		noun_phrase(r);
		verb_phrase(r);
		noun_phrase(r);
		break;
	case 3:
		noun_phrase(r);
		prep_phrase(r);
		verb_phrase(r);
		noun_phrase(r);
		break;
	default:
		noun_phrase(r);
		prep_phrase(r);
		verb_phrase(r);
		prep_phrase(r);
		break;
	}
	put_term(wl_pick(&l_term, r));
}

void text_init(uint64_t seed)
{
	rng_t r;

	wl_init(&l_noun);
	wl_init(&l_verb);
	wl_init(&l_adj);
	wl_init(&l_adv);
	wl_init(&l_prep);
	wl_init(&l_aux);
	wl_init(&l_term);

	pool = malloc(POOL_SIZE);
	if (!pool) {
		fprintf(stderr, "tpchgen: out of memory for the text pool\n");
		exit(1);
	}
	rng_row(&r, seed, 255, 0);
	pool_len = 0;
	while (pool_len < POOL_SIZE - 256)
		sentence(&r);
}

const char *text_pick(rng_t *r, int min, int max, int *len)
{
	int n = (int)rng_range(r, min, max);
	size_t off = (size_t)rng_range(r, 0, (int64_t)(pool_len - (size_t)n));

	*len = n;
	return pool + off;
}

static const char vchars[] =
	"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ, ";

int vstring(rng_t *r, int min, int max, char *dst)
{
	int n = (int)rng_range(r, min, max);
	uint64_t bits = 0;

	/* One 64-bit draw yields ten 6-bit characters. */
	for (int i = 0; i < n; i++) {
		if (i % 10 == 0)
			bits = rng_next(r);
		dst[i] = vchars[bits & 63];
		bits >>= 6;
	}
	return n;
}

/*
 * ORDERS and LINEITEM (clause 4.2.3). Both tables are produced from the same
 * per-order random stream, so an order's status and total price always agree
 * with the lines generated for it, whichever table a process writes.
 */
#include "dists.h"
#include "fields.h"
#include "tables.h"

#define MAX_LINES 7

typedef struct {
	int64_t partkey, suppkey;
	int64_t extprice;	/* hundredths */
	int quantity, discount, tax;	/* discount and tax in hundredths */
	int shipdate, commitdate, receiptdate;
	char returnflag, linestatus;
	int instruct, mode;
	const char *comment;
	int comment_len;
} line_t;

typedef struct {
	int64_t key, custkey, clerk;
	int64_t totalprice;	/* hundredths */
	int orderdate, priority, nlines;
	char status;
	const char *comment;
	int comment_len;
	line_t lines[MAX_LINES];
} order_t;

/*
 * Customers whose key is a multiple of 3 place no orders: such a draw moves
 * to the next key. The keys just after them thus get twice the orders, which
 * gives Q13 the two-humped order-count distribution of the reference data.
 */
static int64_t order_custkey(const scale_t *s, rng_t *r)
{
	int64_t k = rng_range(r, 1, s->n_customer);

	if (k % 3 == 0)
		k = k < s->n_customer ? k + 1 : k - 1;
	return k;
}

static void make_line(const scale_t *s, rng_t *r, int orderdate, line_t *l)
{
	l->partkey = rng_range(r, 1, s->n_part);
	l->suppkey = ps_suppkey(s, l->partkey, (int)rng_range(r, 0, 3));
	l->quantity = (int)rng_range(r, 1, 50);
	l->extprice = l->quantity * retail_cents(l->partkey);
	l->discount = (int)rng_range(r, 0, 10);
	l->tax = (int)rng_range(r, 0, 8);
	l->shipdate = orderdate + (int)rng_range(r, 1, 121);
	l->commitdate = orderdate + (int)rng_range(r, 30, 90);
	l->receiptdate = l->shipdate + (int)rng_range(r, 1, 30);
	/* Flags are relative to CURRENTDATE; returned lines are "R" or "A" at random. */
	if (l->receiptdate <= DAY_CURRENT)
		l->returnflag = rng_range(r, 0, 1) ? 'R' : 'A';
	else
		l->returnflag = 'N';
	l->linestatus = l->shipdate > DAY_CURRENT ? 'O' : 'F';
	l->instruct = (int)rng_range(r, 0, 3);
	l->mode = (int)rng_range(r, 0, 6);
	l->comment = text_pick(r, 10, 43, &l->comment_len);
}

static void make_order(const scale_t *s, int64_t idx, order_t *o)
{
	rng_t r;
	int nf = 0;

	rng_row(&r, s->seed, T_ORDERS, (uint64_t)idx);
	o->key = order_key(idx);
	o->custkey = order_custkey(s, &r);
	/* The last order date leaves room for shipping and receipt before ENDDATE. */
	o->orderdate = (int)rng_range(&r, DAY_START, DAY_END - 151);
	o->priority = (int)rng_range(&r, 0, 4);
	o->clerk = rng_range(&r, 1, s->n_clerks);
	o->comment = text_pick(&r, 19, 78, &o->comment_len);
	o->nlines = (int)rng_range(&r, 1, MAX_LINES);
	o->totalprice = 0;
	for (int i = 0; i < o->nlines; i++) {
		line_t *l = &o->lines[i];

		make_line(s, &r, o->orderdate, l);
		/* extprice * (1 + tax) * (1 - discount), rounded per line. */
		o->totalprice += (l->extprice * (100 + l->tax) * (100 - l->discount) + 5000) / 10000;
		nf += l->linestatus == 'F';
	}
	o->status = nf == o->nlines ? 'F' : nf == 0 ? 'O' : 'P';
}

int64_t gen_orders(const scale_t *s, int64_t first, int64_t last)
{
	order_t o;

	for (int64_t i = first; i < last; i++) {
		make_order(s, i, &o);
		out_int(o.key);
		out_int(o.custkey);
		*out_pos++ = o.status;
		*out_pos++ = '\t';
		out_money(o.totalprice);
		out_date(o.orderdate);
		out_str(priorities[o.priority]);
		out_tag9("Clerk#", o.clerk);
		out_int(0);	/* O_SHIPPRIORITY */
		out_mem(o.comment, o.comment_len);
		out_row_end();
		if ((i & (PROGRESS_EVERY - 1)) == 0)
			progress(i - first);
	}
	return last - first;
}

int64_t gen_lineitem(const scale_t *s, int64_t first, int64_t last)
{
	order_t o;
	int64_t rows = 0;

	for (int64_t i = first; i < last; i++) {
		make_order(s, i, &o);
		for (int j = 0; j < o.nlines; j++) {
			const line_t *l = &o.lines[j];

			out_int(o.key);
			out_int(l->partkey);
			out_int(l->suppkey);
			out_int(j + 1);
			out_money(l->quantity * 100);
			out_money(l->extprice);
			out_money(l->discount);
			out_money(l->tax);
			out_pos[0] = l->returnflag;
			out_pos[1] = '\t';
			out_pos[2] = l->linestatus;
			out_pos[3] = '\t';
			out_pos += 4;
			out_date(l->shipdate);
			out_date(l->commitdate);
			out_date(l->receiptdate);
			out_str(instructions[l->instruct]);
			out_str(ship_modes[l->mode]);
			out_mem(l->comment, l->comment_len);
			out_row_end();
		}
		rows += o.nlines;
		if ((i & (PROGRESS_EVERY - 1)) == 0)
			progress(i - first);
	}
	return rows;
}

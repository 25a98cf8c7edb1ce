#!/usr/bin/env python3
"""A deterministic generator of the Star Schema Benchmark's tables (P. O'Neil,
E. O'Neil, X. Chen, "Star Schema Benchmark", revision 3, 2009), written for
gpuhash: lineorder, customer, supplier, part and date, as COPY text (tab
separated) on stdout.

    ssb/gen.py -s SF -T TABLE [-S SEED] [-P I/N]

Row counts as the specification gives them: customer 30 000 x SF, supplier
2 000 x SF, part 200 000 x (1 + floor(log2 SF)) (200 000 x SF below SF 1, a
choice of this generator), date 7 years (1992-1998), lineorder about 6 M x SF
(orders of 1 to 7 lines, 1.5 M x SF orders).  The columns' domains are the
specification's: cities are a nation's name cut to 9 characters and a digit,
p_mfgr MFGR#1-5, p_category MFGR#11-55, p_brand1 MFGR#1101-5540, prices as
TPC-H's retail price of the part.  Only the Python standard library; the same
seed gives the same rows.  lineorder can be made in N parts (-P 1/N ... N/N,
one process each): its orders come in blocks of 10 000, each from a random
stream of its own, so the rows do not depend on how many parts make them."""

import argparse
import datetime
import math
import random
import re
import sys

NATIONS = [  # (name, region) as TPC-H's nation table
    ("ALGERIA", "AFRICA"), ("ARGENTINA", "AMERICA"), ("BRAZIL", "AMERICA"),
    ("CANADA", "AMERICA"), ("EGYPT", "MIDDLE EAST"), ("ETHIOPIA", "AFRICA"),
    ("FRANCE", "EUROPE"), ("GERMANY", "EUROPE"), ("INDIA", "ASIA"),
    ("INDONESIA", "ASIA"), ("IRAN", "MIDDLE EAST"), ("IRAQ", "MIDDLE EAST"),
    ("JAPAN", "ASIA"), ("JORDAN", "MIDDLE EAST"), ("KENYA", "AFRICA"),
    ("MOROCCO", "AFRICA"), ("MOZAMBIQUE", "AFRICA"), ("PERU", "AMERICA"),
    ("CHINA", "ASIA"), ("ROMANIA", "EUROPE"), ("SAUDI ARABIA", "MIDDLE EAST"),
    ("VIETNAM", "ASIA"), ("RUSSIA", "EUROPE"), ("UNITED KINGDOM", "EUROPE"),
    ("UNITED STATES", "AMERICA"),
]
SEGMENTS = ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"]
COLORS = ["almond", "antique", "aquamarine", "azure", "beige", "bisque", "black",
          "blanched", "blue", "blush", "brown", "burlywood", "burnished", "chartreuse",
          "chiffon", "chocolate", "coral", "cornflower", "cornsilk", "cream", "cyan",
          "dark", "deep", "dim", "dodger", "drab", "firebrick", "floral", "forest",
          "frosted", "gainsboro", "ghost", "goldenrod", "green", "grey", "honeydew",
          "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
          "light", "lime", "linen", "magenta", "maroon", "medium", "metallic",
          "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange",
          "orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff",
          "purple", "red", "rose", "rosy", "royal", "saddle", "salmon", "sandy",
          "seashell", "sienna", "sky", "slate", "smoke", "snow", "spring", "steel",
          "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white", "yellow"]
TYPE1 = ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"]
TYPE2 = ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"]
TYPE3 = ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"]
CONT1 = ["SM", "LG", "MED", "JUMBO", "WRAP"]
CONT2 = ["CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"]
PRIORITIES = ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECI", "5-LOW"]
SHIPMODES = ["REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July",
          "August", "September", "October", "November", "December"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
FIRST_DAY = datetime.date(1992, 1, 1)
LAST_DAY = datetime.date(1998, 12, 31)
# orders are dated up to 151 days before the last day, so that every commit
# date (up to 121 days later) is in the date table, as TPC-H's order dates
LAST_ORDER = LAST_DAY - datetime.timedelta(days=151)


def counts(sf):
    part = 200000 * (1 + int(math.floor(math.log2(sf)))) if sf >= 1 else 200000 * sf
    return {"customer": max(int(30000 * sf), 1), "supplier": max(int(2000 * sf), 1),
            "part": max(int(part), 1), "orders": max(int(1500000 * sf), 1)}


def city(rng, nation):
    return f"{nation[:9]:<9}{rng.randrange(10)}"


def phone(rng, n):
    return f"{n + 10}-{rng.randrange(100, 1000)}-{rng.randrange(100, 1000)}-{rng.randrange(1000, 10000)}"


def address(rng):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 ,")
                   for _ in range(rng.randrange(10, 26)))


def customer(rng, sf, out):
    for k in range(1, counts(sf)["customer"] + 1):
        n = rng.randrange(25)
        name, region = NATIONS[n]
        out.write(f"{k}\tCustomer#{k:09d}\t{address(rng)}\t{city(rng, name)}\t{name}\t{region}\t"
                  f"{phone(rng, n)}\t{rng.choice(SEGMENTS)}\n")


def supplier(rng, sf, out):
    for k in range(1, counts(sf)["supplier"] + 1):
        n = rng.randrange(25)
        name, region = NATIONS[n]
        out.write(f"{k}\tSupplier#{k:09d}\t{address(rng)}\t{city(rng, name)}\t{name}\t{region}\t"
                  f"{phone(rng, n)}\n")


def part(rng, sf, out):
    for k in range(1, counts(sf)["part"] + 1):
        m = rng.randrange(1, 6)
        cat = f"MFGR#{m}{rng.randrange(1, 6)}"
        brand = f"{cat}{rng.randrange(1, 41)}"
        name = " ".join(rng.sample(COLORS, 2))
        color = rng.choice(COLORS)
        ptype = f"{rng.choice(TYPE1)} {rng.choice(TYPE2)} {rng.choice(TYPE3)}"
        container = f"{rng.choice(CONT1)} {rng.choice(CONT2)}"
        out.write(f"{k}\t{name}\tMFGR#{m}\t{cat}\t{brand}\t{color}\t{ptype}\t"
                  f"{rng.randrange(1, 51)}\t{container}\n")


def season(d):
    if d.month == 12 or (d.month == 11 and d.day >= 15):
        return "Christmas"
    if d.month in (6, 7, 8):
        return "Summer"
    if d.month in (3, 4):
        return "Spring"
    if d.month in (9, 10):
        return "Fall"
    return "Winter"


def date(rng, sf, out):
    d = FIRST_DAY
    holidays = {(1, 1), (7, 4), (12, 25), (12, 31), (11, 11), (5, 30), (9, 1), (10, 12), (2, 14), (11, 25)}
    while d <= LAST_DAY:
        nxt = d + datetime.timedelta(days=1)
        dow = d.weekday()
        out.write(f"{d:%Y%m%d}\t{MONTHS[d.month - 1]} {d.day}, {d.year}\t{DAYS[dow]}\t"
                  f"{MONTHS[d.month - 1]}\t{d.year}\t{d.year * 100 + d.month}\t"
                  f"{MONTHS[d.month - 1][:3]}{d.year}\t{dow + 1}\t{d.day}\t"
                  f"{d.timetuple().tm_yday}\t{d.month}\t{(d.timetuple().tm_yday - 1) // 7 + 1}\t"
                  f"{season(d)}\t{int(dow == 6)}\t{int(nxt.month != d.month)}\t"
                  f"{int((d.month, d.day) in holidays)}\t{int(dow < 5)}\n")
        d = nxt


def price(partkey):
    """TPC-H's retail price of a part, in cents."""
    return 90000 + (partkey // 10) % 20001 + 100 * (partkey % 1000)


ORDER_BLOCK = 10000


def lineorder(seed, sf, out, part=1, parts=1):
    c = counts(sf)
    days = (LAST_ORDER - FIRST_DAY).days
    blocks = (c["orders"] + ORDER_BLOCK - 1) // ORDER_BLOCK
    for b in range(blocks * (part - 1) // parts, blocks * part // parts):
        rng = random.Random(f"{seed}/lineorder/{b}")
        for o in range(b * ORDER_BLOCK + 1, min((b + 1) * ORDER_BLOCK, c["orders"]) + 1):
            lineorder_one(rng, c, days, o, out)


def lineorder_one(rng, c, days, o, out):
    # sparse order keys, as TPC-H's: 8 of every 32
    okey = (o - 1) // 8 * 32 + (o - 1) % 8 + 1
    cust = rng.randrange(1, c["customer"] + 1)
    odate = FIRST_DAY + datetime.timedelta(days=rng.randrange(days + 1))
    prio = rng.choice(PRIORITIES)
    lines = []
    for ln in range(1, rng.randrange(1, 8) + 1):
        pk = rng.randrange(1, c["part"] + 1)
        qty = rng.randrange(1, 51)
        ext = qty * price(pk)
        disc = rng.randrange(0, 11)
        lines.append((ln, pk, rng.randrange(1, c["supplier"] + 1), qty, ext, disc,
                      ext * (100 - disc) // 100, 6 * price(pk) // 10, rng.randrange(0, 9),
                      odate + datetime.timedelta(days=rng.randrange(30, 122)),
                      rng.choice(SHIPMODES)))
    total = sum(l[4] for l in lines)
    for ln, pk, sk, qty, ext, disc, rev, cost, tax, cdate, mode in lines:
        out.write(f"{okey}\t{ln}\t{cust}\t{pk}\t{sk}\t{odate:%Y%m%d}\t{prio}\t0\t{qty}\t"
                  f"{ext}\t{total}\t{disc}\t{rev}\t{cost}\t{tax}\t{cdate:%Y%m%d}\t{mode}\n")


TABLES = {"customer": customer, "supplier": supplier, "part": part, "date": date,
          "lineorder": lineorder}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-s", type=float, default=1.0, help="scale factor (default 1)")
    p.add_argument("-T", choices=sorted(TABLES), required=True, help="table")
    p.add_argument("-S", type=int, default=19920101, help="seed")
    p.add_argument("-P", default="1/1", metavar="I/N", help="lineorder only: part I of N")
    a = p.parse_args(argv)
    if a.s <= 0:
        p.error("the scale factor must be positive")
    m = re.fullmatch(r"([0-9]+)/([0-9]+)", a.P)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        p.error("-P takes I/N with 1 <= I <= N")
    if a.T != "lineorder" and a.P != "1/1":
        p.error("only lineorder is made in parts")
    out = sys.stdout
    if a.T == "lineorder":
        lineorder(a.S, a.s, out, int(m.group(1)), int(m.group(2)))
    else:
        # one stream per table, so that a table's rows do not depend on the others'
        TABLES[a.T](random.Random(f"{a.S}/{a.T}"), a.s, out)
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

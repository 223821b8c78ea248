#!/usr/bin/env python3
"""Differential checks of lgrscan's readers and IDNA2008 layer against
independent implementations, on random inputs (see README.md here).

    check.py zone [SEED] [FILES]   master files: registered labels, NS targets, against dnspython
    check.py czds [SEED] [FILES]   CZDS-style dumps (any order, parallel chunks), as `zone`
    check.py csv  [SEED] [FILES]   CSV exports: the label column, against Python's csv
    check.py list [SEED] [FILES]   label lists: labels and their lines, against the list rules
    check.py idna [SEED] [LABELS]  U-labels and A-labels: IDNA2008 validity, against `idna`
    check.py file PATH ORIGIN      one master file (the root zone, a sample), as `zone`

Environment: LGRSCAN (default target/release/lgrscan), ENTRIES (zone, list:
most entries a file, default 40; a few hundred thousand cross the parallel
chunks). Exit 1 when a case disagrees; each is printed, its file kept.
"""
import csv
import io
import os
import random
import subprocess
import sys
import tempfile
import unicodedata

LGRSCAN = os.environ.get("LGRSCAN", "target/release/lgrscan")
WORK = tempfile.mkdtemp(prefix="lgrscan-differential-")

# An LGR whose repertoire is `q` alone: every other label is reported as
# an invalid finding, so the report lists the labels read.
Q_ONLY = """<?xml version="1.0" encoding="utf-8"?>
<lgr xmlns="urn:ietf:params:xml:ns:lgr-1.0">
  <meta><version>1</version><unicode-version>11.0.0</unicode-version></meta>
  <data><char cp="0071"/></data>
</lgr>
"""
LDH = "abcdefghijklmnopqrstuvwxyz0123456789"


def scan(path, *args):
    """The `invalid` rows of a scan (CSV report), and the run."""
    p = subprocess.run([LGRSCAN, "scan", path, "--format", "csv", "-q", *args],
                       capture_output=True, text=True)
    rows = [r for r in csv.DictReader(io.StringIO(p.stdout)) if r["kind"] == "invalid"]
    return rows, p


def q_only():
    path = os.path.join(WORK, "q-only.xml")
    with open(path, "w") as f:
        f.write(Q_ONLY)
    return path


# --- zone files -------------------------------------------------------------

def rand_label(r, n=12):
    s = "".join(r.choice(LDH) for _ in range(r.randint(1, n)))
    if len(s) > 2 and r.random() < 0.2:
        i = r.randint(1, len(s) - 2)
        s = s[:i] + "-" + s[i + 1:]
    return s


def spell(r, label):
    """A label as a master file may write it: upper case, `\\DDD` and `\\X`."""
    out = []
    for c in label:
        x = r.random()
        if x < 0.1:
            c = c.upper()
        if x < 0.03:
            out.append("\\%03d" % ord(c))
        elif x < 0.05 and c.isalpha():
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def wire_hex(name):
    """An absolute name in wire format (RFC 1035 §3.1), in hex."""
    labels = name.rstrip(".").split(".")
    return "".join("%02x%s" % (len(l), l.encode().hex()) for l in labels) + "00"


def rdata(r):
    t = r.choice(["NS", "NS", "NS", "A", "AAAA", "TXT", "TXT2", "MX", "DS", "GENERIC", "CAA",
                  "NS_NUMBER", "NS_WIRE"])
    target = "ns%d.%s.example.net." % (r.randint(1, 9), rand_label(r))
    return {
        # NS by its number, its RDATA in the generic form (RFC 3597 §5).
        "NS_NUMBER": (r.choice(["TYPE2", "type2"]), r.choice(["ns1", target.upper()])),
        "NS_WIRE": (r.choice(["NS", "TYPE2"]), "\\# %d %s" % (len(target) + 1, wire_hex(target))),
        "NS": ("NS", r.choice(["ns%d.example.net." % r.randint(1, 9), "ns1", "@",
                               "ns.%s" % spell(r, rand_label(r)), "NS2.Example.NET.",
                               "\\065b\\.c.example."])),
        "A": ("A", "192.0.2.%d" % r.randint(1, 254)),
        "AAAA": ("AAAA", "2001:db8::%x" % r.randint(1, 999)),
        "TXT": ("TXT", '"semi ; colon ( paren ) \\" quote"'),
        "TXT2": ("TXT", '( "one" ; comment ( here\n\t"two" )'),
        "MX": ("MX", "10 mx.example.net."),
        "DS": ("DS", "( 12345 8 2\n\t49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE ; c\n"
                     "\t49FD46E6C4B45C5549FD46E6 )"),
        "GENERIC": ("TYPE65280", "\\# 3 abcdef"),
        "CAA": ("CAA", '0 issue "ca.example.net; x=1"'),
    }[t]


def gen_include(r, n):
    path = os.path.join(WORK, "inc-%d.zone" % n)
    lines = []
    for _ in range(r.randint(1, 5)):
        t, rd = rdata(r)
        owner = r.choice([spell(r, rand_label(r)), "@", "ns." + rand_label(r)])
        lines.append("%s IN %s %s" % (owner, t, rd))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def gen_zone(r, entries):
    with_origin = r.random() < 0.7
    lines = ["$ORIGIN tld." if with_origin else "", "$TTL 3600"]
    soa_owner = r.choice(["@", "tld.", "TLD."]) if with_origin else "tld."
    lines.append(soa_owner + " IN SOA a.nic.tld. h.nic.tld. ( 1 ; serial\n  1800 900 604800 86400 )")
    lines.append("\tIN NS a.nic.tld.")
    origin, includes = "tld.", 0
    for _ in range(r.randint(1, entries)):
        x = r.random()
        if x < 0.05:
            lines.append(r.choice(["", "; a comment", "   ; indented comment", "\t"]))
        elif x < 0.08:
            sub = rand_label(r)
            origin = sub + ".tld."
            lines.append("$ORIGIN " + spell(r, sub) + ".tld.")
        elif x < 0.11:
            origin = "tld."
            lines.append("$ORIGIN tld.")
        elif x < 0.13:
            lines.append("$TTL %d" % r.randint(1, 99999))
        elif x < 0.15:
            includes += 1
            arg = r.choice(["", " tld.", " " + rand_label(r) + ".tld."])
            lines.append("$INCLUDE " + gen_include(r, includes) + arg)
        else:
            lines.append(gen_record(r, origin, lines[-1]))
    text = "\n".join(lines) + "\n"
    return text.replace("\n", "\r\n") if r.random() < 0.2 else text


def gen_czds(r, entries):
    """A CZDS-style dump: absolute owners, tabs, lower-case class and type,
    in any order, a few lines for the careful parser."""
    lines = ["tld.\t86400\tin\tsoa\ta.nic.tld. h.nic.tld. 1 1800 900 604800 86400",
             "tld.\t172800\tin\tns\ta.nic.tld."]
    names = [rand_label(r) for _ in range(max(1, entries // 2))]
    for _ in range(r.randint(1, entries)):
        name = r.choice(names) if r.random() < 0.3 else rand_label(r)
        owner = (name if r.random() < 0.9 else name.upper()) + ".tld."
        x = r.random()
        if x < 0.6:
            ty = "ns" if r.random() < 0.9 else "type2"
            lines.append("%s\t86400\tin\t%s\tns%d.example.net." % (owner, ty, r.randint(1, 9)))
        elif x < 0.75:
            lines.append("ns1.%s\t86400\tin\ta\t192.0.2.1" % owner)
        elif x < 0.85:
            lines.append("%s\t3600\tin\tds\t( 1 8 2\n\t49FD46E6C4B45C55D4AC69CBD3CD34AC1AFE51DE"
                         "49FD46E6C4B45C5549FD46E6 )" % owner)
        elif x < 0.9:
            lines.append("%s\t3600\tin\ttxt\t\"a ; b\"" % owner)
        else:
            lines.append("%s\t86400\tIN\tNS\tns.%s" % (owner, owner) + r.choice(["", " ", "\t"]))
    return "\n".join(lines) + "\n"


def gen_record(r, origin, before):
    o = r.random()
    # A blank owner repeats the one before: not after a directive, a blank
    # or comment line, where which owner it repeats is unclear.
    if o < 0.2 and before.strip() and not before.startswith(("$", ";")):
        owner = ""
    elif o < 0.25:
        owner = "@"
    elif o < 0.4:
        owner = spell(r, rand_label(r)) + "." + origin
    elif o < 0.5:
        owner = spell(r, rand_label(r)) + "." + spell(r, rand_label(r))
    elif o < 0.55:
        owner = r.choice(["ns", "in", "IN", "a", "txt", "soa", "ch", "*", "*.deep", "type1",
                          "class1", "1", "123"])
    else:
        owner = spell(r, rand_label(r))
    t, rd = rdata(r)
    if t == "A" and owner == "@":
        t, rd = "NS", "ns.example.net."
    ttl = r.choice([str(r.randint(0, 99999)), "1h", "2D", "1w2d3h4m5s", "30M"])
    cls = r.choice(["IN", "in", "In"])
    mid = r.choice([[ttl, cls], [cls, ttl], [ttl], [cls], []])
    sep = r.choice([" ", "\t", "  \t"])
    line = owner + sep + sep.join(mid + [t, rd])
    x = r.random()
    if x < 0.1:
        return line + " ; trailing ( comment"
    return line + r.choice([" ", "\t", " \t "]) if x < 0.2 else line


def zone_differs(path, origin, text=None):
    """Whether lgrscan and dnspython find other registered labels, or other
    NS targets of one, in the master file `path` (whose text, when given,
    is `text`) under `origin`."""
    import dns.name
    import dns.rdataclass
    import dns.rdatatype
    import dns.zone
    apex = dns.name.from_text(origin)
    if text is None:
        z = dns.zone.from_file(path, origin=origin, relativize=False, check_origin=False,
                               allow_include=True)
    else:
        z = dns.zone.from_text(text.replace("\r\n", "\n"), origin=origin, relativize=False,
                               check_origin=False, allow_include=True)
    # Each registered label with the set of its NS targets.
    want = {}
    for name, node in z.nodes.items():
        if len(name.labels) != len(apex.labels) + 1 or not name.is_subdomain(apex):
            continue
        label = name.labels[0].decode("latin-1").lower()
        ns = node.get_rdataset(dns.rdataclass.IN, dns.rdatatype.NS)
        targets = {rd.target.to_text().lower() for rd in ns} if ns else set()
        if set(label) != {"q"}:
            want[label] = targets
    rows, p = scan(path, "--lgr", q_only(), "--input-format", "zone", "--origin", origin,
                   "--check-ns")
    got = {row["alabel"]: set(filter(None, row["ns"].split(";"))) for row in rows}
    if p.returncode == 2 and "no registered labels" in p.stderr:
        got = {}
    elif p.returncode not in (0, 1):
        got = None
    if got == want:
        return False
    if got is None:
        print("%s: lgrscan failed: %s" % (path, p.stderr.strip()[:300]))
        return True
    for label in sorted(set(got) | set(want)):
        if got.get(label) != want.get(label):
            print("%s: %s: lgrscan %s, dnspython %s" % (path, label, got.get(label),
                                                         want.get(label)))
    return True


def random_zones(seed, files, gen, suffix):
    """`files` master files made by `gen(r, entries)`, each checked with
    `zone_differs` under `tld.`; the number that differ."""
    entries = int(os.environ.get("ENTRIES", "40"))
    bad = 0
    for s in range(seed, seed + files):
        text = gen(random.Random(s), entries)
        path = os.path.join(WORK, "case-%d.%s" % (s, suffix))
        with open(path, "w", newline="") as f:
            f.write(text)
        bad += zone_differs(path, "tld.", text)
    return bad


# --- CSV ---------------------------------------------------------------------

def csv_field(r, text, delim):
    if r.random() < 0.2 or any(c in text for c in (delim, '"', "\n", "\r")):
        return '"' + text.replace('"', '""') + '"'
    return " " + text + "  " if r.random() < 0.05 else text


def gen_csv(r):
    delim = r.choice([",", ";", "\t"])
    cols = ["label", "registered", "registrant", "note"]
    r.shuffle(cols)
    rows, labels = [delim.join(cols)], []
    for _ in range(r.randint(1, 60)):
        if r.random() < 0.05:
            rows.append("")
            continue
        label = rand_label(r, 10) if r.random() < 0.8 or not labels else r.choice(labels)
        label = label.upper() if r.random() < 0.1 else label
        values = {
            "label": csv_field(r, label, delim),
            "registered": r.choice(["", "2020-01-02", "2021-03-04T05:06:07Z", '"2019-12-31"']),
            "registrant": csv_field(r, r.choice(["R1", "a,b", "a;b", 'q"uote', "multi\nline",
                                                 "tab\there", ""]), delim),
            "note": csv_field(r, r.choice(["x", "y, z", "", "line1\r\nline2"]), delim),
        }
        rows.append(delim.join(values[c] for c in cols))
        labels.append(label)
    eol = r.choice(["\n", "\r\n"])
    return delim, eol.join(rows) + (eol if r.random() < 0.8 else "")


def csv_files(seed, files):
    lgr, bad = q_only(), 0
    for s in range(seed, seed + files):
        r = random.Random(s)
        delim, text = gen_csv(r)
        path = os.path.join(WORK, "case-%d.csv" % s)
        with open(path, "w", newline="") as f:
            f.write(text)
        rd = csv.reader(io.StringIO(text, newline=""), delimiter=delim)
        i, want = next(rd).index("label"), []
        for row in rd:
            label = row[i].strip().lower() if i < len(row) else ""
            if label and label not in want and set(label) != {"q"}:
                want.append(label)
        rows, p = scan(path, "--lgr", lgr, "--input-format", "csv")
        got = [row["alabel"] for row in rows] if p.returncode in (0, 1) else None
        if got is None or sorted(got) != sorted(want):
            bad += 1
            print("%s: lgrscan %s, csv %s: %s" % (path, got, want, p.stderr.strip()[:300]))
    return bad


# --- label lists ---------------------------------------------------------------

# White space around a list's label (and a CR), as the list reader has it.
LIST_WS = " \t\r\x0b\x0c"


def gen_list(r, entries):
    """A label list: plain labels alone on their lines (most), with white
    space around them, comments, a trailing dot, upper case, blank lines
    and lines of two fields; CRLF ends in some files."""
    lines, labels = [], []
    for _ in range(r.randint(1, entries)):
        x = r.random()
        label = r.choice(labels) if labels and r.random() < 0.1 else rand_label(r, 14)
        labels.append(label)
        if x < 0.6:
            lines.append(label)
        elif x < 0.65:
            lines.append(label.upper())
        elif x < 0.7:
            lines.append(label + ".")
        elif x < 0.8:
            lines.append(r.choice(["", " ", "\t"]) + label + r.choice(["", " ", "\t ", "\x0b"]))
        elif x < 0.85:
            lines.append(label + r.choice([" # note", "\t#", " #x y"]))
        elif x < 0.9:
            lines.append(r.choice(["", "   ", "# comment " + label, "  # indented"]))
        elif x < 0.95:
            lines.append(label + r.choice([" x", "\tNS", " a#b"]))
        else:
            lines.append(label + "#not-a-comment")
    eol = "\r\n" if r.random() < 0.2 else "\n"
    return eol.join(lines) + (eol if r.random() < 0.8 else "")


def list_labels(text):
    """The (label, line) of each label's first line, by the list rules."""
    want, seen = [], set()
    for n, line in enumerate(text.split("\n"), 1):
        token = line.strip(LIST_WS)
        if not token or token.startswith("#"):
            continue
        if any(c in LIST_WS for c in token):
            # A comment after white space, else a second field (malformed).
            cut = [i for i in range(len(token) - 1) if token[i] in LIST_WS and token[i + 1] == "#"]
            if cut:
                token = token[:cut[0]].rstrip(LIST_WS)
            if any(c in LIST_WS for c in token):
                continue
        label = (token[:-1] if token.endswith(".") else token).lower()
        if label not in seen:
            seen.add(label)
            if set(label) != {"q"}:
                want.append((label, n))
    return want


def list_files(seed, files):
    lgr, bad = q_only(), 0
    entries = int(os.environ.get("ENTRIES", "40"))
    for s in range(seed, seed + files):
        r = random.Random(s)
        text = gen_list(r, entries)
        path = os.path.join(WORK, "case-%d.txt" % s)
        with open(path, "w", newline="") as f:
            f.write(text)
        want = list_labels(text[:-1] if text.endswith("\n") else text)
        rows, p = scan(path, "--lgr", lgr, "--input-format", "list", "--on-malformed", "ignore")
        got = [(row["alabel"], int(row["line"])) for row in rows] if p.returncode in (0, 1) else None
        # A list of malformed lines only is an error (nothing to audit).
        if p.returncode == 2 and "no registered labels" in p.stderr:
            got = []
        if got is None or sorted(got) != sorted(want):
            bad += 1
            print("%s: lgrscan %s, rules %s: %s" % (path, str(got)[:300], str(want)[:300],
                                                  p.stderr.strip()[:300]))
    return bad


# --- IDNA2008 -------------------------------------------------------------------

POOLS = [
    "abcxyz019-",
    "\u00e9\u00fc\u00df\u0131\u00b7",                             # Latin, middle dot
    "\u0300\u0301\u0308\u0327",                                   # combining marks
    "\u200c\u200d",                                               # ZWNJ, ZWJ
    "\u0915\u0916\u094d\u093c\u0966\u0967\u0901",                 # Devanagari
    "\u0627\u0628\u062a\u0644\u064b\u0660\u0661\u06f0\u06f1\u0640",  # Arabic, both digits
    "\u05d0\u05d1\u05f3\u05f4\u05b0",                             # Hebrew, geresh
    "\u03b1\u03b2\u0375",                                         # Greek, keraia
    "\u30a2\u30fb\u3042\u4e00",                                   # katakana middle dot
    "\u1780\u1781\u17d2\u17e1",                                   # Khmer, coeng
    "\u0a95\u0acd\u0e01\u0e3a\u0f0b\u0f40",                       # Gujarati, Thai, Tibetan
]


def known(text):
    """Every code point assigned in Python's Unicode data: lgrscan's is newer
    (16.0), and a code point Python does not know is invalid to `idna`."""
    return all(unicodedata.category(c) != "Cn" for c in text)


def idna_valid(idna, label):
    try:
        if label.startswith("xn--"):
            return idna.encode(idna.decode(label), uts46=False).decode() == label
        idna.encode(label, uts46=False, strict=True)
        return True
    except (idna.IDNAError, UnicodeError, ValueError):
        return False


def gen_idna(r, seen):
    while True:
        if r.random() < 0.6:
            chars = []
            for _ in range(r.randint(1, 6)):
                if r.random() < 0.1:
                    c = chr(r.randint(0xa0, 0x2ffff))
                    while unicodedata.category(c) in ("Cn", "Cs", "Co"):
                        c = chr(r.randint(0xa0, 0x2ffff))
                    chars.append(c)
                else:
                    chars.append(r.choice(r.choice(POOLS)))
            label = "".join(chars)
            if label.isascii() or not label.isprintable() or "." in label or "#" in label:
                continue
        elif r.random() < 0.5:
            label = "xn--" + "".join(r.choice(LDH + "-") for _ in range(r.randint(1, 14)))
        else:
            u = "".join(r.choice("\u00e9\u00fc\u0915\u094d\u0627\u0644\u1780\u17d2abc1\u0300\u200d")
                        for _ in range(r.randint(1, 6)))
            label = "xn--" + u.encode("punycode").decode()
            if r.random() < 0.3:
                i = r.randrange(4, len(label))
                label = label[:i] + r.choice(LDH + "-") + label[i + 1:]
        # One form of a label only: a later form of the same label is a
        # duplicate, folded into the first without a row of its own.
        try:
            other = ("xn--" + label.encode("punycode").decode() if not label.startswith("xn--")
                     else label[4:].encode().decode("punycode"))
        except UnicodeError:
            other = label
        if label not in seen and other not in seen:
            seen.update((label, other))
            return label


def idna_labels(seed, n):
    import idna
    r, seen = random.Random(seed), set()
    labels = [gen_idna(r, seen) for _ in range(n)]
    path = os.path.join(WORK, "labels.list")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(labels) + "\n")
    rows, p = scan(path, "--input-format", "list", "--on-malformed", "ignore")
    if p.returncode not in (0, 1):
        print("scan failed: " + p.stderr.strip())
        return 1
    refused = {row["input"]: row["reason"] for row in rows if row["lgr"] == "IDNA2008"}
    bad = compared = valid = 0
    for label in labels:
        try:
            ulabel = label[4:].encode().decode("punycode") if label.startswith("xn--") else label
        except UnicodeError:
            ulabel = ""
        if not known(ulabel):
            continue
        compared += 1
        want, got = idna_valid(idna, label), label not in refused
        valid += want
        if want != got:
            bad += 1
            print("%s (%s): idna %s, lgrscan %s %s" % (
                label, " ".join("U+%04X" % ord(c) for c in ulabel), want, got,
                refused.get(label, "")))
    print("%d labels compared (%d valid), list %s" % (compared, valid, path))
    return bad


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "file" and len(sys.argv) == 4:
        bad = zone_differs(sys.argv[2], sys.argv[3])
        same = "the same registered labels and NS targets"
        print("%s: %s" % (sys.argv[2], "disagreement" if bad else same))
        sys.exit(1 if bad else 0)
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    run = {
        "zone": (lambda seed, n: random_zones(seed, n, gen_zone, "zone"), 200),
        "czds": (lambda seed, n: random_zones(seed, n, gen_czds, "czds"), 200),
        "csv": (csv_files, 500),
        "list": (list_files, 500),
        "idna": (idna_labels, 20000),
    }
    if what not in run:
        sys.exit(__doc__)
    f, default = run[what]
    bad = f(seed, n or default)
    print("%s: %d disagreements (files in %s)" % (what, bad, WORK))
    sys.exit(1 if bad else 0)


main()

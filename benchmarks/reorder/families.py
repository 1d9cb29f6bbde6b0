#!/usr/bin/env python3
"""The reorder sweep over every oneDNN layout family: writes families.batch and
summarizes the output of `memfmt reorder` run on it.

    families.py [--large-mib N] [--output PATH]   write the batch (default: families.batch here)
    families.py --list                            print the families, their tags and dims
    families.py summarize LOG [LOG ...]           tables of a run: per kind, direction, type, size

A family is a kind of tensor plus the inner blocks of its layout, spelled in the
kind's dim letters (`4i16o4i`): the tags of oneDNN's list (include/memfmt/tag/
onednn_names.inc) that block the same dims the same way, whatever their rank and
outer order (OIw4i16o4i, OIhw4i16o4i, OIdhw4i16o4i). The kinds:

    activations      n c [d h w], channels blocked           nChw16c
    batch-blocked    n c [d h w], batch blocked too           NChw16n16c
    weights          o i [d h w]                              OIhw4i16o4i, Ohwi16o
    grouped weights  g o i [d h w]                            gOIhw16i16o, Goihw16g
    RNN weights      l d i g o, l d i o                       ldgOI32o4i
    matmul           2-D: K x N matmul and inner-product weights  BA16a64b4a, OI8i32o2i
    batched matmul   3-D abstract tags, batch x K x N         aCB16c4b

Abstract tags that spell a named layout are left to the name; the other abstract
tags of 3 or more dims are read as weights (first dim blocked: o i [spatial]) or
grouped weights (g o i [spatial]). The four names whose layout is not what they spell
(OhwI32o, gIOhw2i8o16i2o, ...; docs/tags.md) are left out: their layouts come by
another name or their abstract tag.

One tag per family is its representative: of the kind's main rank (4-D; grouped and
RNN weights 5-D; matmul 2-D; batched matmul 3-D) or the nearest, with the outer order
of the plain layout when there is one, else the first in oneDNN's list. The other
layouts of a family (other ranks, other outer orders) are its members.

The plain counterpart of a tag has the same outer dim order and no blocks (nChw16c ->
nchw, OIhw4i16o4i -> oihw, IOhw16o16i -> iohw, gOIhw16o16i -> goihw, NChw16n16c ->
nchw), except for matmul and batched matmul, whose weights come as K x N rows: ab and
abc (BA16a64b4a -> ab).

Sizes: about 256 KiB of f32 source (inside L2) and about 64 MiB (--large-mib; from
memory where the last-level cache is smaller than source plus destination). The
small size leaves a blocked dim that does not fill its blocks (71 channels, 57 input
channels, N = 171), as real layers often do; the large one fills them (but blocks of
48). bf16 and s8 use the same dims (half and a quarter of the bytes).
"""

import argparse
import collections
import math
import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES_INC = os.path.join(HERE, "..", "..", "include", "memfmt", "tag", "onednn_names.inc")

# ------------------------------------------------------------------ the tag grammar
# A port of include/memfmt/tag/parse.hpp (docs/tags.md): the same families of named
# dims, tried in the same order, and the same oneDNN names whose layout is not what
# they spell.

TAG_FAMILIES = [("1-D", "x"), ("CNN activation", "ncdhw"), ("CNN weights", "goidhw"),
                ("RNN activation", "ldtnc"), ("RNN weights", "ldigo")]
QUIRKS = {"OhwI32o": "Acdb32a", "gOhwI32o": "aBdec32b",
          "gIOhw2i8o16i2o": "aBCde2c8b16c2b", "gIOdhw2i8o16i2o": "aBCdef2c8b16c2b"}
ABSTRACT = "abcdefghijkl"


class Tag:
    """A parsed tag: `order` lists the logical dims outermost first, `inner` the
    (size, logical dim) blocks outermost first, `letters` the letter of each
    logical dim in the tag's family (a, b, ... for abstract tags)."""

    def __init__(self, name, index):
        self.name, self.index = name, index
        text = QUIRKS.get(name, name)
        m = re.fullmatch(r"([A-Za-z]+)((?:\d+[a-z])*)", text)
        if not m:
            raise ValueError(f"tag '{name}' does not parse")
        outer = m.group(1).lower()
        blocks = [(int(s), c) for s, c in re.findall(r"(\d+)([a-z])", m.group(2))]
        in_family = [sum(c in letters for c in outer) for _, letters in TAG_FAMILIES]
        closest = max(range(len(TAG_FAMILIES)), key=lambda f: (in_family[f], -f))
        abstract_letters = sum(c in ABSTRACT for c in outer)
        all_abstract = abstract_letters == len(outer) and all(c in ABSTRACT for _, c in blocks)
        self.family = -1 if all_abstract or abstract_letters > in_family[closest] else closest
        if self.family < 0:
            self.letters = ABSTRACT[:len(outer)]
        else:
            self.letters = "".join(c for c in TAG_FAMILIES[self.family][1] if c in outer)
        self.ndims = len(outer)
        self.order = [self.letters.index(c) for c in outer]
        self.inner = [(s, self.letters.index(c)) for s, c in blocks]

    def blocked(self, d):
        return any(dim == d for _, dim in self.inner)

    def layout(self):
        """The canonical abstract tag: one string per layout (nChw16c -> aBcd16b)."""
        outer = "".join((ABSTRACT[d].upper() if self.blocked(d) else ABSTRACT[d]) for d in self.order)
        return outer + "".join(f"{s}{ABSTRACT[d]}" for s, d in self.inner)


def read_tags(path=NAMES_INC):
    with open(path) as f:
        names = re.findall(r"^MEMFMT_TAG_NAME\((\w+)\)", f.read(), re.M)
    # the names whose layout is not what they spell are left out: their abstract tags stand for them
    return [Tag(n, i) for i, n in enumerate(names) if n not in QUIRKS]


# ------------------------------------------------------------------ families

KINDS = ["activations", "batch-blocked", "weights", "grouped weights", "RNN weights", "matmul", "batched matmul"]
MAIN_RANK = {"activations": 4, "batch-blocked": 4, "weights": 4, "grouped weights": 5, "RNN weights": 5,
             "matmul": 2, "batched matmul": 3}
SPATIAL = {0: "", 1: "w", 2: "hw", 3: "dhw"}


def classify(tag, named_layouts):
    """(kind, dim letters) of a tag with inner blocks; None for an abstract tag that
    spells a named layout (the name stands for it)."""
    if tag.family == 1:
        return ("batch-blocked" if tag.blocked(tag.letters.index("n")) else "activations"), tag.letters
    if tag.family == 2:
        if tag.ndims == 2:
            return "matmul", "ab"
        return ("grouped weights" if "g" in tag.letters else "weights"), tag.letters
    if tag.family in (3, 4):
        return "RNN weights", tag.letters
    if tag.layout() in named_layouts:
        return None
    if tag.ndims == 2:
        return "matmul", "ab"
    if tag.blocked(0):
        return "weights", "oi" + SPATIAL[tag.ndims - 2]
    if tag.ndims == 3:
        return "batched matmul", "abc"
    return "grouped weights", "goi" + SPATIAL[tag.ndims - 3]


class Layout:
    """One layout of a family: its tag (the first name oneDNN gives it), kind, letters."""

    def __init__(self, tag, kind, letters):
        self.tag, self.kind, self.letters = tag, kind, letters
        self.ndims = tag.ndims

    @property
    def name(self):
        return self.tag.name

    def signature(self):
        return "".join(f"{s}{self.letters[d]}" for s, d in self.tag.inner)

    def plain(self):
        """The plain counterpart: the outer dim order without blocks (ab, abc for matmuls)."""
        if self.kind in ("matmul", "batched matmul"):
            return self.letters
        return "".join(self.letters[d] for d in self.tag.order)

    def canonical_order(self):
        return self.tag.order == sorted(self.tag.order)


class Family:
    def __init__(self, kind, signature, layouts):
        self.kind, self.signature = kind, signature
        main = MAIN_RANK[kind]
        self.layouts = sorted(layouts, key=lambda l: (abs(l.ndims - main), l.ndims < main,
                                                      not l.canonical_order(), l.tag.family < 0, l.tag.index))
        self.rep = self.layouts[0]
        self.members = self.layouts[1:]

    def label(self):
        return f"{self.kind} {self.signature}"


def build_families(tags):
    named_layouts = {t.layout() for t in tags if t.family >= 0}
    groups = collections.defaultdict(dict)  # (kind, signature) -> layout string -> Layout
    for t in tags:
        if not t.inner:
            continue
        c = classify(t, named_layouts)
        if c is None:
            continue
        lay = Layout(t, *c)
        key = (lay.kind, lay.signature())
        groups[key].setdefault(t.layout(), lay)  # several names of one layout: the first
    fams = [Family(k, s, list(v.values())) for (k, s), v in groups.items()]
    return sorted(fams, key=lambda f: (KINDS.index(f.kind), f.rep.ndims, block_key(f.signature)))


def block_key(signature):
    return [(int(s), c) for s, c in re.findall(r"(\d+)([a-z])", signature)]


# ------------------------------------------------------------------ dims

SMALL_ELEMENTS = 64 * 1024  # 256 KiB of f32


def depthwise(layout):
    """Blocks only the groups (Goihw16g): one output and one input channel per group."""
    return all(layout.letters[d] == "g" for _, d in layout.tag.inner)


def round_to(x, step):
    return max(step, int(round(x / step)) * step)


def dims_of(layout, large, large_elements):
    """Logical dims (in the order of the kind's letters) of about SMALL_ELEMENTS or
    large_elements. Kernels are 3 wide in every spatial dim."""
    kind, n = layout.kind, layout.ndims
    target = large_elements if large else SMALL_ELEMENTS
    if kind in ("activations", "batch-blocked"):
        spatial = n - 2
        if kind == "activations":
            batch, channels = (4, 256) if large else (1, 71)
        else:
            batch, channels = (160, 128) if large else (20, 51)
        pixels = target // (batch * channels)
        side = {1: [pixels], 2: [round(math.sqrt(pixels))] * 2}.get(spatial)
        if spatial == 3:
            depth = 16 if large else 4
            s = round(math.sqrt(pixels / depth))
            side = [depth, s, s]
        return [batch, channels] + side
    if kind == "weights":
        spatial = n - 2
        out = 2048 if large else 128
        inp = target / (out * 3 ** spatial)
        return [out, round_to(inp, 64) if large else round(inp)] + [3] * spatial
    if kind == "grouped weights":
        spatial = n - 3
        if depthwise(layout):
            groups = target / 3 ** spatial
            return [round_to(groups, 32) if large else round(groups), 1, 1] + [3] * spatial
        groups, out = (16, 512) if large else (4, 64)
        inp = target / (groups * out * 3 ** spatial)
        return [groups, out, round_to(inp, 16) if large else round(inp)] + [3] * spatial
    if kind == "RNN weights":
        layers, inp = (4, 1024) if large else (1, 71)
        gates = [4] if n == 5 else []
        out = target / (layers * inp * (gates[0] if gates else 1))
        return [layers, 1, inp] + gates + [round_to(out, 64) if large else round(out)]
    if kind == "matmul":
        k = 4096 if large else 384
        return [k, target // k if large else round(target / k)]
    if kind == "batched matmul":
        batch, k = (16, 1024) if large else (4, 96)
        return [batch, k, target // (batch * k) if large else round(target / (batch * k))]
    raise ValueError(kind)


def checked_dims(layout, large, large_elements):
    d = dims_of(layout, large, large_elements)
    if min(d) < 1:
        raise SystemExit(f"{layout.name}: dims {d} for {large_elements} elements; choose a larger size")
    return d


def dims_text(d):
    return "x".join(str(v) for v in d)


# ------------------------------------------------------------------ problems

# Scales of an f32 -> s8 weight quantization, per output channel: o; g and o; the gates
# and o of RNN weights (l d i g o); N of a K x N matmul.
def per_channel_scales(layout):
    mask = {"weights": "0", "grouped weights": "01", "matmul": "1", "batched matmul": "2"}.get(layout.kind)
    if layout.kind == "RNN weights":
        mask = "34" if layout.ndims == 5 else "3"
    return f"src:per_dim_{mask}:4"


def interleave(family):
    """The innermost block when it is 2 or 4: the pairs of bf16 and quadruples of s8
    that VNNI and AMX multiply (OIhw16i16o2i, BA16a64b4a)."""
    innermost = family.rep.tag.inner[-1][0]
    return innermost if innermost in (2, 4) else 0


class Problem:
    def __init__(self, section, family, layout, direction, sdt, ddt, size, dims, scales=""):
        self.section, self.family, self.layout = section, family, layout
        self.direction, self.sdt, self.ddt, self.size, self.dims, self.scales = direction, sdt, ddt, size, dims, scales

    @property
    def tags(self):
        blocked, plain = self.layout.name, self.layout.plain()
        return (plain, blocked) if self.direction == "pack" else (blocked, plain)

    def line(self):
        stag, dtag = self.tags
        s = f"--sdt={self.sdt} --ddt={self.ddt} --stag={stag} --dtag={dtag}"
        if self.scales:
            s += f" --attr-scales={self.scales}"
        return s + " " + dims_text(self.dims)

    def key(self):
        stag, dtag = self.tags
        return (self.sdt, self.ddt, stag, dtag, dims_text(self.dims))


# (name, what it holds, --max-ms-per-prb)
SECTIONS = [
    ("small", "in L2: each family's representative in f32, bf16 and s8, both directions", 20),
    ("members", "in L2: the other layouts of each family (ranks, outer orders), f32, both directions", 20),
    ("quantize", "in L2: weights from f32 into s8, a scale per output channel", 20),
    ("large", "from memory: the representatives in f32; in bf16 where the innermost block is 2, "
              "in s8 where it is 4 and for activations; both directions", 50),
]


def problems(families, large_elements):
    out = []
    for f in families:
        d = checked_dims(f.rep, False, large_elements)
        for dt in ("f32", "bf16", "s8"):
            for direction in ("pack", "unpack"):
                out.append(Problem("small", f, f.rep, direction, dt, dt, "L2", d))
    for f in families:
        for m in f.members:
            for direction in ("pack", "unpack"):
                d = checked_dims(m, False, large_elements)
                out.append(Problem("members", f, m, direction, "f32", "f32", "L2", d))
    for f in families:
        if f.kind in ("activations", "batch-blocked"):
            continue
        d = checked_dims(f.rep, False, large_elements)
        out.append(Problem("quantize", f, f.rep, "pack", "f32", "s8", "L2", d, per_channel_scales(f.rep)))
    for f in families:
        d = checked_dims(f.rep, True, large_elements)
        types = ["f32"]
        if interleave(f) == 2:
            types.append("bf16")
        if interleave(f) == 4 or f.kind == "activations":
            types.append("s8")
        for dt in types:
            for direction in ("pack", "unpack"):
                out.append(Problem("large", f, f.rep, direction, dt, dt, "large", d))
    return out


def write_batch(path, families, probs, large_mib):
    per_kind = collections.Counter(f.kind for f in families)
    per_section = collections.Counter(p.section for p in probs)
    kinds = ", ".join(f"{per_kind[k]} {k}" for k in KINDS)
    lines = [
        "# Generated by benchmarks/reorder/families.py (do not edit; change the script and rerun it).",
        "#",
        "# Every oneDNN layout family with inner blocks, to and from its plain counterpart. A",
        "# family is a kind of tensor and its inner blocks (OIhw4i16o4i: weights 4i16o4i);",
        "# the script's docstring says how families, representatives, plain counterparts and",
        f"# dims are chosen. {len(families)} families:",
    ]
    lines += textwrap.wrap(kinds + ".", 86, initial_indent="#   ", subsequent_indent="#   ")
    lines += [
        "# pack = plain -> blocked, unpack = blocked -> plain, the same type on both sides but",
        "# for the f32 -> s8 quantization of weights.",
        "#",
        f"# {len(probs)} problems:",
    ]
    for name, text, ms in SECTIONS:
        lines += textwrap.wrap(text, 86, initial_indent=f"#   {per_section[name]:5d}  ",
                               subsequent_indent="#          ")
    sizes = ("In L2: about 256 KiB of f32 source, a blocked dim left partly filled (71 channels, 57 input "
             f"channels, N = 171). From memory: about {large_mib} MiB of f32 source, blocks filled (families.py "
             "--large-mib sets it; give more where the last-level cache holds source and destination). bf16 "
             "and s8 use the same dims.")
    lines += textwrap.wrap(sizes, 86, initial_indent="# ", subsequent_indent="# ")
    lines += [
        "#",
        "# memfmt, oneDNN and memcpy of the same traffic are timed in one process, problem by",
        "# problem. The batch sets no thread count: run it once per count, then summarize:",
        "#",
        "#   build/gcc/tools/memfmt reorder --threads=1 --batch=benchmarks/reorder/families.batch > families-1t.log",
        "#   build/gcc/tools/memfmt reorder --threads=2 --batch=benchmarks/reorder/families.batch > families-2t.log",
        "#   benchmarks/reorder/families.py summarize families-1t.log families-2t.log",
        "#",
        "# A run takes about 8 minutes on 2 cores (an estimate from a sample of its problems):",
        "# about 85 ms a problem in L2 and 0.3 to 0.6 s from memory, half of it filling buffers.",
        "--mode=P --memcpy=true",
    ]
    section = family = None
    for p in probs:
        if p.section != section:
            if section == "quantize":
                lines.append("--attr-scales=")
            section = p.section
            text, ms = next((t, m) for n, t, m in SECTIONS if n == section)
            lines += [""] + textwrap.wrap(text, 86, initial_indent="# ---- ", subsequent_indent="#      ")
            lines.append(f"--max-ms-per-prb={ms}")
            family = None
        if p.family is not family:
            family = p.family
            lines.append(f"# {family.label()}")
        lines.append(p.line())
    if section == "quantize":
        lines.append("--attr-scales=")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ------------------------------------------------------------------ summary of a run

def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def parse_log(path):
    """(repro fields, threads, speedup over oneDNN or None, memfmt / memcpy or None) per timed problem."""
    out = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\[\d+\] (.*)", line)
            if m:
                cur = {"repro": m.group(1).strip(), "threads": None, "onednn": None, "memcpy": None}
                out.append(cur)
                continue
            if cur is None:
                continue
            m = re.search(r"\((\d+) runs, (\d+) threads?\)", line)
            if m and "perf" in line:
                cur["threads"] = int(m.group(2))
            m = re.search(r"memfmt speedup over oneDNN: ([0-9.]+)x", line)
            if m:
                cur["onednn"] = float(m.group(1))
            m = re.search(r"memfmt at ([0-9.]+)% of memcpy's bandwidth", line)
            if m:
                cur["memcpy"] = float(m.group(1)) / 100
    return out


def repro_key(repro):
    fields = dict(re.findall(r"--([a-z-]+)=(\S*)", repro))
    dims = repro.split()[-1]
    return (fields.get("sdt"), fields.get("ddt"), fields.get("stag"), fields.get("dtag"), dims)


def summarize(logs, families, probs):
    by_key = {}
    for p in probs:
        by_key.setdefault(p.key(), p)
    rows = []  # (problem, threads, onednn, memcpy)
    unknown = 0
    for path in logs:
        for r in parse_log(path):
            p = by_key.get(repro_key(r["repro"]))
            if p is None:
                unknown += 1
                continue
            rows.append((p, r["threads"], r["onednn"], r["memcpy"]))
    if unknown:
        print(f"({unknown} problems of the logs are not in the batch this script writes; left out)")
    if not rows:
        print("no problems of the batch in the logs")
        return 1

    def line(label, sel):
        dnn = [r[2] for r in sel if r[2]]
        cpy = [r[3] for r in sel if r[3]]
        worst = min((r for r in sel if r[2]), key=lambda r: r[2], default=None)
        text = f"  {label:<44} {len(sel):5d}"
        text += f"  {geomean(dnn):6.2f}x {sum(v < 1 for v in dnn):5d}" if dnn else f"  {'-':>7} {'-':>5}"
        text += f"  {100 * geomean(cpy):5.0f}%" if cpy else f"  {'-':>6}"
        if worst:
            text += f"  {worst[2]:.2f}x {worst[0].line()}"
        print(text)

    header = f"  {'':<44} {'count':>5}  {'oneDNN':>7} {'<1x':>5}  {'memcpy':>6}  worst against oneDNN"
    for threads in sorted({r[1] for r in rows}, key=lambda t: t or 0):
        sel = [r for r in rows if r[1] == threads]
        print(f"\n{threads} thread{'s' if threads != 1 else ''}: memfmt's speedup over oneDNN (geometric mean, "
              f"count below 1x) and bandwidth over memcpy's")
        print(header)
        line("all", sel)
        for name, text, _ in SECTIONS:
            line(f"section {name}", [r for r in sel if r[0].section == name])
        for direction in ("pack", "unpack"):
            for size in ("L2", "large"):
                line(f"{direction}, {size}", [r for r in sel if r[0].direction == direction and r[0].size == size
                                             and r[0].sdt == r[0].ddt])
        for dt in ("f32", "bf16", "s8"):
            line(f"type {dt}", [r for r in sel if r[0].sdt == dt and r[0].ddt == dt])
        for kind in KINDS:
            line(f"kind {kind}", [r for r in sel if r[0].family.kind == kind])
        large = [r for r in sel if r[0].size == "large" and r[3]]
        if large:
            below = sorted((r for r in large if r[3] < 0.9), key=lambda r: r[3])
            print(f"  from memory, below 90% of memcpy's bandwidth: {len(below)} of {len(large)}")
            for r in below[:20]:
                print(f"    {100 * r[3]:3.0f}%  {r[0].line()}")
        print("  per family (all its problems):")
        for f in families:
            fsel = [r for r in sel if r[0].family is f]
            if fsel:
                line(f"{f.label()} ({f.rep.name})", fsel)
    return 0


# ------------------------------------------------------------------ main

def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", nargs="?", choices=["summarize"], help="summarize the logs of a run")
    ap.add_argument("logs", nargs="*", help="output of memfmt reorder --batch=families.batch")
    ap.add_argument("--large-mib", type=int, default=64, help="f32 source of the large size, MiB (default 64)")
    ap.add_argument("--output", default=os.path.join(HERE, "families.batch"), help="the batch to write")
    ap.add_argument("--list", action="store_true", help="print the families instead")
    a = ap.parse_args(argv)
    large_elements = a.large_mib * 1024 * 1024 // 4
    families = build_families(read_tags())
    probs = problems(families, large_elements)
    if a.command == "summarize":
        return summarize(a.logs, families, probs)
    if a.list:
        for f in families:
            small, large = checked_dims(f.rep, False, large_elements), checked_dims(f.rep, True, large_elements)
            print(f"{f.label():<34} {f.rep.name:<18} <-> {f.rep.plain():<7} {dims_text(small):<14} "
                  f"{dims_text(large):<18} members: {' '.join(m.name for m in f.members)}")
        print(", ".join(f"{k}: {sum(f.kind == k for f in families)}" for k in KINDS))
        return 0
    write_batch(a.output, families, probs, a.large_mib)
    print(f"wrote {a.output}: {len(families)} families, {len(probs)} problems")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The reorder benchmark's results page: docs/benchmarks.md and its chart, generated
from one JSON file of measurements.

    results.py collect --families-1t LOG --families-2t LOG --sweep LOG [--output JSON]
        reads the logs of `memfmt reorder` on families.batch (1 and 2 threads) and on
        sweep.batch, with the machine they ran on, into JSON (default:
        docs/benchmarks/results.json)
    results.py page [--json JSON] [--check]
        writes docs/benchmarks.md and docs/benchmarks/speedups.svg from the JSON and
        docs/benchmarks/known_gaps.md; --check only says whether they are up to date

The page holds the machine, the method, tables of memfmt's speed over oneDNN's and
over memcpy's bandwidth (geometric means, counts below 1x) by section, direction,
type and kind of tensor, the problems below 1x, the chart, and the known gaps
(written by hand, with their reasons).
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DOCS = os.path.join(ROOT, "docs")
JSON_PATH = os.path.join(DOCS, "benchmarks", "results.json")
PAGE_PATH = os.path.join(DOCS, "benchmarks.md")
SVG_PATH = os.path.join(DOCS, "benchmarks", "speedups.svg")
GAPS_PATH = os.path.join(DOCS, "benchmarks", "known_gaps.md")
SUITE_PATH = os.path.join(DOCS, "benchmarks", "reorder.json")  # (reorder_benchmark writes it)

sys.path.insert(0, HERE)
import families as fam  # noqa: E402  (the batch's own problems: families, kinds, sections)


# ------------------------------------------------------------------ collect

def machine():
    """What the run's machine is: CPU model, cores, caches, OS, compiler of the tool."""
    info = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(), "caches": {}}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            value = value.strip()
            if key == "Model name":
                info["cpu"] = value
            elif key in ("L1d cache", "L2 cache", "L3 cache"):
                info["caches"][key.split()[0]] = value
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        with open("/etc/os-release") as f:
            info["os"] = dict(l.strip().split("=", 1) for l in f if "=" in l).get("PRETTY_NAME", "").strip('"')
    except OSError:
        pass
    return info


def commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def kernel_target(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"kernels for (\w+)", line)
            if m:
                return m.group(1)
    return "unknown"


def collect(a):
    families = fam.build_families(fam.read_tags())
    probs = fam.problems(families, a.large_mib * 1024 * 1024 // 4)
    by_key = {}
    for p in probs:
        by_key.setdefault(p.key(), p)
    rows = []
    for path in (a.families_1t, a.families_2t):
        for r in fam.parse_log(path):
            p = by_key.get(fam.repro_key(r["repro"]))
            if p is None or r["onednn"] is None:
                continue
            rows.append({"problem": p.line(), "family": p.family.label(), "kind": p.family.kind,
                         "section": p.section, "direction": p.direction, "size": p.size, "sdt": p.sdt,
                         "ddt": p.ddt, "threads": r["threads"], "onednn": r["onednn"], "memcpy": r["memcpy"]})
    sweep = []
    for r in fam.parse_log(a.sweep):
        if r["onednn"] is None:
            continue
        sdt, ddt, stag, dtag, dims = fam.repro_key(r["repro"])
        sweep.append({"problem": f"{sdt} {stag} -> {ddt} {dtag} {dims}", "sdt": sdt, "ddt": ddt,
                      "threads": r["threads"], "onednn": r["onednn"]})
    data = {"date": datetime.date.today().isoformat(), "commit": a.commit or commit(), "machine": machine(),
            "kernels": kernel_target(a.families_1t), "onednn": a.onednn, "families": rows, "sweep": sweep}
    os.makedirs(os.path.dirname(a.output), exist_ok=True)
    with open(a.output, "w") as f:  # a problem per line: diffs between runs stay readable
        lists = {k: data.pop(k) for k in ("families", "sweep")}
        head = json.dumps(data, sort_keys=True, separators=(",", ":"))
        f.write(head[:-1] + "".join(f',\n"{k}":[\n' + ",\n".join(json.dumps(r, sort_keys=True, separators=(",", ":"))
                                                                for r in v) + "]" for k, v in lists.items()) + "}\n")
    print(f"wrote {a.output}: {len(rows)} family problems, {len(sweep)} sweep problems")
    return 0


# ------------------------------------------------------------------ page

def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def table(rows, groups):
    """A markdown table of (label, selection) groups: count, speedup over oneDNN, below 1x,
    bandwidth over memcpy's."""
    out = ["| | problems | over oneDNN | below 1x | of memcpy's bandwidth |", "| --- | ---: | ---: | ---: | ---: |"]
    for label, keep in groups:
        sel = [r for r in rows if keep(r)]
        if not sel:
            continue
        dnn = [r["onednn"] for r in sel]
        cpy = [r["memcpy"] for r in sel if r.get("memcpy")]
        out.append(f"| {label} | {len(sel)} | {geomean(dnn):.2f}x | {sum(v < 1 for v in dnn)} | "
                   + (f"{100 * geomean(cpy):.0f} % |" if cpy else "- |"))
    return "\n".join(out)


def family_groups():
    groups = [("all", lambda r: True)]
    for name, _, _ in fam.SECTIONS:
        groups.append((f"section {name}", lambda r, n=name: r["section"] == n))
    for direction in ("pack", "unpack"):
        for size, where in (("L2", "in L2"), ("large", "from memory")):
            groups.append((f"{direction}, {where}", lambda r, d=direction, s=size: r["direction"] == d
                           and r["size"] == s and r["sdt"] == r["ddt"]))
    for dt in ("f32", "bf16", "s8"):
        groups.append((f"{dt}", lambda r, t=dt: r["sdt"] == t and r["ddt"] == t))
    for kind in fam.KINDS:
        groups.append((kind, lambda r, k=kind: r["kind"] == k))
    return groups


def chart(rows):
    """An SVG strip chart: one row per kind of tensor and direction, a dot per problem at
    its speedup over oneDNN (log scale), 1 thread; lines at 1x and 2x."""
    lanes = [(k, d) for k in fam.KINDS for d in ("pack", "unpack")]
    left, width, lane_h, top = 190, 560, 22, 30
    lo, hi = math.log2(0.125), math.log2(16)
    x = lambda v: left + (min(max(math.log2(v), lo), hi) - lo) / (hi - lo) * width  # noqa: E731
    height = top + lane_h * len(lanes) + 40
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 20}" height="{height}" '
           f'font-family="sans-serif" font-size="11">', f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{left}" y="16" font-size="12">memfmt over oneDNN, one thread: a dot per problem '
           f'(log scale)</text>']
    for i, (kind, direction) in enumerate(lanes):
        y = top + i * lane_h
        if i % 4 == 0:  # every other kind shaded (its two lanes)
            svg.append(f'<rect x="{left}" y="{y}" width="{width}" height="{2 * lane_h}" fill="#f0f0f0"/>')
        svg.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{kind}, {direction}</text>')
        sel = [r for r in rows if r["kind"] == kind and r["direction"] == direction and r["threads"] == 1]
        for j, r in enumerate(sorted(sel, key=lambda r: r["problem"])):
            jitter = (j * 7919 % 13) / 13 * (lane_h - 8) + 4
            color = "#c0392b" if r["onednn"] < 1 else "#2c6fbb"
            svg.append(f'<circle cx="{x(r["onednn"]):.1f}" cy="{y + jitter:.1f}" r="2" fill="{color}" '
                       f'fill-opacity="0.6"/>')
    bottom = top + lane_h * len(lanes)
    for v in (0.125, 0.25, 0.5, 1, 2, 4, 8, 16):
        xv = x(v)
        dash = "" if v in (1, 2) else ' stroke-dasharray="2,3"'
        svg.append(f'<line x1="{xv:.1f}" y1="{top}" x2="{xv:.1f}" y2="{bottom}" stroke="#555"{dash}/>')
        svg.append(f'<text x="{xv:.1f}" y="{bottom + 14}" text-anchor="middle">{v:g}x</text>')
    svg.append(f'<text x="{left + width / 2}" y="{bottom + 30}" text-anchor="middle">speedup over oneDNN '
               f'(red: below 1x; lines at 1x and 2x, the goal)</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def page(data, gaps):
    m = data["machine"]
    fam_rows = data["families"]
    caches = ", ".join(f"{k} {v}" for k, v in sorted(m.get("caches", {}).items()))
    lines = [
        "# Reorder benchmark",
        "",
        "<!-- Generated by benchmarks/reorder/results.py from docs/benchmarks/results.json and",
        "     docs/benchmarks/known_gaps.md: edit those (or rerun the benchmark), then",
        "     `benchmarks/reorder/results.py page`. -->",
        "",
        f"memfmt {data['commit']}, measured {data['date']}: {m.get('cpu')}, {m.get('cores')} cores ({caches}), "
        f"{m.get('os', '')}; memfmt's kernels for {data['kernels']}; oneDNN {data['onednn']}.",
        "",
        "## Method",
        "",
        "`memfmt reorder` (tools/memfmt) times memfmt, oneDNN and `memcpy` in one process, problem",
        "by problem:",
        "",
        "- GB/s counts the bytes read plus the bytes written; `memcpy` copies (source +",
        "  destination) / 2 bytes, the same traffic, on as many threads as the reorders.",
        "- Each figure is the median of its runs, taken in rounds of about 10 ms that interleave",
        "  memfmt, `memcpy` and oneDNN, so that drifts of clock, load or memory bandwidth hit all",
        "  three alike; a measurement during which other processes used more than 5 % of a core",
        "  is retaken.",
        "- memfmt and oneDNN read the same source and are timed writing the same destination",
        "  buffer (each side's output is first checked in a buffer of its own): in L2, the pages",
        "  a buffer gets decide which cache sets its lines share.",
        "- Speedup: oneDNN's median time over memfmt's. Means are geometric. From memory, a",
        "  single problem's ratio can move severalfold between runs on a virtual machine; read",
        "  the means there.",
        "",
        "Three sets of problems:",
        "",
        "- **Families** (`benchmarks/reorder/families.batch`, generated by `families.py` from the",
        "  tag grammar): every oneDNN layout family with inner blocks, to and from its plain",
        "  counterpart (pack = plain -> blocked, unpack = blocked -> plain), in L2 (about 256 KiB",
        "  of f32 source, a blocked dim partly filled) and from memory (about 64 MiB, blocks",
        "  filled), in f32, bf16 and s8, and f32 weights quantized to s8 with a scale per output",
        "  channel. Run on 1 and 2 threads.",
        "- **Sweep** (`benchmarks/reorder/sweep.batch`): every pair of nchw, nhwc, nChw8c and",
        "  nChw16c and of f32, bf16 and s8 on activations in L2 and a network's input, 1 thread.",
        "- **Suite** (`build/gcc/benchmarks/reorder/reorder_benchmark`, which writes",
        "  docs/benchmarks/reorder.json): the layout changes and conversions inference engines",
        "  run most, in L2 and from memory, on 1 thread and all, with plan creation times.",
        "",
        "Reproduce (about 15 minutes per thread count, 2 for the sweep):",
        "",
        "    build/gcc/tools/memfmt reorder --threads=1 --batch=benchmarks/reorder/families.batch > f1.log",
        "    build/gcc/tools/memfmt reorder --threads=2 --batch=benchmarks/reorder/families.batch > f2.log",
        "    build/gcc/tools/memfmt reorder --batch=benchmarks/reorder/sweep.batch > sweep.log",
        "    benchmarks/reorder/results.py collect --families-1t f1.log --families-2t f2.log --sweep sweep.log",
        "    build/gcc/benchmarks/reorder/reorder_benchmark",
        "    benchmarks/reorder/results.py page",
        "",
        "Goals: memfmt at least 2x oneDNN in geometric mean on each sweep, no problem below 1x,",
        "and every large layout change at 90 % of `memcpy`'s bandwidth or more.",
        "",
        "## Results",
        "",
        "![memfmt over oneDNN, a dot per problem](benchmarks/speedups.svg)",
        "",
    ]
    for threads in (1, 2):
        sel = [r for r in fam_rows if r["threads"] == threads]
        if not sel:
            continue
        lines += [f"### Families, {threads} thread{'s' if threads > 1 else ''}", "", table(sel, family_groups()), ""]
    sweep = data["sweep"]
    if sweep:
        groups = [("all", lambda r: True)]
        for s in ("f32", "bf16", "s8"):
            for d in ("f32", "bf16", "s8"):
                groups.append((f"{s} -> {d}", lambda r, s=s, d=d: r["sdt"] == s and r["ddt"] == d))
        lines += ["### Sweep, 1 thread", "", table(sweep, groups), ""]
    lines += suite_section()
    below = sorted((r for r in fam_rows if r["onednn"] < 1), key=lambda r: r["onednn"])
    large = [r for r in fam_rows if r["size"] == "large" and r.get("memcpy")]
    slow_large = sorted((r for r in large if r["memcpy"] < 0.9), key=lambda r: r["memcpy"])
    lines += ["### Below the goals", "",
              f"Families below 1x of oneDNN: {len(below)} of {len(fam_rows)}; the 25 slowest:", ""]
    lines += [f"- {r['onednn']:.2f}x, {r['threads']} thread{'s' if r['threads'] > 1 else ''}: {r['problem']}"
              for r in below[:25]]
    lines += ["", f"From memory, below 90 % of `memcpy`'s bandwidth: {len(slow_large)} of {len(large)}; the 15 "
              "lowest:", ""]
    lines += [f"- {100 * r['memcpy']:.0f} %, {r['threads']} thread{'s' if r['threads'] > 1 else ''}: {r['problem']}"
              for r in slow_large[:15]]
    lines += ["", "## Known gaps", "", gaps.strip(), ""]
    return "\n".join(lines)


def suite_section():
    """The suite of reorder_benchmark, from the JSON it writes: a line per case."""
    if not os.path.exists(SUITE_PATH):
        return []
    with open(SUITE_PATH) as f:
        suite = json.load(f)
    m = suite["machine"]
    lines = ["### The suite", "",
             f"`reorder_benchmark` ({suite['note']}; {m['cpu']}, {m['processors']} processors, {m['caches']}; "
             f"kernels for {m['memfmt_kernel_target']}; oneDNN {m['onednn']}): memfmt over oneDNN and memfmt's "
             "bandwidth over `memcpy`'s, 1 thread and all.", "",
             "| case | over oneDNN, 1 thread | all threads | of memcpy, 1 thread | all threads |",
             "| --- | ---: | ---: | ---: | ---: |"]
    for c in suite["cases"]:
        runs = sorted(c["runs"], key=lambda r: r["threads"])
        dnn = " | ".join(f"{r['memfmt_vs_onednn']:.2f}x" if r.get("memfmt_vs_onednn") else "-" for r in runs)
        cpy = " | ".join(f"{100 * r['memfmt_vs_memcpy']:.0f} %" for r in runs)
        lines.append(f"| {c['id']} | {dnn} | {cpy} |")
    v = suite["summary"]["memfmt_vs_onednn"]
    lines += ["", f"Geometric mean over oneDNN {v['geomean']:.2f}x ({v['geomean_1_thread']:.2f}x on 1 thread, "
              f"{v['geomean_all_threads']:.2f}x on all); {v['slower_than_onednn']} of {v['measurements']} slower.", ""]
    return lines


def render(a):
    with open(a.json) as f:
        data = json.load(f)
    with open(GAPS_PATH) as f:
        gaps = f.read()
    outputs = {PAGE_PATH: page(data, gaps), SVG_PATH: chart(data["families"])}
    stale = []
    for path, text in outputs.items():
        current = open(path).read() if os.path.exists(path) else None
        if current != text:
            stale.append(path)
            if not a.check:
                with open(path, "w") as f:
                    f.write(text)
    if a.check:
        for path in stale:
            print(f"{os.path.relpath(path, ROOT)} is not what results.py page makes of the JSON: rerun it")
        return 1 if stale else 0
    print("wrote " + ", ".join(os.path.relpath(p, ROOT) for p in outputs))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="the logs of a run into JSON")
    c.add_argument("--families-1t", required=True)
    c.add_argument("--families-2t", required=True)
    c.add_argument("--sweep", required=True)
    c.add_argument("--onednn", default="2.6.3", help="the oneDNN the tool was built with")
    c.add_argument("--commit", help="the memfmt commit the tool was built from (default: HEAD)")
    c.add_argument("--large-mib", type=int, default=64, help="as families.py wrote the batch")
    c.add_argument("--output", default=JSON_PATH)
    p = sub.add_parser("page", help="docs/benchmarks.md and its chart from the JSON")
    p.add_argument("--json", default=JSON_PATH)
    p.add_argument("--check", action="store_true", help="only check that they are up to date")
    a = ap.parse_args(argv)
    return collect(a) if a.command == "collect" else render(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

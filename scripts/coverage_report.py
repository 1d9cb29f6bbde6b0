#!/usr/bin/env python3
"""Line coverage of include/memfmt from a build with MEMFMT_COVERAGE=ON (clang).

Merges the raw profiles the tests wrote (LLVM_PROFILE_FILE=<build>/coverage/%p-%m.profraw),
prints the lines covered per header, then every line no test ran, by file, as ranges. Lines
that only a processor this one is not can run are excepted where the source marks them:
a line containing `memfmt-coverage: <reason>` excepts itself, and `memfmt-coverage-begin:
<reason>` ... `memfmt-coverage-end` a block; the report names each exception and its reason.
Fails (exit 1) when coverage is under --min percent.

usage: coverage_report.py BUILD_DIR [--min 95] [--llvm-suffix -14]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include", "memfmt") + os.sep


def instrumented_binaries(build):
    """The executables under `build` that carry coverage mappings."""
    found = []
    for dirpath, _, files in os.walk(build):
        if os.sep + "_deps" in dirpath or os.sep + "coverage" in dirpath:
            continue
        for name in files:
            path = os.path.join(dirpath, name)
            if not os.access(path, os.X_OK) or os.path.islink(path):
                continue
            with open(path, "rb") as f:
                if f.read(4) != b"\x7fELF":
                    continue
                if b"__llvm_covmap" in f.read():
                    found.append(path)
    return sorted(found)


def exceptions(path):
    """{line: reason} for the lines of `path` its comments except from coverage."""
    excepted, reason = {}, None
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            begin = re.search(r"memfmt-coverage-begin: (.*?)\s*(\*/)?$", text)
            if begin:
                reason = begin.group(1)
            single = re.search(r"memfmt-coverage: (.*?)\s*(\*/)?$", text)
            if reason is not None or single:
                excepted[number] = reason if reason is not None else single.group(1)
            if "memfmt-coverage-end" in text:
                reason = None
    return excepted


def ranges(numbers):
    out, start, prev = [], None, None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append((start, prev))
            start = prev = n
    if start is not None:
        out.append((start, prev))
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--min", type=float, default=95.0)
    parser.add_argument("--llvm-suffix", default="-14")
    args = parser.parse_args()
    build = os.path.abspath(args.build)
    profiles = glob.glob(os.path.join(build, "coverage", "*.profraw"))
    if not profiles:
        sys.exit(f"coverage_report: no profiles in {build}/coverage (run the tests with LLVM_PROFILE_FILE set)")
    merged = os.path.join(build, "coverage", "merged.profdata")
    subprocess.run([f"llvm-profdata{args.llvm_suffix}", "merge", "-sparse", "-o", merged] + profiles, check=True)
    binaries = instrumented_binaries(build)
    if not binaries:
        sys.exit(f"coverage_report: no instrumented executable under {build}")
    command = [f"llvm-cov{args.llvm_suffix}", "show", "-instr-profile", merged, "-show-instantiations=false",
               "-use-color=false", binaries[0]]
    for b in binaries[1:]:
        command += ["-object", b]
    shown = subprocess.run(command + [os.path.join(ROOT, "include", "memfmt")], check=True, capture_output=True,
                           text=True).stdout

    # llvm-cov show: a file's name on a line of its own ending in ':', then "  line|  count|source"
    # (no count: not code)
    per_file, current = {}, None
    for text in shown.splitlines():
        if text.startswith(INCLUDE) and text.endswith(":"):
            current = per_file.setdefault(text[:-1], {"run": [], "missed": []})
            continue
        m = re.match(r"\s*(\d+)\|\s*([0-9.]+[kMGE]?)?\|", text)
        if current is None or not m or m.group(2) is None:
            continue
        line, count = int(m.group(1)), m.group(2)
        current["missed" if count == "0" else "run"].append(line)

    total_run = total_lines = 0
    missed_report, excepted_report = [], []
    print(f"{'header':60} {'lines':>7} {'run':>7} {'cover':>7}")
    for path in sorted(per_file):
        data = per_file[path]
        excepted = exceptions(path)
        missed = sorted(set(n for n in data["missed"] if n not in excepted))
        skipped = sorted(set(n for n in data["missed"] if n in excepted))
        run = len(set(data["run"]))
        lines = run + len(missed)
        total_run += run
        total_lines += lines
        rel = os.path.relpath(path, ROOT)
        print(f"{rel:60} {lines:7} {run:7} {100.0 * run / max(lines, 1):6.1f}%")
        if missed:
            missed_report.append(f"  {rel}: {ranges(missed)}")
        for reason in sorted(set(excepted[n] for n in skipped)):
            excepted_report.append(f"  {rel}: {ranges([n for n in skipped if excepted[n] == reason])} ({reason})")
    percent = 100.0 * total_run / max(total_lines, 1)
    print(f"{'TOTAL':60} {total_lines:7} {total_run:7} {percent:6.1f}%")
    print(f"\nfrom {len(profiles)} profiles of {len(binaries)} executables")
    print("\nlines no test ran:" if missed_report else "\nno line left unrun")
    print("\n".join(missed_report))
    if excepted_report:
        print("\nexcepted (not run on this processor):")
        print("\n".join(excepted_report))
    if percent < args.min:
        print(f"\ncoverage_report: {percent:.1f}% of lines, under the floor of {args.min}%")
        return 1
    print(f"\ncoverage_report: {percent:.1f}% of lines (floor {args.min}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

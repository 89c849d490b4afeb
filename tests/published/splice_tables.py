#!/usr/bin/env python3
"""Splice `trainsim check --markdown` output into the pages that print the suite's results.

  splice_tables.py FRESH.md PAGE...

FRESH.md is `./build/sim/trainsim check $S --markdown` (tests/published/README.md). Each PAGE
(README.md, tests/published/README.md) carries the same tables in the same order, with its own
prose between them, from the line that starts the case table ("| case | GPUs | ...") on. Each
table of FRESH.md replaces the page's table at the same position, after a check that both begin
with the same header cell; each summary line (the "N cases: mean |error| ..." line, "memory: ",
"Layout ranking: ", "Setting changes (two runs", "Per micro-batch and per step (")
replaces the page's first line that starts the
same way. Nothing else in a page changes. The check `published_tables` (tests/CMakeLists.txt)
fails while a page lacks a line FRESH.md has.
"""
import re
import sys

SUMMARIES = (
    re.compile(r"^\d+ cases: mean \|error\|"),
    re.compile(r"^memory: "),
    re.compile(r"^Layout ranking: "),
    re.compile(r"^Setting changes \(two runs"),
    re.compile(r"^Per micro-batch and per step \("),
)
CASE_TABLE = "| case | GPUs |"


def tables(lines, start=0):
    """(first, last) line indices of each run of lines starting with '|', from `start` on."""
    spans, begin = [], None
    for i in range(start, len(lines)):
        if lines[i].startswith("|"):
            if begin is None:
                begin = i
        elif begin is not None:
            spans.append((begin, i - 1))
            begin = None
    if begin is not None:
        spans.append((begin, len(lines) - 1))
    return spans


def first_cell(line):
    return line.split("|")[1].strip()


def splice(fresh, page_path):
    with open(page_path, encoding="utf-8") as f:
        page = f.read().split("\n")
    starts = [i for i, line in enumerate(page) if line.startswith(CASE_TABLE)]
    if not starts:
        sys.exit(f"{page_path}: no case table (a line starting '{CASE_TABLE}')")
    start = starts[0]
    new_tables = tables(fresh)
    old_tables = tables(page, start)
    if len(old_tables) < len(new_tables):
        sys.exit(f"{page_path}: {len(old_tables)} tables after line {start + 1}, "
                 f"the fresh output has {len(new_tables)}")
    for pattern in SUMMARIES:
        line = next((l for l in fresh if pattern.match(l)), None)
        if line is None:
            continue
        at = next((i for i in range(start, len(page)) if pattern.match(page[i])), None)
        if at is None:
            sys.exit(f"{page_path}: no line matching /{pattern.pattern}/ to replace")
        page[at] = line
    # Back to front, so earlier spans keep their indices.
    for (a, b), (c, d) in reversed(list(zip(new_tables, old_tables))):
        if first_cell(fresh[a]) != first_cell(page[c]):
            sys.exit(f"{page_path}:{c + 1}: table '{first_cell(page[c])}' where the fresh output "
                     f"has '{first_cell(fresh[a])}'")
        page[c:d + 1] = fresh[a:b + 1]
    with open(page_path, "w", encoding="utf-8") as f:
        f.write("\n".join(page))
    print(f"{page_path}: {len(new_tables)} tables spliced")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        fresh = f.read().split("\n")
    for path in argv[2:]:
        splice(fresh, path)


if __name__ == "__main__":
    main(sys.argv)

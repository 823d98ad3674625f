"""A/B table of `bench/variants.py` reports: Solder µs per program, one column per run, for
runs of two builds interleaved on one device (prev/new/new/prev), as perf-notes quotes them.

    python3 bench/ab_table.py DIR

DIR holds the runs' reports named r<N>-<prev|new>-<seed>.json (N orders the runs; a record's own
"seed" wins over the name's, for runs of several seeds); each program prints its seed, name, the
prev runs' µs, the new runs' µs and the new runs' status.
"""
import glob
import json
import os
import re
import sys


def table(directory):
    rows = {}
    pattern = re.compile(r"r(\d+)-(prev|new)-(\d+)\.json$")
    found = []
    for f in glob.glob(os.path.join(directory, "r*-*-*.json")):
        m = pattern.search(os.path.basename(f))
        if m:
            found.append((int(m.group(1)), m.group(2), int(m.group(3)), f))
    for _, which, seed, f in sorted(found):
        for r in json.load(open(f))["programs"]:
            us = r.get("solder_us") or float("nan")
            rows.setdefault((r.get("seed", seed), r["name"]), {}).setdefault(which, []).append((us, r.get("status")))
    lines = []
    for (seed, name), d in sorted(rows.items()):
        us = lambda w: " ".join(f"{a:7.1f}" for a, _ in d.get(w, []))
        status = [s for _, s in d.get("new", [])]
        lines.append(f"seed {seed:2d} {name[:56]:56s} us prev {us('prev')} new {us('new')} {status}")
    return lines


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for line in table(argv[1]):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

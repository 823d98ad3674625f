#!/usr/bin/env python3
"""Pivots `solder bench --json` reports of the norms sweep into one table per batch size:
rows are hidden sizes, columns the programs, cells % of a same-bytes copy (and, where the
report has torch.compile beside, its time over Solder's: above 1 = Solder faster).
    python3 bench/norms_table.py out/*.json [--md table.md]"""
import json
import sys
from collections import defaultdict


def main(argv):
    md = None
    if "--md" in argv:
        i = argv.index("--md")
        md = argv[i + 1]
        del argv[i:i + 2]
    cells = defaultdict(dict)  # batch -> (program, H) -> (pct, vs_compile)
    programs, hidden = [], []
    for path in argv:
        try:
            records = json.load(open(path))["records"]
        except (OSError, ValueError, KeyError) as e:
            print(f"norms_table: skipping {path}: {e}", file=sys.stderr)
            continue
        for r in records:
            prog = r["name"].split("/")[0]
            sizes = dict(kv.split("=", 1) for kv in r["shape"].split(",") if "=" in kv)
            if "B" not in sizes or "H" not in sizes:
                continue  # not a norms sweep case (e.g. the graphs part's suite)
            b, h = int(sizes["B"]), int(sizes["H"])
            cells[b][(prog, h)] = (r.get("pct_of_copy"), r.get("vs_compile"))
            if prog not in programs:
                programs.append(prog)
            if h not in hidden:
                hidden.append(h)
    lines = []
    for b in sorted(cells):
        progs = [p for p in programs if any((p, h) in cells[b] for h in hidden)]
        peers = any(v[1] for v in cells[b].values())
        head = ["H"] + [x for p in progs for x in ([p, "×c"] if peers else [p])]
        lines.append(f"\nB={b}: % of a same-bytes copy" + (" / torch.compile time ÷ Solder time" if peers else ""))
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---:|" * len(head))
        for h in hidden:
            row = [str(h)]
            for p in progs:
                pct, vs = cells[b].get((p, h), (None, None))
                row.append(f"{pct:.1f}" if pct else "–")  # 0: no GPU, compiled only
                if peers:
                    row.append(f"{vs:.2f}" if vs else "–")
            lines.append("| " + " | ".join(row) + " |")
    text = "\n".join(lines)
    print(text)
    if md:
        open(md, "w").write(text + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])

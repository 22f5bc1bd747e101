#!/usr/bin/env python3
"""How tightly nextpnr-ecp5 placed each unit: docs/measurements/ecp5-routing.md
("Where the array's clock goes").

    nextpnr-ecp5 ... --json net.json --write placed.json
    python3 research/ecp5-placement/ecp5-spread.py placed.json

net.json: a design kept by `queens hdl report --pnr --keep DIR` (DIR/array-32/net.json, or
DIR/stage/net.json for the stage alone). For each unit (its LUT4s, flip-flops and RAM write
ports), prints the cells, the tiles they take, their mean and 90th-percentile Manhattan
distance in tiles from the unit's median cell, the rows and columns that hold the middle 90%
of its cells, and its strays: cells more than FAR tiles from that median cell, with the
farthest one's name; then the medians over all units and the strays in all.
"""
import json
import re
import statistics
import sys
from collections import defaultdict

from ecp5_names import LOGIC, UNIT, UNIT_ALONE

BEL = re.compile(r"X(\d+)/Y(\d+)/")
# A stage alone spans about 13 columns and 7 rows: 15 tiles from its middle is well outside.
FAR = 15


def unit_of(name):
    """The unit a cell belongs to: its index in an array, 0 for the stage alone, else None."""
    m = UNIT.match(name)
    if m:
        return int(m.group(1))
    return 0 if name.startswith(UNIT_ALONE) else None


def spread(points):
    n = len(points)
    mx = statistics.median(x for x, _, _ in points)
    my = statistics.median(y for _, y, _ in points)
    ranked = sorted((abs(x - mx) + abs(y - my), name) for x, y, name in points)
    dist = [d for d, _ in ranked]
    strays = [(d, name) for d, name in ranked if d > FAR]
    xs = sorted(x for x, _, _ in points)
    ys = sorted(y for _, y, _ in points)
    cells = [(x, y) for x, y, _ in points]
    middle = lambda v: v[int(0.95 * n)] - v[int(0.05 * n)] + 1
    return {
        "cells": n,
        "tiles": len(set(cells)),
        "mean": statistics.mean(dist),
        "p90": dist[int(0.9 * n)],
        "columns": middle(xs),
        "rows": middle(ys),
        "at": (mx, my),
        "strays": len(strays),
        "farthest": "%s (%d tiles)" % (strays[-1][1], strays[-1][0]) if strays else "",
    }


def main(path):
    try:
        with open(path) as f:
            design = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: {e}")
    tops = [m for m in design.get("modules", {}).values() if m.get("attributes", {}).get("top")]
    if not tops:
        sys.exit(f"{path}: no top module (is it a yosys or nextpnr JSON netlist?)")
    top = tops[0]
    units = defaultdict(list)
    for name, cell in top["cells"].items():
        bel = cell.get("attributes", {}).get("NEXTPNR_BEL")
        k = unit_of(name)
        if bel is None or cell["type"] not in LOGIC or k is None:
            continue
        m = BEL.match(bel)
        units[k].append((int(m.group(1)), int(m.group(2)), name))
    if not units:
        sys.exit(f"{path}: no placed unit cells (was it written by nextpnr --write?)")
    rows = {k: spread(v) for k, v in sorted(units.items())}
    print(f"unit  cells  tiles  mean  p90  columns  rows  median cell  strays (> {FAR} tiles)")
    for k, r in rows.items():
        print(f"{k:4}  {r['cells']:5}  {r['tiles']:5}  {r['mean']:4.2f}  {r['p90']:3}  "
              f"{r['columns']:7}  {r['rows']:4}  {str(r['at']):11}  {r['strays']} {r['farthest']}")
    med = lambda key: statistics.median(r[key] for r in rows.values())
    print(f"median over {len(rows)} units: tiles {med('tiles')}, mean distance {med('mean'):.2f}, "
          f"p90 {med('p90')}; strays {sum(r['strays'] for r in rows.values())}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])

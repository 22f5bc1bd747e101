# A floorplan for nextpnr-ecp5's `--pre-place`: one rectangle per stage, the front end in one
# more. Only a nextpnr built with Python runs it (the PyPI build has none);
# docs/measurements/ecp5-routing.md ("Floorplanning") gives what it measured on the 32-unit array.
#
#   nextpnr-ecp5 --85k --package CABGA381 --speed 6 --json net.json --lpf ulx3s.lpf \
#       --pre-place research/ecp5-placement/ecp5-regions.py
#
# net.json: a ULX3S top kept by `queens hdl report --pnr --keep DIR` (DIR/array-32/net.json).
# QUEENS_REGION_WIDTH (12) sets a stage's width in tiles, QUEENS_FRONT_WIDTH (40) the front end's.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecp5_names import LOGIC, STAGE  # noqa: E402

WIDTH = int(os.environ.get("QUEENS_REGION_WIDTH", "12"))
FRONT_WIDTH = int(os.environ.get("QUEENS_FRONT_WIDTH", "40"))
# LFE5U-85F logic rows: block-RAM and DSP rows 10, 22, ..., 82 cut the fabric into 11-row
# bands below row 9 (prjtrellis tilegrid.json); a stage (~111 tiles) fits one band, 12 wide.
BAND_TOPS = [11, 23, 35, 47, 59, 71, 83]
LAST_COLUMN = 124

# The front end takes rows 2-21 at the left; stages fill the bands in a snake, so that
# neighbours on the chain are neighbours on the die.
ctx.createRectangularRegion("front", 2, 2, 1 + FRONT_WIDTH, 21)
slots = []
for band, top in enumerate(BAND_TOPS):
    first = 2 + FRONT_WIDTH if top < 22 else 2
    row = [(x, top) for x in range(first, LAST_COLUMN - WIDTH + 2, WIDTH)]
    slots += row[::-1] if band % 2 else row
made = set()


def region_of(name):
    """The region of a cell by its name; None for cells the packer made."""
    m = STAGE.match(name)
    if m is None:
        return None if name.startswith(("$nextpnr_CCU2C", "$PACKER")) else "front"
    k = int(m.group(1))
    if k >= len(slots):
        raise ValueError("stage %d has no region: %d fit at width %d" % (k, len(slots), WIDTH))
    region = "stage%d" % k
    if region not in made:
        x, y = slots[k]
        ctx.createRectangularRegion(region, x, y, x + WIDTH - 1, y + 10)
        made.add(region)
    return region


def region_near(cell):
    """Carry feed cells the packer made go with the chain they feed: search over small nets."""
    seen, todo = {cell.name}, [cell]
    while todo:
        c = todo.pop(0)
        for _, port in c.ports:
            net = port.net
            if net is None or len(net.users) > 8:
                continue
            peers = [net.driver.cell] if net.driver.cell is not None else []
            peers += [u.cell for u in net.users]
            for p in peers:
                if p.name in seen:
                    continue
                seen.add(p.name)
                region = region_of(p.name)
                if region:
                    return region
                todo.append(p)
    return None


counts = {}
for name, cell in ctx.cells:
    if str(cell.type) not in LOGIC:
        continue
    region = region_of(name)
    if region is None and name.startswith("$nextpnr_CCU2C"):
        region = region_near(cell)
    if region is None:
        continue
    ctx.constrainCellToRegion(name, region)
    counts[region] = counts.get(region, 0) + 1
print("regions: %d stages of %d slots; front end %d cells" % (len(made), len(slots), counts.get("front", 0)))

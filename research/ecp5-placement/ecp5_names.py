"""Cell names in the netlists that `queens hdl report --pnr --keep DIR` keeps, for the ECP5
scripts beside this file (ecp5-regions.py, ecp5-spread.py)."""
import re

# nextpnr-ecp5's cell types that hold a stage's logic: LUT4s (carry halves included),
# flip-flops, and distributed-RAM write ports.
LOGIC = {"TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW"}
# A cell of stage k of an array (group 1 is k), and of that stage's unit.
STAGE = re.compile(r"core\.core\.chain\.unit\[(\d+)\]\.")
UNIT = re.compile(STAGE.pattern + r"s\.unit\.")
# A cell of the unit in the stage placed alone (`DIR/stage`).
UNIT_ALONE = "unit."

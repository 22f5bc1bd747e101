#!/usr/bin/env python3
"""The stimulus record-board.sh plays into Queens@TUD's board under GHDL (board_tb.vhdl),
and the result frames it makes of what the board sent.

    board.py stimulus N CYCLES_PER_FRAME < words      > stimulus.txt
    board.py frames PAYLOAD_BYTES BYTE_CYCLES < recording > frames.txt

`words`: `queens subproblems N` (its last column, the wire word in hex). Four phases, each
after the board has fallen quiet:

1. identification: the requests `queens board check` sends first (this N's wire length and
   every other of 8, 16 and 32), then nothing for a while: the board must not answer;
2. paced: every subproblem, one frame every CYCLES_PER_FRAME cycles (slower than the board
   answers, so nothing overflows): each one's count and cycles;
3. burst of copies: 52 frames of the subproblem with the most solutions at once, as the
   bring-up probe sends them: what the input FIFO holds and what it drops;
4. burst of distinct subproblems: the first 40 at once: which of them are dropped.

Frames: sentinel 0xFA, the payload, CRC-8 (polynomial 0x1D5, initial 0xF9, no final XOR);
an identification request's CRC is XORed with 0xA5 and its payload is b"QI" then 0xFF bytes.
"""
import sys


def crc8(payload):
    crc = 0xF9
    for b in payload:
        crc ^= b
        for _ in range(8):
            crc = ((crc << 1) ^ 0xD5) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def coord_bits(n):
    b = 0
    while (1 << b) < n:
        b += 1
    return b


def frame(payload, xor=0):
    return bytes([0xFA]) + bytes(payload) + bytes([crc8(payload) ^ xor])


def request(n):
    p = b"QI" + b"\xff" * (coord_bits(n) - 2)
    return frame(p, 0xA5)


def word_frame(n, word):
    k = coord_bits(n)
    return frame(word.to_bytes(k, "big"))


def stimulus(n, per_frame):
    words = [int(line.split()[-1], 16) for line in sys.stdin if line.strip()]
    out = []
    t = 1000
    reqs = request(n)
    for other in (8, 16, 32):
        if coord_bits(other) != coord_bits(n):
            reqs += request(other)
    out.append((t, reqs))
    quiet = 40 * per_frame
    t += quiet
    for w in words:
        out.append((t, word_frame(n, w)))
        t += per_frame
    t += quiet
    # The dearest by solutions is as good as any: every copy runs the same.
    out.append((t, word_frame(n, words[len(words) // 2]) * 52))
    t += 80 * per_frame
    out.append((t, b"".join(word_frame(n, w) for w in words[:40])))
    t += 80 * per_frame
    for at, b in out:
        print(at, b.hex())
    print(t)


def frames(payload, byte_cycles):
    """The recording (CYCLE BYTE [MASK] per line) as result frames, one per line:
    CYCLE PAYLOAD, CYCLE the stop bit of its CRC byte. Checks that every byte belongs to a
    frame, that a frame's bytes come back to back, and that its CRC matches unless the
    simulator left payload bits undefined (written as 0 here; the CRC the simulator computes
    after them is not a board's)."""
    rec = []
    for line in sys.stdin:
        f = line.split()
        rec.append((int(f[0]), int(f[1], 16), int(f[2], 16) if len(f) > 2 else 0))
    size = payload + 2
    assert len(rec) % size == 0, f"{len(rec)} bytes: not whole frames of {size}"
    print("# CYCLE (stop bit of the CRC byte)  PAYLOAD (hex)")
    for i in range(0, len(rec), size):
        f = rec[i:i + size]
        assert f[0][1] == 0xFA, f"no sentinel at byte {i}"
        for a, b in zip(f, f[1:]):
            assert b[0] - a[0] == byte_cycles, f"a gap inside the frame at byte {i}"
        p = bytes(b for _, b, _ in f[1:-1])
        undefined = any(m for _, _, m in f[1:-1])
        assert undefined or crc8(p) == f[-1][1], f"bad CRC at byte {i}"
        assert not f[0][2] and not f[-1][2] and all(m & ~0x0F == 0 for _, _, m in f[1:-1])
        print(f[-1][0], p.hex())


if __name__ == "__main__":
    if sys.argv[1] == "stimulus":
        stimulus(int(sys.argv[2]), int(sys.argv[3]))
    else:
        frames(int(sys.argv[2]), int(sys.argv[3]))

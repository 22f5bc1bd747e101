// Runs the emitted design under Verilator as a board on stdin/stdout: bytes read from stdin
// go into the receive stream (or, with UART_TOP, onto the uart_rx pin bit by bit), bytes the
// design sends come out on stdout. Reads block only when the design is idle. At the end of
// input the design finishes its work, and the cycle count is written to stderr.
//
// With STREAM_TOP the harness plays Xilinx's XDMA on the AXI4-Stream ports instead: bytes go
// in as beats of 1 to 16 lanes with idle gaps, the card-to-host ready comes and goes, and every
// TLAST must end a result frame of FRAME_BYTES bytes or an identification answer of
// IDENT_BYTES (else the harness stops with status 3).
//
// With BOARD_TOP (and UART_TOP) the design is a whole board top, a netlist made by synthesis
// or place and route, behind a bench module that has only the clock and the UART pins: it
// has no idle output, so the harness never waits for input while the host may still expect
// results, and at the end of input it stops once the line has been quiet for a while.
//
// Arguments: [--vcd FILE]. Build defines: UART_TOP, CYCLES_PER_BIT (UART_TOP), BOARD_TOP,
// STREAM_TOP, FRAME_BYTES and IDENT_BYTES (STREAM_TOP), TRACE.
#include "Vtop.h"
#include "verilated.h"
#ifdef TRACE
#include "verilated_vcd_c.h"
#endif
#include <cstdio>
#include <cstring>
#include <deque>
#include <poll.h>
#include <unistd.h>
#include <vector>

static std::deque<unsigned char> in;
static bool eof = false;

// Reads what stdin has; waits for it only if `block`.
static void fill(bool block) {
    if (eof) return;
    struct pollfd p = {0, POLLIN, 0};
    if (!block && poll(&p, 1, 0) <= 0) return;
    unsigned char buf[65536];
    ssize_t n = read(0, buf, sizeof buf);
    if (n <= 0) eof = true;
    else in.insert(in.end(), buf, buf + n);
}

static std::vector<unsigned char> out;
static void flush() {
    size_t off = 0;
    while (off < out.size()) {
        ssize_t n = write(1, out.data() + off, out.size() - off);
        if (n <= 0) { perror("stdout"); exit(1); }
        off += n;
    }
    out.clear();
}

#ifdef UART_TOP
// The host's end of the serial line: 8N1, CYCLES_PER_BIT clock cycles per bit.
struct Line {
    int bits = 0;          // bits of the current byte still to send (10 = start..stop)
    unsigned frame = 0;    // start bit, data LSB first, stop bit
    long tick = 0;
    bool level() const { return bits == 0 ? true : (frame & 1); }
    bool busy() const { return bits != 0; }
    void step() {
        if (bits == 0) {
            if (in.empty()) return;
            frame = (1u << 9) | (unsigned(in.front()) << 1);
            in.pop_front();
            bits = 10;
            tick = 0;
            return;
        }
        if (++tick == CYCLES_PER_BIT) { tick = 0; frame >>= 1; bits--; }
    }
};
struct Receiver {
    int state = -1;        // -1 idle, else bits received
    long tick = 0;
    unsigned byte = 0;
    void step(bool level) {
        if (state < 0) {
            if (!level) { state = 0; tick = 0; }
            return;
        }
        if (++tick != (state == 0 ? CYCLES_PER_BIT / 2 : CYCLES_PER_BIT)) return;
        tick = 0;
        if (state == 0) { if (level) state = -1; else state = 1; return; }  // a glitch, not a start bit
        if (state <= 8) { byte |= unsigned(level) << (state - 1); state++; return; }
        if (level) out.push_back((unsigned char)byte);   // stop bit; a framing error drops it
        byte = 0;
        state = -1;
    }
};
#endif

#ifdef STREAM_TOP
// A fixed pseudo-random sequence: runs repeat exactly.
static unsigned long long lcg = 0x9E3779B97F4A7C15ull;
static unsigned rnd() { lcg = lcg * 6364136223846793005ull + 1442695040888963407ull; return unsigned(lcg >> 33); }
struct Beat { bool valid = false; unsigned char b[16]; int n = 0; };
#endif

int main(int argc, char** argv) {
    const char* vcd = nullptr;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--vcd") && i + 1 < argc) vcd = argv[++i];
    Verilated::commandArgs(1, argv);
    Vtop* top = new Vtop;
#ifdef TRACE
    VerilatedVcdC* tr = nullptr;
    if (vcd) {
        Verilated::traceEverOn(true);
        tr = new VerilatedVcdC;
        top->trace(tr, 99);
        tr->open(vcd);
    }
#else
    if (vcd) { fprintf(stderr, "built without tracing\n"); return 2; }
#endif
    unsigned long long cycles = 0;
    long linger = 0;  // cycles the design must stay idle before the harness waits for input
#ifdef UART_TOP
    Line line;
    Receiver rx;
    top->uart_rx = 1;
#endif
#ifdef STREAM_TOP
    Beat h2c;
    long since_last = 0;  // card-to-host bytes since the last TLAST
    unsigned char head[4] = {0, 0, 0, 0};  // the first of them
#endif
    top->clock = 0;
    top->eval();
    for (;;) {
#if defined(UART_TOP) && defined(BOARD_TOP)
        // Results may still be on their way: wait for input only once it has ended, and then
        // until the line has been quiet for a few frames' time.
        if (!eof || !in.empty() || line.busy() || rx.state >= 0 || !top->uart_tx)
            linger = 64 * 10 * CYCLES_PER_BIT;
        bool quiet = linger == 0;
        if (linger > 0) linger--;
#elif defined(UART_TOP)
        // The transmitter may still be shifting out the last byte when the core turns idle.
        if (!in.empty() || line.busy() || !top->idle || rx.state >= 0 || !top->uart_tx)
            linger = 12 * CYCLES_PER_BIT;
        bool quiet = linger == 0;
        if (linger > 0) linger--;
#elif defined(STREAM_TOP)
        if (!in.empty() || h2c.valid || !top->idle || top->m_axis_tvalid) linger = 16;
        bool quiet = linger == 0;
        if (linger > 0) linger--;
#else
        // A frame's last byte takes a few cycles to become a queued word.
        if (!in.empty() || !top->idle) linger = 16;
        bool quiet = linger == 0;
        if (linger > 0) linger--;
#endif
        if (quiet) {
            flush();
            if (eof) break;
            fill(true);
            continue;
        }
        if ((cycles & 4095) == 0) fill(false);
#ifdef UART_TOP
#ifdef BOARD_TOP
        // A host starts sending once the board is up: after the PLL has locked and the
        // start-up gate has opened (a board's first thousand cycles).
        if (cycles >= 1024) line.step();
#else
        line.step();
#endif
        top->uart_rx = line.level();
#elif defined(STREAM_TOP)
        if (!h2c.valid && !in.empty() && rnd() % 4 != 0) {
            h2c.n = 1 + int(rnd() % 16);
            if (size_t(h2c.n) > in.size()) h2c.n = int(in.size());
            for (int i = 0; i < h2c.n; i++) { h2c.b[i] = in.front(); in.pop_front(); }
            h2c.valid = true;
        }
        for (int w = 0; w < 4; w++) {
            unsigned v = 0;
            for (int k = 0; k < 4; k++)
                if (h2c.valid && 4 * w + k < h2c.n) v |= unsigned(h2c.b[4 * w + k]) << (8 * k);
            top->s_axis_tdata[w] = v;
        }
        top->s_axis_tkeep = h2c.valid ? (unsigned short)((1u << h2c.n) - 1) : 0;
        top->s_axis_tvalid = h2c.valid;
        top->s_axis_tlast = 1;
        top->m_axis_tready = rnd() % 4 != 0;
#else
        top->rx_valid = !in.empty();
        top->rx_data = in.empty() ? 0 : in.front();
        top->tx_ready = 1;
#endif
        top->clock = 0;
        top->eval();
#ifdef UART_TOP
        rx.step(top->uart_tx);
#elif defined(STREAM_TOP)
        if (top->s_axis_tvalid && top->s_axis_tready) h2c.valid = false;
        if (top->m_axis_tvalid && top->m_axis_tready) {
            unsigned keep = top->m_axis_tkeep;
            int n = 0;
            while (n < 16 && (keep >> n & 1)) n++;
            if (n == 0 || keep != (1u << n) - 1) { fprintf(stderr, "TKEEP %04x is not lanes 0..n-1\n", keep); return 3; }
            for (int i = 0; i < n; i++) {
                unsigned char b = (unsigned char)(top->m_axis_tdata[i / 4] >> (8 * (i % 4)));
                out.push_back(b);
                if (since_last < 4) head[since_last] = b;
                since_last++;
            }
            // An identification answer has its own length; it starts with its magic (a
            // result of the test runs starts with its cycle counter's zero top byte).
            bool answer = since_last >= 4 && head[0] == 0xFA && head[1] == 'Q' && head[2] == 'I' && head[3] == IDENT_BYTES - 5;
            long frame = answer ? IDENT_BYTES : FRAME_BYTES;
            if (top->m_axis_tlast) {
                if (since_last != frame) { fprintf(stderr, "TLAST after %ld bytes, the frame has %ld\n", since_last, frame); return 3; }
                since_last = 0;
            } else if (since_last >= 4 && since_last >= frame) { fprintf(stderr, "no TLAST at the end of a frame\n"); return 3; }
        }
#else
        if (top->rx_valid && top->rx_ready) in.pop_front();
        if (top->tx_valid) out.push_back(top->tx_data);
#endif
#ifdef TRACE
        if (tr) tr->dump(uint64_t(2 * cycles));
#endif
        top->clock = 1;
        top->eval();
#ifdef TRACE
        if (tr) tr->dump(uint64_t(2 * cycles + 1));
#endif
        cycles++;
        if (out.size() >= 4096 || ((cycles & 4095) == 0 && !out.empty())) flush();
    }
    flush();
    fprintf(stderr, "cycles %llu\n", cycles);
#ifdef TRACE
    if (tr) tr->close();
#endif
    top->final();
    delete top;
    return 0;
}

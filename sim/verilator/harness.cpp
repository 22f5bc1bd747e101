// Runs the emitted design under Verilator as a board on stdin/stdout: bytes read from stdin
// go into the receive stream (or, with UART_TOP, onto the uart_rx pin bit by bit), bytes the
// design sends come out on stdout. Reads block only when the design is idle. At the end of
// input the design finishes its work, and the cycle count is written to stderr.
//
// Arguments: [--vcd FILE]. Build defines: UART_TOP, CYCLES_PER_BIT (UART_TOP), TRACE.
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
    top->clock = 0;
    top->eval();
    for (;;) {
#ifdef UART_TOP
        // The transmitter may still be shifting out the last byte when the core turns idle.
        if (!in.empty() || line.busy() || !top->idle || rx.state >= 0 || !top->uart_tx)
            linger = 12 * CYCLES_PER_BIT;
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
        line.step();
        top->uart_rx = line.level();
#else
        top->rx_valid = !in.empty();
        top->rx_data = in.empty() ? 0 : in.front();
        top->tx_ready = 1;
#endif
        top->clock = 0;
        top->eval();
#ifdef UART_TOP
        rx.step(top->uart_tx);
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

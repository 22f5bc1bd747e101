/* The TCP side of bridge_tb.vhdl (GHDL's VHPIDIRECT): one host connection at a time on
 * 127.0.0.1, its bytes handed to the testbench one at a time for the board's rx pin, the
 * bytes from the board's tx pin written back. Reading never blocks the simulation while
 * something is in flight; when the testbench says the board is idle it waits up to
 * IDLE_WAIT_MS for the host, so an idle board costs next to no CPU. Writing waits only
 * for a host that stops reading.
 *
 * The testbench calls bridge_rx once a bit time when the line is free, or once every ten
 * bit times while it sends a byte: that is how the simulated time is counted here. */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* An idle board only needs to notice the host, and poll wakes at once for it: a long wait
 * costs nothing in latency, and each wake-up costs a few bit times of simulation. */
#define IDLE_WAIT_MS 50

static int listener = -1, conn = -1;
/* What the host has sent and the serial line has not yet carried: its UART's queue. */
static unsigned char queue[1 << 16];
static size_t head, tail;
/* Bit times simulated, and this connection's figures for the line on stderr. */
static uint64_t bits, bits0, bytes_in, bytes_out;
static double t0;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void hang_up(const char *why)
{
    double dt = now() - t0;
    uint64_t b = bits - bits0;
    fprintf(stderr,
            "bridge: host gone (%s) after %.1f s: %llu bytes in, %llu out, %llu bit times "
            "(%.0f a second, %.1f%% of real time)\n",
            why, dt, (unsigned long long)bytes_in, (unsigned long long)bytes_out,
            (unsigned long long)b, b / dt, 100.0 * b / dt / 115200.0);
    close(conn);
    conn = -1;
    /* A new host starts with an empty line; the board keeps whatever it already holds. */
    head = tail = 0;
}

/* Listens on 127.0.0.1:tcp_port (0: any free port); returns the port, or -1. */
int bridge_open(int tcp_port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int one = 1;
    signal(SIGPIPE, SIG_IGN);
    listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(tcp_port);
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(listener, (struct sockaddr *)&a, sizeof a) < 0 || listen(listener, 1) < 0 ||
        getsockname(listener, (struct sockaddr *)&a, &len) < 0) {
        fprintf(stderr, "bridge: cannot listen on 127.0.0.1:%d: %s\n", tcp_port, strerror(errno));
        exit(1);
    }
    printf("listening on 127.0.0.1:%d\n", ntohs(a.sin_port));
    fflush(stdout);
    return ntohs(a.sin_port);
}

static void take_host(void)
{
    int one = 1;
    conn = accept4(listener, NULL, NULL, SOCK_NONBLOCK);
    if (conn < 0)
        return;
    /* Each byte leaves when its stop bit is seen, as from a USB UART: no batching. */
    setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    bytes_in = bytes_out = 0;
    bits0 = bits;
    t0 = now();
    fprintf(stderr, "bridge: host connected\n");
}

/* Whether the host sent something (then in the queue); hangs up on end or error. */
static int fill(void)
{
    ssize_t n = recv(conn, queue, sizeof queue, 0);
    if (n > 0) {
        head = 0;
        tail = n;
        bytes_in += n;
        return 1;
    }
    if (n == 0)
        hang_up("closed");
    else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        hang_up(strerror(errno));
    return 0;
}

/* The next byte for the board's rx pin, or -1: then the line stays idle a bit time. With
 * idle /= 0 (the board holds nothing and sends nothing) waits for the host a while. */
int bridge_rx(int idle)
{
    bits += 1;
    if (head < tail) {
        bits += 9;
        return queue[head++];
    }
    if (conn < 0)
        take_host();
    if (conn >= 0 && fill()) {
        bits += 9;
        return queue[head++];
    }
    if (idle) {
        struct pollfd p = {conn >= 0 ? conn : listener, POLLIN, 0};
        poll(&p, 1, IDLE_WAIT_MS);
    }
    return -1;
}

/* A byte from the board's tx pin, for the host (lost when none is connected, as on a wire). */
void bridge_tx(int byte)
{
    unsigned char b = byte;
    while (conn >= 0) {
        if (send(conn, &b, 1, MSG_NOSIGNAL) == 1) {
            bytes_out += 1;
            return;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            /* The host is not reading: wait for it rather than lose the byte. */
            struct pollfd p = {conn, POLLOUT, 0};
            poll(&p, 1, 1000);
            continue;
        }
        hang_up(strerror(errno));
    }
}

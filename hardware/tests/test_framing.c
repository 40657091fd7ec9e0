/*
 * test_framing.c - host unit tests of the shared framing code (protocol/framing.c) against the
 * golden vectors in protocol/vectors.txt, which the Python tests check too.
 *   make -C hardware test
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "framing.h"

#define MAX_BYTES 1024

static int failures;
static int checks;

static void fail(int line, const char *what)
{
    fprintf(stderr, "vectors.txt:%d: %s\n", line, what);
    failures++;
}

/* Parses hex (or "-" for none) into out; returns the length or -1. */
static long unhex(const char *s, uint8_t *out)
{
    if (strcmp(s, "-") == 0) {
        return 0;
    }
    size_t n = strlen(s);
    if (n % 2 != 0 || n / 2 > MAX_BYTES) {
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) {
            return -1;
        }
        out[i] = (uint8_t)v;
    }
    return (long)(n / 2);
}

static proto_result_t reason(const char *s)
{
    if (strcmp(s, "cobs") == 0) return PROTO_ERR_COBS;
    if (strcmp(s, "short") == 0) return PROTO_ERR_SHORT;
    if (strcmp(s, "length") == 0) return PROTO_ERR_LENGTH;
    if (strcmp(s, "crc") == 0) return PROTO_ERR_CRC;
    if (strcmp(s, "overflow") == 0) return PROTO_ERR_OVERFLOW;
    return PROTO_OK;
}

/* Feeds wire bytes to a fresh receiver; returns the result at the first frame end. */
static proto_result_t receive(const uint8_t *wire, long n, proto_frame_t *out)
{
    proto_rx_t rx;
    proto_rx_reset(&rx);
    for (long i = 0; i < n; i++) {
        proto_result_t r = proto_rx_push(&rx, wire[i], out);
        if (r != PROTO_PENDING) {
            return r;
        }
    }
    return PROTO_PENDING;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "protocol/vectors.txt";
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    static char line[4 * MAX_BYTES + 64];
    static uint8_t a[MAX_BYTES], b[MAX_BYTES + 8], c[MAX_BYTES + 8];
    static char f1[2 * MAX_BYTES + 2], f2[2 * MAX_BYTES + 2], f3[16];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char kind[16];
        if (line[0] == '#' || sscanf(line, "%15s", kind) != 1) {
            continue;
        }
        checks++;
        if (strcmp(kind, "crc") == 0) {
            unsigned want;
            if (sscanf(line, "%*s %2050s %x", f1, &want) != 2) { fail(lineno, "syntax"); continue; }
            long n = unhex(f1, a);
            if (n < 0) { fail(lineno, "bad hex"); continue; }
            if (crc16_ccitt_false(a, (size_t)n) != want) fail(lineno, "crc differs");
        } else if (strcmp(kind, "cobs") == 0) {
            if (sscanf(line, "%*s %2050s %2050s", f1, f2) != 2) { fail(lineno, "syntax"); continue; }
            long nd = unhex(f1, a);
            long ne = unhex(f2, b);
            if (nd < 0 || ne < 0) { fail(lineno, "bad hex"); continue; }
            size_t got = cobs_encode(a, (size_t)nd, c);
            if ((long)got != ne || memcmp(b, c, got) != 0) fail(lineno, "cobs_encode differs");
            size_t dn = 0;
            if (cobs_decode(b, (size_t)ne, c, sizeof c, &dn) != PROTO_OK || (long)dn != nd ||
                memcmp(a, c, dn) != 0) {
                fail(lineno, "cobs_decode differs");
            }
        } else if (strcmp(kind, "frame") == 0) {
            unsigned ver, type, seq;
            if (sscanf(line, "%*s %u %u %u %2050s %2050s", &ver, &type, &seq, f1, f2) != 5) {
                fail(lineno, "syntax");
                continue;
            }
            long np = unhex(f1, a);
            long nw = unhex(f2, b);
            if (np < 0 || nw < 0 || np > PROTO_MAX_PAYLOAD) { fail(lineno, "bad hex"); continue; }
            proto_frame_t fr = {(uint8_t)ver, (uint8_t)type, (uint8_t)seq, (uint8_t)np, {0}};
            memcpy(fr.payload, a, (size_t)np);
            uint8_t wire[PROTO_MAX_WIRE];
            size_t w = proto_encode(&fr, wire);
            if ((long)w != nw || memcmp(wire, b, w) != 0) fail(lineno, "proto_encode differs");
            proto_frame_t back;
            if (receive(b, nw, &back) != PROTO_OK || back.version != ver || back.type != type ||
                back.seq != seq || back.len != np || memcmp(back.payload, a, (size_t)np) != 0) {
                fail(lineno, "receiver does not give the frame back");
            }
        } else if (strcmp(kind, "bad") == 0) {
            if (sscanf(line, "%*s %15s %2050s", f3, f2) != 2) { fail(lineno, "syntax"); continue; }
            long nw = unhex(f2, b);
            proto_result_t want = reason(f3);
            if (nw < 0 || want == PROTO_OK) { fail(lineno, "bad vector"); continue; }
            proto_frame_t out;
            proto_result_t got = receive(b, nw, &out);
            if (got != want) {
                char msg[64];
                snprintf(msg, sizeof msg, "receiver said %d, expected %d (%s)", got, want, f3);
                fail(lineno, msg);
            }
        } else {
            fail(lineno, "unknown kind");
        }
    }
    fclose(f);
    /* The receiver recovers after garbage: a good frame right after a bad one is delivered. */
    {
        const uint8_t junk[] = {0x05, 0x01, 0x00, 0x03, 0x01, 0x01, 0x01, 0x03, 0xc5, 0x44, 0x00};
        proto_rx_t rx;
        proto_frame_t out;
        proto_rx_reset(&rx);
        int ok = 0, bad = 0;
        for (size_t i = 0; i < sizeof junk; i++) {
            proto_result_t r = proto_rx_push(&rx, junk[i], &out);
            ok += r == PROTO_OK;
            bad += r != PROTO_OK && r != PROTO_PENDING;
        }
        checks++;
        if (ok != 1 || bad != 1 || out.type != MSG_HELLO) {
            fail(0, "receiver did not recover after a bad frame");
        }
    }
    if (checks < 10) {
        fprintf(stderr, "only %d vectors read from %s\n", checks, path);
        return 1;
    }
    printf("test_framing: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}

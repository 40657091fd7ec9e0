/*
 * framing.h - COBS, CRC-16/CCITT-FALSE and frame build/parse. Pure buffer code: no I/O, no
 * allocation, fixed-size buffers. Compiled into the firmware and into the host unit tests.
 */
#ifndef SPIT_FRAMING_H
#define SPIT_FRAMING_H

#include "protocol.h"

typedef enum {
    PROTO_OK = 0,
    PROTO_PENDING,      /* byte accepted, frame not complete yet */
    PROTO_ERR_COBS,     /* invalid COBS encoding */
    PROTO_ERR_SHORT,    /* fewer bytes than header + CRC */
    PROTO_ERR_LENGTH,   /* length field disagrees with the bytes received, or too long */
    PROTO_ERR_CRC,      /* CRC mismatch */
    PROTO_ERR_OVERFLOW, /* frame longer than PROTO_MAX_ENCODED before its delimiter */
} proto_result_t;

typedef struct {
    uint8_t version;
    uint8_t type;
    uint8_t seq;
    uint8_t len;
    uint8_t payload[PROTO_MAX_PAYLOAD];
} proto_frame_t;

/* Byte-at-a-time receiver; zero-initialise (or call proto_rx_reset) before use. */
typedef struct {
    uint8_t buf[PROTO_MAX_ENCODED];
    uint8_t n;
    uint8_t overflow;
} proto_rx_t;

/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor.
 * check("123456789") == 0x29B1. */
uint16_t crc16_ccitt_false(const uint8_t *data, size_t len);

/* COBS-encodes len bytes into dst (room for len + len/254 + 1); no delimiter. Returns the
 * encoded length. */
size_t cobs_encode(const uint8_t *src, size_t len, uint8_t *dst);

/* Decodes len COBS bytes (no delimiter) into dst of capacity cap. Returns PROTO_OK and sets
 * *out_len, or PROTO_ERR_COBS (a zero byte, a code past the end) or PROTO_ERR_LENGTH (too long). */
proto_result_t cobs_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t cap,
                           size_t *out_len);

/* Builds the wire bytes of a frame (COBS + trailing 0x00) into wire (PROTO_MAX_WIRE bytes).
 * Returns the number of bytes, or 0 if f->len > PROTO_MAX_PAYLOAD. */
size_t proto_encode(const proto_frame_t *f, uint8_t *wire);

/* Parses one COBS-encoded frame (without its delimiter). */
proto_result_t proto_decode(const uint8_t *enc, size_t len, proto_frame_t *out);

void proto_rx_reset(proto_rx_t *rx);

/* Feeds one received byte. Returns PROTO_PENDING until a delimiter ends a non-empty frame, then
 * PROTO_OK (out filled) or the error that frame had. Never delivers a truncated frame. */
proto_result_t proto_rx_push(proto_rx_t *rx, uint8_t byte, proto_frame_t *out);

#endif

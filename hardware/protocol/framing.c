/* framing.c - see framing.h. */
#include "framing.h"

uint16_t crc16_ccitt_false(const uint8_t *data, size_t len)
{
    uint16_t crc = 0xFFFF;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)((uint16_t)data[i] << 8);
        for (uint8_t bit = 0; bit < 8; bit++) {
            crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x1021u) : (uint16_t)(crc << 1);
        }
    }
    return crc;
}

size_t cobs_encode(const uint8_t *src, size_t len, uint8_t *dst)
{
    size_t code_at = 0;
    size_t out = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < len; i++) {
        if (src[i] == 0) {
            dst[code_at] = code;
            code_at = out++;
            code = 1;
        } else {
            dst[out++] = src[i];
            code++;
            if (code == 0xFF && i + 1 < len) {
                dst[code_at] = code;
                code_at = out++;
                code = 1;
            }
        }
    }
    dst[code_at] = code;
    return out;
}

proto_result_t cobs_decode(const uint8_t *src, size_t len, uint8_t *dst, size_t cap,
                           size_t *out_len)
{
    size_t in = 0;
    size_t out = 0;
    while (in < len) {
        uint8_t code = src[in++];
        if (code == 0) {
            return PROTO_ERR_COBS;
        }
        for (uint8_t k = 1; k < code; k++) {
            if (in >= len || src[in] == 0) {
                return PROTO_ERR_COBS;
            }
            if (out >= cap) {
                return PROTO_ERR_LENGTH;
            }
            dst[out++] = src[in++];
        }
        if (code != 0xFF && in < len) {
            if (out >= cap) {
                return PROTO_ERR_LENGTH;
            }
            dst[out++] = 0;
        }
    }
    *out_len = out;
    return PROTO_OK;
}

size_t proto_encode(const proto_frame_t *f, uint8_t *wire)
{
    uint8_t raw[PROTO_MAX_RAW];
    if (f->len > PROTO_MAX_PAYLOAD) {
        return 0;
    }
    raw[0] = f->version;
    raw[1] = f->type;
    raw[2] = f->seq;
    raw[3] = f->len;
    for (uint8_t i = 0; i < f->len; i++) {
        raw[PROTO_HEADER_SIZE + i] = f->payload[i];
    }
    size_t n = PROTO_HEADER_SIZE + f->len;
    uint16_t crc = crc16_ccitt_false(raw, n);
    raw[n++] = (uint8_t)(crc >> 8);
    raw[n++] = (uint8_t)(crc & 0xFF);
    size_t w = cobs_encode(raw, n, wire);
    wire[w++] = 0;
    return w;
}

proto_result_t proto_decode(const uint8_t *enc, size_t len, proto_frame_t *out)
{
    uint8_t raw[PROTO_MAX_RAW];
    size_t n = 0;
    proto_result_t r = cobs_decode(enc, len, raw, sizeof raw, &n);
    if (r != PROTO_OK) {
        return r;
    }
    if (n < PROTO_HEADER_SIZE + PROTO_CRC_SIZE) {
        return PROTO_ERR_SHORT;
    }
    uint8_t plen = raw[3];
    if (plen > PROTO_MAX_PAYLOAD || n != (size_t)PROTO_HEADER_SIZE + plen + PROTO_CRC_SIZE) {
        return PROTO_ERR_LENGTH;
    }
    uint16_t got = (uint16_t)(((uint16_t)raw[n - 2] << 8) | raw[n - 1]);
    if (crc16_ccitt_false(raw, n - PROTO_CRC_SIZE) != got) {
        return PROTO_ERR_CRC;
    }
    out->version = raw[0];
    out->type = raw[1];
    out->seq = raw[2];
    out->len = plen;
    for (uint8_t i = 0; i < plen; i++) {
        out->payload[i] = raw[PROTO_HEADER_SIZE + i];
    }
    return PROTO_OK;
}

void proto_rx_reset(proto_rx_t *rx)
{
    rx->n = 0;
    rx->overflow = 0;
}

proto_result_t proto_rx_push(proto_rx_t *rx, uint8_t byte, proto_frame_t *out)
{
    if (byte != 0) {
        if (rx->n < sizeof rx->buf) {
            rx->buf[rx->n++] = byte;
        } else {
            rx->overflow = 1;
        }
        return PROTO_PENDING;
    }
    proto_result_t r;
    if (rx->overflow) {
        r = PROTO_ERR_OVERFLOW;
    } else if (rx->n == 0) {
        r = PROTO_PENDING; /* a lone delimiter: nothing to parse */
    } else {
        r = proto_decode(rx->buf, rx->n, out);
    }
    proto_rx_reset(rx);
    return r;
}

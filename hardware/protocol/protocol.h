/*
 * protocol.h - the referee <-> board wire protocol: every constant in one place.
 *
 * Shared by the ATmega328P firmware (hardware/firmware) and the host build of the unit tests
 * (hardware/tests). The Python driver (referee/board/protocol.py) mirrors these values and a
 * test checks that the two agree. The protocol is specified in hardware/PROTOCOL.md.
 */
#ifndef SPIT_PROTOCOL_H
#define SPIT_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

/* The firmware tests build a variant with another version to check that the host refuses it. */
#ifdef PROTO_VERSION_OVERRIDE
#define PROTO_VERSION PROTO_VERSION_OVERRIDE
#else
#define PROTO_VERSION 1
#endif

/* Frame before COBS: version, type, seq, len, payload[len], crc16 (big-endian). */
#define PROTO_HEADER_SIZE 4
#define PROTO_CRC_SIZE 2
#define PROTO_MAX_PAYLOAD 32
#define PROTO_MAX_RAW (PROTO_HEADER_SIZE + PROTO_MAX_PAYLOAD + PROTO_CRC_SIZE)
/* COBS adds one byte per 254 (and always at least one); the 0x00 delimiter is extra. */
#define PROTO_MAX_ENCODED (PROTO_MAX_RAW + 1)
#define PROTO_MAX_WIRE (PROTO_MAX_ENCODED + 1)

/* Message types, host -> board. */
#define MSG_HELLO 0x01     /* no payload; answered by MSG_HELLO_REPLY */
#define MSG_HEARTBEAT 0x02 /* no payload; answered by MSG_STATUS */
#define MSG_LEDS 0x03      /* 1..4 LED entries of 7 bytes; answered by MSG_ACK */
#define MSG_TONE 0x04      /* 0..8 notes of 4 bytes; answered by MSG_ACK */
#define MSG_ALL_OFF 0x05   /* no payload; answered by MSG_ACK */

/* Message types, board -> host. */
#define MSG_HELLO_REPLY 0x81 /* fw_major, fw_minor, max_payload, led_count, timeout_ms u16 */
#define MSG_ACK 0x82         /* result u8 (ACK_*) */
#define MSG_STATUS 0x83      /* STATUS_COUNT counters, u16 little-endian each */

/* Result codes carried by MSG_ACK. */
#define ACK_OK 0
#define ACK_BAD_VERSION 1
#define ACK_UNKNOWN_TYPE 2
#define ACK_BAD_PAYLOAD 3

/* LEDs: bit numbers in an LED mask. */
#define LED_A_RED 0
#define LED_A_GREEN 1
#define LED_B_RED 2
#define LED_B_GREEN 3
#define LED_SPIT 4
#define LED_COUNT 5
#define LED_MASK_ALL ((1u << LED_COUNT) - 1u)

/* LED entry: mask u8, mode u8, on_ms u16, off_ms u16, count u8 (0 = repeat forever). */
#define LED_ENTRY_SIZE 7
#define LED_MAX_ENTRIES 4
#define LED_MODE_OFF 0
#define LED_MODE_ON 1
#define LED_MODE_BLINK 2

/* Tone note: freq_hz u16 (0 = rest), duration_ms u16. */
#define TONE_NOTE_SIZE 4
#define TONE_MAX_NOTES 8
#define TONE_MIN_HZ 20
#define TONE_MAX_HZ 10000

/* Board status counters, in the order they appear in MSG_STATUS. */
#define STATUS_RX_FRAMES 0  /* valid frames received */
#define STATUS_BAD_CRC 1    /* frames dropped for a wrong CRC */
#define STATUS_BAD_FRAME 2  /* frames dropped: bad COBS, too short, length mismatch */
#define STATUS_OVERFLOW 3   /* frames dropped: too long, or receive buffer overflow */
#define STATUS_BAD_VERSION 4
#define STATUS_BAD_COMMAND 5 /* unknown type or bad payload */
#define STATUS_WATCHDOG 6    /* heartbeat timeouts that switched everything off */
#define STATUS_TX_DROPPED 7  /* replies dropped because the transmit buffer was full */
#define STATUS_COUNT 8

#define HEARTBEAT_TIMEOUT_MS 1000

#endif

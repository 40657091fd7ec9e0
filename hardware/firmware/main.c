/*
 * main.c - firmware of the Spit referee's LED/buzzer board (ATmega328P, avr-libc).
 *
 * Everything is non-blocking: the UART receives and transmits from interrupts into bounded ring
 * buffers; a 1 kHz Timer0 tick runs the LED patterns, the buzzer's note sequence and the host
 * heartbeat watchdog; Timer1 toggles the buzzer pin in hardware; the main loop parses frames
 * byte by byte and sleeps when idle. If the host falls silent for HEARTBEAT_TIMEOUT_MS every
 * output is switched off. The AVR watchdog resets the chip if the main loop ever hangs.
 * Protocol: hardware/PROTOCOL.md; pins: board.h and hardware/README.md.
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <avr/wdt.h>
#include <util/atomic.h>

#include "board.h"
#include "framing.h"

/* ---- UART ring buffers (sizes are powers of two) ---- */
#define RX_RING 64
#define TX_RING 128

static volatile uint8_t rx_buf[RX_RING];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_RING];
static volatile uint8_t tx_head, tx_tail;

/* ---- counters reported in MSG_STATUS ---- */
static volatile uint16_t counters[STATUS_COUNT];

static void count(uint8_t which)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (counters[which] != 0xFFFF) {
            counters[which]++;
        }
    }
}

ISR(USART_RX_vect)
{
    uint8_t status = UCSR0A;
    uint8_t byte = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_RING - 1));
    if ((status & ((1 << FE0) | (1 << DOR0))) || next == rx_tail) {
        /* Lost or damaged byte: the frame it belongs to fails its CRC and is counted there. */
        if (counters[STATUS_OVERFLOW] != 0xFFFF) {
            counters[STATUS_OVERFLOW]++;
        }
        if (next == rx_tail) {
            return;
        }
    }
    rx_buf[rx_head] = byte;
    rx_head = next;
}

ISR(USART_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~(1 << UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)((tx_tail + 1) & (TX_RING - 1));
}

static uint8_t rx_pop(uint8_t *byte)
{
    uint8_t got = 0;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        if (rx_head != rx_tail) {
            *byte = rx_buf[rx_tail];
            rx_tail = (uint8_t)((rx_tail + 1) & (RX_RING - 1));
            got = 1;
        }
    }
    return got;
}

/* Queues a whole wire frame or nothing (a half-sent frame would only be garbage). */
static void tx_frame(const uint8_t *bytes, uint8_t n)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        uint8_t used = (uint8_t)((tx_head - tx_tail) & (TX_RING - 1));
        if ((uint8_t)(TX_RING - 1 - used) < n) {
            if (counters[STATUS_TX_DROPPED] != 0xFFFF) {
                counters[STATUS_TX_DROPPED]++;
            }
        } else {
            for (uint8_t i = 0; i < n; i++) {
                tx_buf[tx_head] = bytes[i];
                tx_head = (uint8_t)((tx_head + 1) & (TX_RING - 1));
            }
            UCSR0B |= (1 << UDRIE0);
        }
    }
}

/* ---- LEDs: one pattern per LED, advanced by the 1 ms tick ---- */
typedef struct {
    uint8_t mode;
    uint8_t lit;
    uint8_t count; /* blink cycles left, 0 = forever */
    uint16_t on_ms, off_ms, t;
} led_t;

static volatile led_t leds[LED_COUNT];

static void leds_apply(void)
{
    uint8_t bits = 0;
    for (uint8_t i = 0; i < LED_COUNT; i++) {
        if (leds[i].lit) {
            bits |= (uint8_t)(1u << (LED_FIRST_PIN + i));
        }
    }
    uint8_t mask = (uint8_t)(LED_MASK_ALL << LED_FIRST_PIN);
    uint8_t now = (uint8_t)((LED_PORT & (uint8_t)~mask) | bits);
    if (now != LED_PORT) {
        LED_PORT = now;
    }
}

static void led_set(uint8_t i, uint8_t mode, uint16_t on_ms, uint16_t off_ms, uint8_t count_)
{
    leds[i].mode = mode;
    leds[i].on_ms = on_ms;
    leds[i].off_ms = off_ms;
    leds[i].count = count_;
    leds[i].t = 0;
    leds[i].lit = mode != LED_MODE_OFF;
}

static void leds_tick(void)
{
    for (uint8_t i = 0; i < LED_COUNT; i++) {
        volatile led_t *l = &leds[i];
        if (l->mode != LED_MODE_BLINK) {
            continue;
        }
        l->t++;
        if (l->lit && l->t >= l->on_ms) {
            l->lit = 0;
            l->t = 0;
            if (l->count > 0 && --l->count == 0) {
                l->mode = LED_MODE_OFF;
            }
        } else if (!l->lit && l->t >= l->off_ms) {
            l->lit = 1;
            l->t = 0;
        }
    }
    leds_apply();
}

/* ---- buzzer: a short sequence of notes, Timer1 CTC toggling OC1A ---- */
typedef struct {
    uint16_t hz, ms;
} note_t;

static volatile note_t notes[TONE_MAX_NOTES];
static volatile uint8_t note_count, note_index;
static volatile uint16_t note_left;

static void buzzer_silence(void)
{
    TCCR1A = 0; /* disconnect OC1A: the pin follows PORTB, which is low */
    TCCR1B = 0;
    BUZZER_PORT &= (uint8_t)~(1 << BUZZER_PIN);
}

static void buzzer_start_note(void)
{
    while (note_index < note_count && notes[note_index].ms == 0) {
        note_index++;
    }
    if (note_index >= note_count) {
        note_count = 0;
        buzzer_silence();
        return;
    }
    note_left = notes[note_index].ms;
    uint16_t hz = notes[note_index].hz;
    if (hz == 0) {
        buzzer_silence();
        return;
    }
    /* f = F_CPU / (2 * 8 * (1 + OCR1A)) with prescaler 8. */
    uint16_t top = (uint16_t)((F_CPU / 16UL) / hz - 1UL);
    TCCR1B = 0;
    TCNT1 = 0;
    OCR1A = top;
    TCCR1A = (1 << COM1A0);               /* toggle OC1A on compare match */
    TCCR1B = (1 << WGM12) | (1 << CS11);  /* CTC, clk/8 */
}

static void buzzer_tick(void)
{
    if (note_count == 0) {
        return;
    }
    if (note_left > 0) {
        note_left--;
    }
    if (note_left == 0) {
        note_index++;
        buzzer_start_note();
    }
}

static void all_off(void)
{
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        for (uint8_t i = 0; i < LED_COUNT; i++) {
            led_set(i, LED_MODE_OFF, 0, 0, 0);
        }
        leds_apply();
        note_count = 0;
        buzzer_silence();
    }
}

/* ---- 1 ms tick and the heartbeat watchdog ---- */
static volatile uint32_t millis;
static volatile uint32_t last_frame_ms;
static volatile uint8_t host_alive; /* a valid frame arrived and the timeout has not run out */

ISR(TIMER0_COMPA_vect)
{
    millis++;
    leds_tick();
    buzzer_tick();
    if (host_alive && (uint32_t)(millis - last_frame_ms) >= HEARTBEAT_TIMEOUT_MS) {
        host_alive = 0;
        for (uint8_t i = 0; i < LED_COUNT; i++) {
            led_set(i, LED_MODE_OFF, 0, 0, 0);
        }
        leds_apply();
        note_count = 0;
        buzzer_silence();
        LINK_PORT &= (uint8_t)~(1 << LINK_PIN);
        if (counters[STATUS_WATCHDOG] != 0xFFFF) {
            counters[STATUS_WATCHDOG]++;
        }
    }
}

/* ---- replies ---- */
static void reply(uint8_t type, uint8_t seq, const uint8_t *payload, uint8_t len)
{
    proto_frame_t f;
    uint8_t wire[PROTO_MAX_WIRE];
    f.version = PROTO_VERSION;
    f.type = type;
    f.seq = seq;
    f.len = len;
    for (uint8_t i = 0; i < len; i++) {
        f.payload[i] = payload[i];
    }
    uint8_t n = (uint8_t)proto_encode(&f, wire);
    tx_frame(wire, n);
}

static void reply_ack(uint8_t seq, uint8_t result)
{
    reply(MSG_ACK, seq, &result, 1);
}

static void reply_status(uint8_t seq)
{
    uint8_t p[STATUS_COUNT * 2];
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        for (uint8_t i = 0; i < STATUS_COUNT; i++) {
            p[2 * i] = (uint8_t)(counters[i] & 0xFF);
            p[2 * i + 1] = (uint8_t)(counters[i] >> 8);
        }
    }
    reply(MSG_STATUS, seq, p, sizeof p);
}

static void reply_hello(uint8_t seq)
{
    uint8_t p[6] = {FW_VERSION_MAJOR, FW_VERSION_MINOR, PROTO_MAX_PAYLOAD, LED_COUNT,
                    (uint8_t)(HEARTBEAT_TIMEOUT_MS & 0xFF), (uint8_t)(HEARTBEAT_TIMEOUT_MS >> 8)};
    reply(MSG_HELLO_REPLY, seq, p, sizeof p);
}

static uint16_t u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
}

/* Validates the whole payload before acting on any of it. */
static uint8_t do_leds(const proto_frame_t *f)
{
    uint8_t n = f->len / LED_ENTRY_SIZE;
    if (f->len == 0 || f->len % LED_ENTRY_SIZE != 0 || n > LED_MAX_ENTRIES) {
        return ACK_BAD_PAYLOAD;
    }
    for (uint8_t e = 0; e < n; e++) {
        const uint8_t *p = &f->payload[e * LED_ENTRY_SIZE];
        if ((p[0] & (uint8_t)~LED_MASK_ALL) || p[0] == 0 || p[1] > LED_MODE_BLINK) {
            return ACK_BAD_PAYLOAD;
        }
        if (p[1] == LED_MODE_BLINK && (u16le(p + 2) == 0 || (u16le(p + 4) == 0 && p[6] != 1))) {
            return ACK_BAD_PAYLOAD;
        }
    }
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        for (uint8_t e = 0; e < n; e++) {
            const uint8_t *p = &f->payload[e * LED_ENTRY_SIZE];
            for (uint8_t i = 0; i < LED_COUNT; i++) {
                if (p[0] & (1u << i)) {
                    led_set(i, p[1], u16le(p + 2), u16le(p + 4), p[6]);
                }
            }
        }
        leds_apply();
    }
    return ACK_OK;
}

static uint8_t do_tone(const proto_frame_t *f)
{
    uint8_t n = f->len / TONE_NOTE_SIZE;
    if (f->len % TONE_NOTE_SIZE != 0 || n > TONE_MAX_NOTES) {
        return ACK_BAD_PAYLOAD;
    }
    for (uint8_t i = 0; i < n; i++) {
        uint16_t hz = u16le(&f->payload[i * TONE_NOTE_SIZE]);
        if (hz != 0 && (hz < TONE_MIN_HZ || hz > TONE_MAX_HZ)) {
            return ACK_BAD_PAYLOAD;
        }
    }
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        for (uint8_t i = 0; i < n; i++) {
            notes[i].hz = u16le(&f->payload[i * TONE_NOTE_SIZE]);
            notes[i].ms = u16le(&f->payload[i * TONE_NOTE_SIZE + 2]);
        }
        note_count = n;
        note_index = 0;
        buzzer_start_note();
    }
    return ACK_OK;
}

/* The last frame handled, so that a retried frame (same type and seq) is answered again but
 * not executed twice. */
static uint8_t have_last, last_seq, last_type, last_result;

static void handle(const proto_frame_t *f)
{
    count(STATUS_RX_FRAMES);
    if (f->type == MSG_HELLO) {
        /* Any version may ask; the reply carries ours so the host can tell. */
        have_last = 0;
        reply_hello(f->seq);
        return;
    }
    if (f->version != PROTO_VERSION) {
        count(STATUS_BAD_VERSION);
        reply_ack(f->seq, ACK_BAD_VERSION);
        return;
    }
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        last_frame_ms = millis;
        host_alive = 1;
    }
    LINK_PORT |= (1 << LINK_PIN);
    if (f->type == MSG_HEARTBEAT) {
        reply_status(f->seq);
        return;
    }
    if (have_last && f->seq == last_seq && f->type == last_type) {
        reply_ack(f->seq, last_result); /* a retry: the first copy was already executed */
        return;
    }
    uint8_t result;
    switch (f->type) {
    case MSG_LEDS:
        result = do_leds(f);
        break;
    case MSG_TONE:
        result = do_tone(f);
        break;
    case MSG_ALL_OFF:
        result = f->len == 0 ? ACK_OK : ACK_BAD_PAYLOAD;
        if (result == ACK_OK) {
            all_off();
        }
        break;
    default:
        result = ACK_UNKNOWN_TYPE;
        break;
    }
    if (result != ACK_OK) {
        count(STATUS_BAD_COMMAND);
    }
    have_last = 1;
    last_seq = f->seq;
    last_type = f->type;
    last_result = result;
    reply_ack(f->seq, result);
}

static void setup(void)
{
    LED_DDR |= (uint8_t)(LED_MASK_ALL << LED_FIRST_PIN);
    BUZZER_DDR |= (1 << BUZZER_PIN);
    LINK_DDR |= (1 << LINK_PIN);

    /* UART: 115200 8N1, double speed (UBRR 16 at 16 MHz, 2.1 % error as on every Arduino). */
    UCSR0A = (1 << U2X0);
    UBRR0 = (uint16_t)((F_CPU / (8UL * UART_BAUD)) - 1UL);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);

    /* Timer0: 1 kHz tick (CTC, clk/64, 250 counts). */
    TCCR0A = (1 << WGM01);
    OCR0A = (uint8_t)(F_CPU / 64UL / 1000UL - 1UL);
    TCCR0B = (1 << CS01) | (1 << CS00);
    TIMSK0 = (1 << OCIE0A);

    wdt_enable(WDTO_250MS);
}

int main(void)
{
    MCUSR = 0;
    wdt_disable();
    setup();
    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();

    static proto_rx_t rx;
    proto_rx_reset(&rx);
    for (;;) {
        wdt_reset();
        uint8_t byte;
        while (rx_pop(&byte)) {
            proto_frame_t f;
            switch (proto_rx_push(&rx, byte, &f)) {
            case PROTO_OK:
                handle(&f);
                break;
            case PROTO_PENDING:
                break;
            case PROTO_ERR_CRC:
                count(STATUS_BAD_CRC);
                break;
            case PROTO_ERR_OVERFLOW:
                count(STATUS_OVERFLOW);
                break;
            default:
                count(STATUS_BAD_FRAME);
                break;
            }
        }
        cli();
        if (rx_head == rx_tail) {
            sleep_enable();
            sei();
            sleep_cpu(); /* the next interrupt (byte or 1 ms tick) wakes us */
            sleep_disable();
        }
        sei();
    }
}

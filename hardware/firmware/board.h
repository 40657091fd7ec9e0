/*
 * board.h - pin assignment of the referee board (Arduino Uno/Nano, ATmega328P at 16 MHz).
 * Keep in step with the wiring table in hardware/README.md.
 */
#ifndef SPIT_BOARD_H
#define SPIT_BOARD_H

#include <avr/io.h>

/* Player and "Spit!" LEDs, all on port D (Arduino D2..D6), active high. Bit n of the protocol's
 * LED mask drives PORTD bit LED_FIRST_PIN + n. */
#define LED_PORT PORTD
#define LED_DDR DDRD
#define LED_FIRST_PIN PD2 /* D2 A red, D3 A green, D4 B red, D5 B green, D6 Spit */

/* Piezo buzzer on OC1A (PB1, Arduino D9): Timer1 toggles it in hardware. */
#define BUZZER_PORT PORTB
#define BUZZER_DDR DDRB
#define BUZZER_PIN PB1

/* On-board LED (PB5, Arduino D13): lit while the host is talking to the board. */
#define LINK_PORT PORTB
#define LINK_DDR DDRB
#define LINK_PIN PB5

#define UART_BAUD 115200UL

#define FW_VERSION_MAJOR 1
#define FW_VERSION_MINOR 0

#endif

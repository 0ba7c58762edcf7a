/*
 * The ATmega328P at 16 MHz as the stone counter uses it: pins, a millisecond clock on Timer1,
 * the UART at 115200 8N1 with interrupt-driven ring buffers, the EEPROM boot counter.
 * Timer0 and its ISR are left to the Arduino core (millis), so the sketch builds in the IDE too.
 */
#ifndef STONE_COUNTER_BOARD_H
#define STONE_COUNTER_BOARD_H

#include <stdint.h>

#include <avr/io.h>

#ifdef __cplusplus
extern "C" {
#endif

/* WS2812B data: D6 (PD6). */
#ifndef WS2812_PORT
#define WS2812_PORT PORTD
#define WS2812_DDR DDRD
#define WS2812_BIT 6
#endif

/*
 * Buttons to ground, read with the internal pull-ups: index 0 is undo (D2 = PD2), 1-6 the seat
 * buttons on A0-A5 (PC0-PC5), 7 and 8 on D3 and D4 (PD3, PD4). Each entry: the port's PIN
 * register and the bit. Only the first 1 + SEATS are scanned.
 */
#ifndef BUTTON_PINS
#define BUTTON_PINS \
    { { &PIND, 2 }, { &PINC, 0 }, { &PINC, 1 }, { &PINC, 2 }, { &PINC, 3 }, { &PINC, 4 }, \
      { &PINC, 5 }, { &PIND, 3 }, { &PIND, 4 } }
#endif

#define BAUD_RATE 115200UL

void board_init(void);
/* Milliseconds since board_init; call at least every 250 ms (it extends Timer1's count). */
uint32_t board_millis(void);

/* 1 while button `index` (0 undo, 1-8 seats) is held down. */
uint8_t board_button_down(uint8_t index);
uint8_t board_button_count(void);

/* Received bytes: returns 1 and stores one in *c, or 0 when none is waiting. */
uint8_t board_uart_read(uint8_t *c);
/* Queues one byte for sending; waits while the send buffer is full (interrupts must be on). */
void board_uart_write(uint8_t c);
/* Whether every queued byte has left the send buffer. */
uint8_t board_uart_idle(void);

/* Increments the boot counter in EEPROM (address 0, 16 bit) and returns the new value. */
uint16_t board_next_boot(void);

#ifdef __cplusplus
}
#endif

#endif

/*
 * A small WS2812B driver for a 16 MHz AVR: cycle-counted, 20 cycles (1.25 us) per bit,
 * high for 6 cycles (375 ns) for a 0 and 12 cycles (750 ns) for a 1, within the timings of both
 * the original WS2812B and its V5 datasheet. Interrupts are off while a frame goes out
 * (about 30 us per LED) and restored afterwards. The strip latches after 300 us of low line;
 * the caller leaves at least that between two frames.
 */
#ifndef STONE_COUNTER_WS2812_H
#define STONE_COUNTER_WS2812_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Makes the data pin an output, low. */
void ws2812_init(void);
/* Sends `bytes` bytes (G, R, B per LED, wire order). */
void ws2812_send(const uint8_t *grb, uint16_t bytes);

#ifdef __cplusplus
}
#endif

#endif

/*
 * Compile-time layout and limits of the stone counter (PROTOCOL.md, "Frame buffer and colours").
 * Override any of these with -D on the compiler command line, or edit them here before flashing.
 */
#ifndef STONE_COUNTER_CONFIG_H
#define STONE_COUNTER_CONFIG_H

#define FW_VERSION "1.0.0"
#define PROTO_VERSION 1

/* Seats on the strip, 1-8: eight fit Bagaji, seven Hachi-hachi. */
#ifndef SEATS
#define SEATS 8
#endif
/* LEDs per seat: the largest stone count or |result| a seat can show. */
#ifndef LEDS_PER_SEAT
#define LEDS_PER_SEAT 10
#endif
/* LEDs for the shared pool. */
#ifndef POOL_LEDS
#define POOL_LEDS 10
#endif
/* Brightness ceiling, 0-255: 64 keeps 71 LEDs at full white near 500 mA (one USB port). */
#ifndef MAX_BRIGHTNESS
#define MAX_BRIGHTNESS 64
#endif

/* Seats, then pool, then one status LED. */
#define LED_COUNT (SEATS * LEDS_PER_SEAT + POOL_LEDS + 1)

#define MAX_SEATS 8

#if SEATS < 1 || SEATS > MAX_SEATS
#error "SEATS must be 1-8"
#endif
#if LEDS_PER_SEAT < 1 || LEDS_PER_SEAT > 127 || POOL_LEDS < 0 || POOL_LEDS > 255
#error "LEDS_PER_SEAT must be 1-127 and POOL_LEDS 0-255"
#endif
#if MAX_BRIGHTNESS < 0 || MAX_BRIGHTNESS > 255
#error "MAX_BRIGHTNESS must be 0-255"
#endif
/* An FB reply ($FB,65535,1, + 6 hex digits per LED + *CRC\n) must fit the protocol's 600 bytes. */
#if 12 + 6 * LED_COUNT + 6 > 600
#error "too many LEDs for one FB frame (at most 97)"
#endif

#endif

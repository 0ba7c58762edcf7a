/*
 * Compile-time layout and limits of the stone counter (PROTOCOL.md, "Frame buffer and colours").
 * Override any of these with -D on the compiler command line, or edit them here before flashing.
 */
#ifndef STONE_COUNTER_CONFIG_H
#define STONE_COUNTER_CONFIG_H

#define FW_VERSION "2.0.0"
#define PROTO_VERSION 2

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
/*
 * Brightness ceiling, 0-255: how bright the strip may look (64 is plenty indoors). It does not
 * keep the current down by itself; POWER_LIMIT_MA does.
 */
#ifndef MAX_BRIGHTNESS
#define MAX_BRIGHTNESS 64
#endif
/*
 * Current budget of the strip in mA (PROTOCOL.md "Current budget"): the firmware dims whatever it
 * shows so that the estimated draw, LED_IDLE_MA per LED plus LED_CHANNEL_MA per colour channel at
 * 255 (in proportion below), stays within it. 450 is for a strip powered from the board's 5 V pin,
 * i.e. from a USB port's 500 mA with about 50 mA left for the board. With a separate 5 V supply
 * feeding the strip, set about 80 % of its rating, e.g. -DPOWER_LIMIT_MA=2000 for 5 V 2.5 A.
 */
#ifndef POWER_LIMIT_MA
#define POWER_LIMIT_MA 450
#endif
#define LED_IDLE_MA 1
#define LED_CHANNEL_MA 20

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
#if POWER_LIMIT_MA <= LED_COUNT * LED_IDLE_MA || POWER_LIMIT_MA > 65535
#error "POWER_LIMIT_MA must exceed the strip's idle draw (1 mA per LED) and be at most 65535"
#endif
/* An FB reply ($FB,65535,1, + 6 hex digits per LED + *CRC\n) must fit the protocol's 600 bytes. */
#if 12 + 6 * LED_COUNT + 6 > 600
#error "too many LEDs for one FB frame (at most 97)"
#endif

#endif

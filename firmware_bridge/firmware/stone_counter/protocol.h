/*
 * The device side of the stone counter protocol (../../PROTOCOL.md), free of any hardware so
 * that the same code runs on the ATmega328P and in the native unit test:
 * CRC-16/CCITT-FALSE, the line receiver, parsing of host frames, encoding of device frames and
 * the frame buffer (colours and brightness scaling).
 */
#ifndef STONE_COUNTER_PROTOCOL_H
#define STONE_COUNTER_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest host frame, '$' to '\n' inclusive (a '\r' before '\n' not counted). */
#define PROTO_RX_FRAME_MAX 96
/* Between '$' and '\n': BODY '*' CRC. */
#define PROTO_RX_CONTENT_MAX (PROTO_RX_FRAME_MAX - 2)
#define PROTO_MAX_SEATS 8

typedef struct {
    uint8_t seats;          /* 1-8 */
    uint8_t leds_per_seat;  /* each seat value is -leds_per_seat..+leds_per_seat */
    uint8_t pool_leds;
    uint8_t max_brightness; /* every colour is scaled by min(brightness, max_brightness) / 255 */
    uint16_t power_limit_ma; /* and by less when the estimated draw would exceed this */
} proto_layout_t;

/* The current model (PROTOCOL.md "Current budget"): per LED, dark, and per channel at 255. */
#define PROTO_LED_IDLE_MA 1
#define PROTO_LED_CHANNEL_MA 20

/* The display state a SET carries. Seats at index >= count are dark. */
typedef struct {
    uint8_t brightness; /* 0-255, the host's wish */
    uint8_t turn;       /* 0 (none) or the seat to act, 1-seats */
    uint8_t pool;       /* 0-pool_leds */
    uint8_t count;      /* seat values given, 0-seats */
    int8_t values[PROTO_MAX_SEATS];
} proto_state_t;

uint16_t proto_crc16_update(uint16_t crc, uint8_t byte);
/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final XOR. */
uint16_t proto_crc16(const char *data, size_t len);

/* ---- receiver: bytes in, whole frames out ---- */

enum { PROTO_RX_NONE = 0, PROTO_RX_FRAME, PROTO_RX_LONG };

typedef struct {
    char buf[PROTO_RX_CONTENT_MAX + 2]; /* content and a possible trailing '\r', NUL-terminated */
    uint8_t len;
    uint8_t state; /* outside a frame, inside one, or inside one that is too long */
} proto_rx_t;

void proto_rx_init(proto_rx_t *rx);
/*
 * Feeds one byte. Returns PROTO_RX_FRAME when a frame ended (rx->buf holds "BODY*CRC",
 * rx->len its length), PROTO_RX_LONG when an over-long frame ended, else PROTO_RX_NONE.
 * Bytes outside a frame are ignored; '$' always starts a new frame.
 */
uint8_t proto_rx_byte(proto_rx_t *rx, uint8_t c);
/* Whether a frame has started and not yet ended. */
uint8_t proto_rx_busy(const proto_rx_t *rx);

/* ---- host frames ---- */

typedef enum {
    PROTO_OK = 0,
    PROTO_ERR_CRC,
    PROTO_ERR_PARSE,
    PROTO_ERR_RANGE,
    PROTO_ERR_UNKNOWN,
    PROTO_ERR_LONG
} proto_err_t;

typedef enum {
    CMD_HELLO = 1,
    CMD_SET,
    CMD_PING,
    CMD_QUERY,
    CMD_TEST,
    CMD_ACK
} proto_cmd_kind_t;

typedef struct {
    uint8_t kind;      /* proto_cmd_kind_t */
    uint8_t crc_ok;    /* the CRC matched: the frame counts for the link even when refused */
    uint16_t seq;      /* host seq; for ACK the press number it acknowledges; 0 if unreadable */
    uint16_t proto;    /* HELLO: the host's protocol version */
    uint8_t test_on;   /* TEST: 1 on, 0 off */
    proto_state_t state; /* SET */
} proto_cmd_t;

/* The NAK reason word of an error ("crc", "parse", ...). */
const char *proto_err_name(proto_err_t err);

/*
 * Parses frame content "BODY*CRC" (no '$', no '\n') against the layout's ranges.
 * On error cmd->seq is the frame's seq when one can be read (second field, 1-65535), else 0.
 */
proto_err_t proto_parse(const char *content, uint8_t len, const proto_layout_t *layout,
                        proto_cmd_t *cmd);

/* ---- device frames: written byte by byte through a sink, CRC computed on the way ---- */

typedef void (*proto_put_fn)(uint8_t c, void *ctx);

typedef struct {
    proto_put_fn put;
    void *ctx;
    uint16_t crc;
} proto_tx_t;

void proto_tx_begin(proto_tx_t *tx);          /* '$' */
void proto_tx_char(proto_tx_t *tx, char c);   /* one body byte */
void proto_tx_str(proto_tx_t *tx, const char *s);
void proto_tx_uint(proto_tx_t *tx, uint16_t v);
void proto_tx_hex8(proto_tx_t *tx, uint8_t v); /* two upper-case hex digits */
void proto_tx_end(proto_tx_t *tx);            /* '*' CRC '\n' */

/* Every device frame carries the boot counter, so that the host notices a reset (PROTOCOL.md). */
void proto_send_ack(proto_tx_t *tx, uint16_t seq, uint16_t boot);
void proto_send_nak(proto_tx_t *tx, uint16_t seq, uint16_t boot, proto_err_t reason);
void proto_send_boot(proto_tx_t *tx, uint16_t boot);
/* press: the number of the oldest unacknowledged press, else of the next one. */
void proto_send_hello(proto_tx_t *tx, uint16_t seq, uint16_t boot, const proto_layout_t *layout,
                      uint16_t press);
void proto_send_btn(proto_tx_t *tx, uint16_t press, uint16_t boot, uint8_t button, char kind);
/* grb: 3 bytes per LED in wire order (G, R, B); sent as RRGGBB per LED. */
void proto_send_fb(proto_tx_t *tx, uint16_t seq, uint16_t boot, uint8_t link, const uint8_t *grb,
                   uint16_t leds);

/* ---- frame buffer ---- */

uint16_t proto_led_count(const proto_layout_t *layout);
/*
 * The level (0-255) that keeps LEDs whose unscaled channels sum to `sum255` within the layout's
 * current budget: the largest L with idle + sum255 * L / 255 * 20 / 255 <= power_limit_ma.
 */
uint8_t proto_power_level(const proto_layout_t *layout, uint32_t sum255);
/*
 * Renders the strip into grb (3 bytes per LED, G R B), exactly as PROTOCOL.md's colour table:
 * seats, pool, status LED; scaled by min(brightness, max_brightness), or under test every LED
 * white at max_brightness; and by less when the current budget needs it.
 */
void proto_render(const proto_layout_t *layout, const proto_state_t *state, uint8_t link_alive,
                  uint8_t blink_on, uint8_t test, uint8_t *grb);

#ifdef __cplusplus
}
#endif

#endif

/*
 * LED stone counter for an Arduino Uno or Nano (ATmega328P, 16 MHz).
 *
 * A WS2812B strip shows each seat's stones or running result, the shared pool and a status LED;
 * one button per seat and an undo button send events to the host. Everything on the serial line
 * follows ../../PROTOCOL.md (115200 8N1, "$BODY*CRC\n" frames). Layout, brightness limit and pins
 * are set at compile time in config.h and board.h; wiring and flashing: ../README.md.
 */
#include <avr/interrupt.h>

#include "board.h"
#include "buttons.h"
#include "config.h"
#include "protocol.h"
#include "ws2812.h"

/* Without a valid frame for this long the status LED blinks red. */
#define LINK_TIMEOUT_MS 3000UL
#define BLINK_HALF_MS 500UL
/* Two ticks of board_millis() are at least 1 ms: more than the strip's 300 us latch time. */
#define SHOW_GAP_MS 2UL
/* A strip update waits this long at most for a frame being received to end. */
#define SHOW_DEFER_MS 20UL

static const proto_layout_t layout = { SEATS, LEDS_PER_SEAT, POOL_LEDS, MAX_BRIGHTNESS,
                                        POWER_LIMIT_MA };

/* G, R, B per LED exactly as last sent; one spare byte for the driver's read-ahead. */
static uint8_t frame_buffer[LED_COUNT * 3 + 1];
static proto_state_t display;
static uint8_t test_on;
static uint8_t dirty;          /* the state changed since the strip was last drawn */
static uint8_t shown_link;     /* link flag the strip shows */
static uint8_t shown_blink;
static uint32_t last_show_ms;
static uint32_t pending_since_ms;
static uint8_t pending;

static proto_rx_t rx;
static proto_tx_t tx;
static uint16_t boot;
static uint16_t last_set_seq;  /* 0: none since the last HELLO or reset */
static uint32_t last_valid_ms;

static button_t seat_buttons[1 + SEATS]; /* 0 undo, 1-SEATS seats */
static btn_queue_t btn_queue;
static uint32_t last_scan_ms;

static void uart_put(uint8_t c, void *ctx)
{
    (void)ctx;
    board_uart_write(c);
}

static uint8_t link_alive(uint32_t now)
{
    return now - last_valid_ms < LINK_TIMEOUT_MS;
}

/* The "on" half-second of the link-lost blink, counted from the moment the link was lost. */
static uint8_t blink_on(uint32_t now)
{
    return ((now - last_valid_ms - LINK_TIMEOUT_MS) / BLINK_HALF_MS) % 2 == 0;
}

/*
 * Redraws the strip when what it should show changed. Unless forced, a redraw waits (up to
 * SHOW_DEFER_MS) for a frame being received, because the UART loses bytes while interrupts
 * are off for the strip.
 */
static void refresh(uint32_t now, uint8_t force)
{
    uint8_t link = link_alive(now);
    uint8_t blink = link ? 1 : blink_on(now);
    if (dirty || link != shown_link || blink != shown_blink) {
        if (!pending) {
            pending = 1;
            pending_since_ms = now;
        }
    }
    if (!pending)
        return;
    if (!force && proto_rx_busy(&rx) && now - pending_since_ms < SHOW_DEFER_MS)
        return;
    while (board_millis() - last_show_ms < SHOW_GAP_MS)
        ;
    proto_render(&layout, &display, link, blink, test_on, frame_buffer);
    ws2812_send(frame_buffer, LED_COUNT * 3);
    last_show_ms = board_millis();
    shown_link = link;
    shown_blink = blink;
    dirty = 0;
    pending = 0;
}

static void handle_frame(const char *content, uint8_t len, uint32_t now)
{
    proto_cmd_t cmd;
    proto_err_t err = proto_parse(content, len, &layout, &cmd);

    if (err != PROTO_OK) {
        proto_send_nak(&tx, cmd.seq, boot, err);
    } else {
        switch (cmd.kind) {
        case CMD_HELLO:
            /* A new session: its host seq starts again at 1, so forget the last SET's seq. */
            last_set_seq = 0;
            proto_send_hello(&tx, cmd.seq, boot, &layout, btnq_first(&btn_queue));
            break;
        case CMD_SET:
            if (cmd.seq != last_set_seq) {
                display = cmd.state;
                last_set_seq = cmd.seq;
                dirty = 1;
            }
            proto_send_ack(&tx, cmd.seq, boot);
            break;
        case CMD_PING:
            proto_send_ack(&tx, cmd.seq, boot);
            break;
        case CMD_QUERY:
            refresh(now, 1);
            proto_send_fb(&tx, cmd.seq, boot, shown_link, frame_buffer, LED_COUNT);
            break;
        case CMD_TEST:
            if (test_on != cmd.test_on) {
                test_on = cmd.test_on;
                dirty = 1;
            }
            proto_send_ack(&tx, cmd.seq, boot);
            break;
        case CMD_ACK:
            btnq_ack(&btn_queue, cmd.seq);
            break;
        }
    }
    /*
     * Only frames taken without a NAK keep the link alive; counted after the reply, so that a
     * QUERY after a silence still reports the lost link.
     */
    if (err == PROTO_OK)
        last_valid_ms = now;
}

static void scan_buttons(uint32_t now)
{
    uint8_t i;
    for (i = 0; i <= SEATS; i++) {
        char kind = button_update(&seat_buttons[i], board_button_down(i), now);
        if (kind) {
            /* Numbered and sent at once; ignored when 8 presses already wait for the host. */
            btn_event_t *e = btnq_push(&btn_queue, i, kind, now);
            if (e)
                proto_send_btn(&tx, e->press, boot, e->button, e->kind);
        }
    }
}

void setup(void)
{
    uint8_t i;
    uint32_t now;

    board_init();
    ws2812_init();
    sei();

    proto_rx_init(&rx);
    tx.put = uart_put;
    tx.ctx = 0;
    btnq_init(&btn_queue);
    display.brightness = MAX_BRIGHTNESS;
    boot = board_next_boot();

    now = board_millis();
    last_valid_ms = now;
    last_scan_ms = now;
    last_show_ms = now - SHOW_GAP_MS;
    for (i = 0; i <= SEATS; i++)
        button_init(&seat_buttons[i], now);
    dirty = 1;
    proto_send_boot(&tx, boot);
}

void loop(void)
{
    uint8_t c;
    uint32_t now = board_millis();
    btn_event_t *due;

    while (board_uart_read(&c)) {
        uint8_t got = proto_rx_byte(&rx, c);
        if (got == PROTO_RX_FRAME) {
            handle_frame(rx.buf, rx.len, now);
            /* Drawn now, while the host still waits for the reply just queued. */
            refresh(now, 0);
        } else if (got == PROTO_RX_LONG) {
            proto_send_nak(&tx, 0, boot, PROTO_ERR_LONG);
        }
        now = board_millis();
    }
    if (now != last_scan_ms) {
        last_scan_ms = now;
        scan_buttons(now);
    }
    due = btnq_due(&btn_queue, now);
    if (due)
        proto_send_btn(&tx, due->press, boot, due->button, due->kind);
    refresh(now, 0);
}

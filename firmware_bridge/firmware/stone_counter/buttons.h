/*
 * Button logic without hardware (PROTOCOL.md, "Presses"): debouncing (a level must hold 20 ms),
 * press kinds ('P' released within 1 s, 'L' once held 1 s, its release silent) and the queue of
 * up to 8 unacknowledged presses, numbered in the order pressed; the oldest is resent every
 * 250 ms until the host acknowledges it, and a press while 8 wait is ignored (never a gap).
 * Times are milliseconds from a free-running counter; differences are taken modulo 2^32.
 */
#ifndef STONE_COUNTER_BUTTONS_H
#define STONE_COUNTER_BUTTONS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BUTTON_DEBOUNCE_MS 20
#define BUTTON_LONG_MS 1000
#define BTN_QUEUE_LEN 8
#define BTN_RESEND_MS 250

typedef struct {
    uint8_t raw;        /* last sampled level, 1 = pressed */
    uint8_t stable;     /* debounced level */
    uint8_t long_sent;  /* this press already produced 'L' */
    uint32_t raw_since; /* when raw last changed */
    uint32_t pressed_at;
} button_t;

void button_init(button_t *b, uint32_t now);
/* Feeds one sample (1 = pressed). Returns 'P', 'L' or 0 (no event). */
char button_update(button_t *b, uint8_t pressed, uint32_t now);

typedef struct {
    uint16_t press; /* its number: 1 for the first press after a reset, 65535 then 1 again */
    uint8_t button;
    char kind;
    uint32_t sent_at;
} btn_event_t;

typedef struct {
    btn_event_t events[BTN_QUEUE_LEN]; /* oldest first, numbers consecutive */
    uint8_t count;
    uint16_t next; /* the number the next press gets */
} btn_queue_t;

/* The press number k after p (1-65535, 0 never used). */
uint16_t btn_press_add(uint16_t p, uint16_t k);

void btnq_init(btn_queue_t *q);
/*
 * Numbers a new press and queues it as sent at `now`. Returns it, or NULL when 8 already wait:
 * that press is ignored, so that the host never waits for a number that will not come.
 */
btn_event_t *btnq_push(btn_queue_t *q, uint8_t button, char kind, uint32_t now);
/*
 * The host acknowledged every press up to and including `press`: when `press` is waiting, it
 * and all older ones are removed (returns how many); any other number changes nothing.
 */
uint8_t btnq_ack(btn_queue_t *q, uint16_t press);
/* The oldest press if it is due for a resend at `now` (and marks it sent), else NULL. */
btn_event_t *btnq_due(btn_queue_t *q, uint32_t now);
/* The number the host should expect next: the oldest waiting press's, else the next press's. */
uint16_t btnq_first(const btn_queue_t *q);

#ifdef __cplusplus
}
#endif

#endif

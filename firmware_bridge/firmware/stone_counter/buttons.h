/*
 * Button logic without hardware (PROTOCOL.md, "Device -> host"): debouncing (a level must hold
 * 20 ms), press kinds ('P' released within 1 s, 'L' once held 1 s, its release silent) and the
 * queue of up to 8 unacknowledged BTN events, the oldest resent every 250 ms.
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
    uint16_t dseq;
    uint8_t button;
    char kind;
    uint32_t sent_at;
} btn_event_t;

typedef struct {
    btn_event_t events[BTN_QUEUE_LEN]; /* oldest first */
    uint8_t count;
} btn_queue_t;

void btnq_init(btn_queue_t *q);
/* Appends an event sent at `now`; a ninth drops the oldest. */
void btnq_push(btn_queue_t *q, uint16_t dseq, uint8_t button, char kind, uint32_t now);
/* Removes the event with this dseq; returns 1 if there was one. */
uint8_t btnq_ack(btn_queue_t *q, uint16_t dseq);
/* The oldest event if it is due for a resend at `now` (and marks it sent), else NULL. */
btn_event_t *btnq_due(btn_queue_t *q, uint32_t now);

#ifdef __cplusplus
}
#endif

#endif

/* Button debouncing, press kinds and the BTN resend queue; see buttons.h. */
#include "buttons.h"

#include <stddef.h>
#include <string.h>

void button_init(button_t *b, uint32_t now)
{
    memset(b, 0, sizeof(*b));
    b->raw_since = now;
}

char button_update(button_t *b, uint8_t pressed, uint32_t now)
{
    pressed = pressed ? 1 : 0;
    if (pressed != b->raw) {
        b->raw = pressed;
        b->raw_since = now;
    }
    if (b->raw != b->stable && now - b->raw_since >= BUTTON_DEBOUNCE_MS) {
        b->stable = b->raw;
        if (b->stable) {
            b->pressed_at = now;
            b->long_sent = 0;
        } else if (!b->long_sent) {
            return 'P';
        }
    }
    if (b->stable && !b->long_sent && now - b->pressed_at >= BUTTON_LONG_MS) {
        b->long_sent = 1;
        return 'L';
    }
    return 0;
}

uint16_t btn_press_add(uint16_t p, uint16_t k)
{
    return (uint16_t)(((uint32_t)p - 1 + k) % 65535 + 1);
}

void btnq_init(btn_queue_t *q)
{
    q->count = 0;
    q->next = 1;
}

btn_event_t *btnq_push(btn_queue_t *q, uint8_t button, char kind, uint32_t now)
{
    btn_event_t *e;
    if (q->count == BTN_QUEUE_LEN)
        return NULL;
    e = &q->events[q->count++];
    e->press = q->next;
    e->button = button;
    e->kind = kind;
    e->sent_at = now;
    q->next = btn_press_add(q->next, 1);
    return e;
}

uint8_t btnq_ack(btn_queue_t *q, uint16_t press)
{
    uint8_t i, n;
    for (i = 0; i < q->count; i++) {
        if (q->events[i].press == press) {
            n = (uint8_t)(i + 1);
            memmove(&q->events[0], &q->events[n], sizeof(btn_event_t) * (q->count - n));
            q->count = (uint8_t)(q->count - n);
            return n;
        }
    }
    return 0;
}

btn_event_t *btnq_due(btn_queue_t *q, uint32_t now)
{
    btn_event_t *e;
    if (q->count == 0)
        return NULL;
    e = &q->events[0];
    if (now - e->sent_at < BTN_RESEND_MS)
        return NULL;
    e->sent_at = now;
    return e;
}

uint16_t btnq_first(const btn_queue_t *q)
{
    return q->count ? q->events[0].press : q->next;
}

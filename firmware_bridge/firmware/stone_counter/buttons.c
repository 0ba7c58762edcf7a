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

void btnq_init(btn_queue_t *q)
{
    q->count = 0;
}

void btnq_push(btn_queue_t *q, uint16_t dseq, uint8_t button, char kind, uint32_t now)
{
    btn_event_t *e;
    if (q->count == BTN_QUEUE_LEN) {
        memmove(&q->events[0], &q->events[1], sizeof(btn_event_t) * (BTN_QUEUE_LEN - 1));
        q->count--;
    }
    e = &q->events[q->count++];
    e->dseq = dseq;
    e->button = button;
    e->kind = kind;
    e->sent_at = now;
}

uint8_t btnq_ack(btn_queue_t *q, uint16_t dseq)
{
    uint8_t i;
    for (i = 0; i < q->count; i++) {
        if (q->events[i].dseq == dseq) {
            memmove(&q->events[i], &q->events[i + 1], sizeof(btn_event_t) * (q->count - i - 1));
            q->count--;
            return 1;
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

/* Device side of the stone counter protocol; see protocol.h and ../../PROTOCOL.md. */
#include "protocol.h"

#include <string.h>

#include "config.h"

enum { RX_IDLE = 0, RX_IN_FRAME, RX_TOO_LONG };

uint16_t proto_crc16_update(uint16_t crc, uint8_t byte)
{
    uint8_t i;
    crc ^= (uint16_t)byte << 8;
    for (i = 0; i < 8; i++)
        crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    return crc;
}

uint16_t proto_crc16(const char *data, size_t len)
{
    uint16_t crc = 0xFFFF;
    while (len--)
        crc = proto_crc16_update(crc, (uint8_t)*data++);
    return crc;
}

/* ---------------------------------------------------------------- receiver */

void proto_rx_init(proto_rx_t *rx)
{
    rx->len = 0;
    rx->state = RX_IDLE;
    rx->buf[0] = '\0';
}

uint8_t proto_rx_busy(const proto_rx_t *rx)
{
    return rx->state != RX_IDLE;
}

uint8_t proto_rx_byte(proto_rx_t *rx, uint8_t c)
{
    if (c == '$') {
        rx->state = RX_IN_FRAME;
        rx->len = 0;
        return PROTO_RX_NONE;
    }
    if (rx->state == RX_IDLE)
        return PROTO_RX_NONE;
    if (c == '\n') {
        uint8_t too_long = rx->state == RX_TOO_LONG;
        rx->state = RX_IDLE;
        if (rx->len > 0 && rx->buf[rx->len - 1] == '\r')
            rx->len--;
        if (too_long || rx->len > PROTO_RX_CONTENT_MAX)
            return PROTO_RX_LONG;
        rx->buf[rx->len] = '\0';
        return PROTO_RX_FRAME;
    }
    if (rx->state == RX_TOO_LONG)
        return PROTO_RX_NONE;
    /* One byte of slack keeps a '\r' that may end a frame of the longest allowed length. */
    if (rx->len >= PROTO_RX_CONTENT_MAX + 1) {
        rx->state = RX_TOO_LONG;
        return PROTO_RX_NONE;
    }
    rx->buf[rx->len++] = (char)c;
    return PROTO_RX_NONE;
}

/* ---------------------------------------------------------------- parsing */

const char *proto_err_name(proto_err_t err)
{
    switch (err) {
    case PROTO_ERR_CRC: return "crc";
    case PROTO_ERR_PARSE: return "parse";
    case PROTO_ERR_RANGE: return "range";
    case PROTO_ERR_UNKNOWN: return "unknown";
    case PROTO_ERR_LONG: return "long";
    default: return "";
    }
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Number parse results. */
enum { NUM_OK = 0, NUM_BAD };

/*
 * Decimal integer with an optional '-', field [s, e). Magnitudes beyond 999999 are clamped,
 * which keeps them out of every range while staying a number (NAK range, not parse).
 */
static uint8_t parse_long(const char *s, const char *e, long *out)
{
    uint8_t neg = 0;
    long v = 0;
    if (s < e && *s == '-') {
        neg = 1;
        s++;
    }
    if (s == e)
        return NUM_BAD;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9')
            return NUM_BAD;
        if (v < 1000000L)
            v = v * 10 + (*s - '0');
    }
    *out = neg ? -v : v;
    return NUM_OK;
}

/* Splits body into at most max fields: starts[i], ends[i]. Returns the field count. */
static uint8_t split_fields(const char *body, const char *end, const char **starts,
                            const char **ends, uint8_t max)
{
    uint8_t n = 0;
    const char *s = body;
    for (;;) {
        const char *p = s;
        while (p < end && *p != ',')
            p++;
        if (n < max) {
            starts[n] = s;
            ends[n] = p;
        }
        n++;
        if (p == end)
            break;
        s = p + 1;
    }
    return n;
}

static uint8_t field_is(const char *s, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - s) == n && memcmp(s, word, n) == 0;
}

#define MAX_FIELDS (5 + PROTO_MAX_SEATS + 1)

proto_err_t proto_parse(const char *content, uint8_t len, const proto_layout_t *layout,
                        proto_cmd_t *cmd)
{
    const char *starts[MAX_FIELDS];
    const char *ends[MAX_FIELDS];
    const char *body = content;
    const char *body_end;
    const char *p;
    uint8_t nfields, i, no_crc = 0, bad_crc = 0;
    long v;
    uint16_t crc_given = 0;

    memset(cmd, 0, sizeof(*cmd));

    /* BODY '*' CRC, the CRC after the last '*': 4 upper-case hex digits. */
    body_end = NULL;
    for (p = content + len; p > content;)
        if (*--p == '*') {
            body_end = p;
            break;
        }
    if (!body_end) {
        body_end = content + len;
        no_crc = 1;
    } else if (content + len - body_end != 5) {
        bad_crc = 1;
    } else {
        for (i = 1; i <= 4; i++) {
            int d = hex_digit(body_end[i]);
            if (d < 0)
                bad_crc = 1;
            crc_given = (uint16_t)((crc_given << 4) | (uint16_t)(d < 0 ? 0 : d));
        }
    }

    nfields = split_fields(body, body_end, starts, ends, MAX_FIELDS);
    if (nfields >= 2 && parse_long(starts[1], ends[1], &v) == NUM_OK && v >= 1 && v <= 65535)
        cmd->seq = (uint16_t)v;

    if (no_crc)
        return PROTO_ERR_PARSE;
    if (bad_crc || proto_crc16(body, (size_t)(body_end - body)) != crc_given)
        return PROTO_ERR_CRC;
    cmd->crc_ok = 1;
    for (p = body; p < body_end; p++)
        if (*p < 0x20 || *p > 0x7E || *p == '*')
            return PROTO_ERR_PARSE;

    if (field_is(starts[0], ends[0], "HELLO")) cmd->kind = CMD_HELLO;
    else if (field_is(starts[0], ends[0], "SET")) cmd->kind = CMD_SET;
    else if (field_is(starts[0], ends[0], "PING")) cmd->kind = CMD_PING;
    else if (field_is(starts[0], ends[0], "QUERY")) cmd->kind = CMD_QUERY;
    else if (field_is(starts[0], ends[0], "TEST")) cmd->kind = CMD_TEST;
    else if (field_is(starts[0], ends[0], "ACK")) cmd->kind = CMD_ACK;
    else return PROTO_ERR_UNKNOWN;

    if (nfields < 2 || parse_long(starts[1], ends[1], &v) != NUM_OK)
        return PROTO_ERR_PARSE;
    if (v < 1 || v > 65535)
        return PROTO_ERR_RANGE;

    switch (cmd->kind) {
    case CMD_PING:
    case CMD_QUERY:
    case CMD_ACK:
        return nfields == 2 ? PROTO_OK : PROTO_ERR_PARSE;
    case CMD_HELLO:
        if (nfields != 3 || parse_long(starts[2], ends[2], &v) != NUM_OK)
            return PROTO_ERR_PARSE;
        if (v < 0 || v > 255)
            return PROTO_ERR_RANGE;
        cmd->proto = (uint16_t)v;
        return PROTO_OK;
    case CMD_TEST:
        if (nfields != 3)
            return PROTO_ERR_PARSE;
        if (field_is(starts[2], ends[2], "on")) cmd->test_on = 1;
        else if (field_is(starts[2], ends[2], "off")) cmd->test_on = 0;
        else return PROTO_ERR_PARSE;
        return PROTO_OK;
    default: /* CMD_SET: SET,seq,brightness,turn,pool,v1..vN */
        break;
    }
    if (nfields < 6)
        return PROTO_ERR_PARSE;
    {
        uint8_t n = (uint8_t)(nfields > MAX_FIELDS ? MAX_FIELDS : nfields);
        long fields[MAX_FIELDS];
        for (i = 2; i < n; i++)
            if (parse_long(starts[i], ends[i], &fields[i]) != NUM_OK)
                return PROTO_ERR_PARSE;
        if (nfields > MAX_FIELDS) {
            /* Too many seat values: still every field must be a number before that is a range. */
            const char *f = ends[MAX_FIELDS - 1];
            while (f < body_end) {
                const char *e = ++f;
                while (e < body_end && *e != ',')
                    e++;
                if (parse_long(f, e, &v) != NUM_OK)
                    return PROTO_ERR_PARSE;
                f = e;
            }
        }
        if (nfields - 5 > layout->seats)
            return PROTO_ERR_RANGE;
        if (fields[2] < 0 || fields[2] > 255 || fields[3] < 0 || fields[3] > PROTO_MAX_SEATS
            || fields[4] < 0 || fields[4] > layout->pool_leds)
            return PROTO_ERR_RANGE;
        for (i = 5; i < n; i++)
            if (fields[i] < -(long)layout->leds_per_seat || fields[i] > layout->leds_per_seat)
                return PROTO_ERR_RANGE;
        cmd->state.brightness = (uint8_t)fields[2];
        cmd->state.turn = (uint8_t)fields[3];
        cmd->state.pool = (uint8_t)fields[4];
        cmd->state.count = (uint8_t)(n - 5);
        for (i = 5; i < n; i++)
            cmd->state.values[i - 5] = (int8_t)fields[i];
    }
    return PROTO_OK;
}

/* ---------------------------------------------------------------- encoding */

void proto_tx_begin(proto_tx_t *tx)
{
    tx->crc = 0xFFFF;
    tx->put('$', tx->ctx);
}

void proto_tx_char(proto_tx_t *tx, char c)
{
    tx->crc = proto_crc16_update(tx->crc, (uint8_t)c);
    tx->put((uint8_t)c, tx->ctx);
}

void proto_tx_str(proto_tx_t *tx, const char *s)
{
    while (*s)
        proto_tx_char(tx, *s++);
}

void proto_tx_uint(proto_tx_t *tx, uint16_t v)
{
    char digits[5];
    uint8_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        proto_tx_char(tx, digits[--n]);
}

static const char HEX[] = "0123456789ABCDEF";

void proto_tx_hex8(proto_tx_t *tx, uint8_t v)
{
    proto_tx_char(tx, HEX[v >> 4]);
    proto_tx_char(tx, HEX[v & 15]);
}

void proto_tx_end(proto_tx_t *tx)
{
    uint16_t crc = tx->crc;
    tx->put('*', tx->ctx);
    tx->put((uint8_t)HEX[(crc >> 12) & 15], tx->ctx);
    tx->put((uint8_t)HEX[(crc >> 8) & 15], tx->ctx);
    tx->put((uint8_t)HEX[(crc >> 4) & 15], tx->ctx);
    tx->put((uint8_t)HEX[crc & 15], tx->ctx);
    tx->put('\n', tx->ctx);
}

static void tx_head(proto_tx_t *tx, const char *type, uint16_t seq)
{
    proto_tx_begin(tx);
    proto_tx_str(tx, type);
    proto_tx_char(tx, ',');
    proto_tx_uint(tx, seq);
}

static void tx_field_uint(proto_tx_t *tx, uint16_t v)
{
    proto_tx_char(tx, ',');
    proto_tx_uint(tx, v);
}

void proto_send_ack(proto_tx_t *tx, uint16_t seq, uint16_t boot)
{
    tx_head(tx, "ACK", seq);
    tx_field_uint(tx, boot);
    proto_tx_end(tx);
}

void proto_send_nak(proto_tx_t *tx, uint16_t seq, uint16_t boot, proto_err_t reason)
{
    tx_head(tx, "NAK", seq);
    tx_field_uint(tx, boot);
    proto_tx_char(tx, ',');
    proto_tx_str(tx, proto_err_name(reason));
    proto_tx_end(tx);
}

void proto_send_boot(proto_tx_t *tx, uint16_t boot)
{
    tx_head(tx, "BOOT", 0);
    proto_tx_char(tx, ',');
    proto_tx_str(tx, FW_VERSION);
    tx_field_uint(tx, PROTO_VERSION);
    tx_field_uint(tx, boot);
    proto_tx_end(tx);
}

void proto_send_hello(proto_tx_t *tx, uint16_t seq, uint16_t boot, const proto_layout_t *layout,
                      uint16_t press)
{
    tx_head(tx, "HELLO", seq);
    proto_tx_char(tx, ',');
    proto_tx_str(tx, FW_VERSION);
    tx_field_uint(tx, PROTO_VERSION);
    tx_field_uint(tx, boot);
    tx_field_uint(tx, layout->seats);
    tx_field_uint(tx, layout->leds_per_seat);
    tx_field_uint(tx, layout->pool_leds);
    tx_field_uint(tx, layout->max_brightness);
    tx_field_uint(tx, layout->power_limit_ma);
    tx_field_uint(tx, press);
    proto_tx_end(tx);
}

void proto_send_btn(proto_tx_t *tx, uint16_t press, uint16_t boot, uint8_t button, char kind)
{
    tx_head(tx, "BTN", press);
    tx_field_uint(tx, boot);
    tx_field_uint(tx, button);
    proto_tx_char(tx, ',');
    proto_tx_char(tx, kind);
    proto_tx_end(tx);
}

void proto_send_fb(proto_tx_t *tx, uint16_t seq, uint16_t boot, uint8_t link, const uint8_t *grb,
                   uint16_t leds)
{
    uint16_t i;
    tx_head(tx, "FB", seq);
    tx_field_uint(tx, boot);
    tx_field_uint(tx, link ? 1 : 0);
    proto_tx_char(tx, ',');
    for (i = 0; i < leds; i++, grb += 3) {
        proto_tx_hex8(tx, grb[1]);
        proto_tx_hex8(tx, grb[0]);
        proto_tx_hex8(tx, grb[2]);
    }
    proto_tx_end(tx);
}

/* ---------------------------------------------------------------- frame buffer */

uint16_t proto_led_count(const proto_layout_t *layout)
{
    return (uint16_t)(layout->seats * layout->leds_per_seat + layout->pool_leds + 1);
}

uint8_t proto_power_level(const proto_layout_t *layout, uint32_t sum255)
{
    uint16_t idle = (uint16_t)(proto_led_count(layout) * PROTO_LED_IDLE_MA);
    uint32_t budget, level;
    if (layout->power_limit_ma <= idle)
        return 0;
    if (sum255 == 0)
        return 255;
    budget = (uint32_t)(layout->power_limit_ma - idle);
    /* budget * 65025 fits 32 bits for any uint16 budget; sum255 <= 97 LEDs * 765. */
    level = budget * 65025UL / ((uint32_t)PROTO_LED_CHANNEL_MA * sum255);
    return (uint8_t)(level > 255 ? 255 : level);
}

static uint8_t *put_led(uint8_t *grb, uint8_t r, uint8_t g, uint8_t b)
{
    grb[0] = g;
    grb[1] = r;
    grb[2] = b;
    return grb + 3;
}

void proto_render(const proto_layout_t *layout, const proto_state_t *state, uint8_t link_alive,
                  uint8_t blink_on, uint8_t test, uint8_t *grb)
{
    uint8_t level = state->brightness < layout->max_brightness ? state->brightness
                                                                : layout->max_brightness;
    uint8_t *p = grb;
    uint8_t seat, i, cap;
    uint16_t n, count = proto_led_count(layout);
    uint32_t sum = 0;

    /* Unscaled colours first. */
    if (test) {
        level = layout->max_brightness;
        for (n = count; n; n--)
            p = put_led(p, 255, 255, 255);
    } else {
        for (seat = 0; seat < layout->seats; seat++) {
            int8_t v = seat < state->count ? state->values[seat] : 0;
            uint8_t lit = (uint8_t)(v < 0 ? -v : v);
            uint8_t to_act = seat < state->count && state->turn == seat + 1;
            for (i = 0; i < layout->leds_per_seat; i++) {
                if (i < lit && v > 0)
                    p = put_led(p, 0, 255, 0);
                else if (i < lit)
                    p = put_led(p, 255, 0, 0);
                else if (to_act)
                    p = put_led(p, 0, 0, 64);
                else
                    p = put_led(p, 0, 0, 0);
            }
        }
        for (i = 0; i < layout->pool_leds; i++)
            p = i < state->pool ? put_led(p, 255, 160, 0) : put_led(p, 0, 0, 0);
        if (link_alive)
            put_led(p, 0, 255, 0);
        else if (blink_on)
            put_led(p, 255, 0, 0);
        else
            put_led(p, 0, 0, 0);
    }
    /*
     * The budget: the status LED counts as lit (255, or white under test) in either blink phase,
     * so that the blink never changes the level of the rest of the strip.
     */
    for (n = 0; n + 3 < 3 * count; n++)
        sum += grb[n];
    sum += test ? 765 : 255;
    cap = proto_power_level(layout, sum);
    if (cap < level)
        level = cap;
    for (n = 0; n < 3 * count; n++)
        grb[n] = (uint8_t)(((uint16_t)grb[n] * level) / 255);
}

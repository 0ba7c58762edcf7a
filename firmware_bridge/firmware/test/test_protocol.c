/*
 * Native (host gcc) unit test of the firmware's protocol and button code: the CRC against the
 * shared vectors (../vectors/crc.tsv, argv[1]), every host frame of ../vectors/frames.tsv
 * (argv[2]) through the receiver and parser with the result the table gives, frame reception,
 * parsing, encoding of device frames (checked against the vectors' CRCs), the frame buffer,
 * debouncing and the BTN queue. Prints one "ok"/"not ok" line per check; exit status 1 on failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buttons.h"
#include "config.h"
#include "protocol.h"

static int failures, checks;

#define CHECK(cond, ...)                                  \
    do {                                                  \
        checks++;                                         \
        if (cond) {                                       \
            printf("ok %d - ", checks);                   \
        } else {                                          \
            failures++;                                   \
            printf("not ok %d - (%s:%d) ", checks, __FILE__, __LINE__); \
        }                                                 \
        printf(__VA_ARGS__);                              \
        printf("\n");                                     \
    } while (0)

static const proto_layout_t LAYOUT = { 8, 10, 10, 64, 450 };

/* ---- vectors ---- */

#define MAX_VECTORS 64
static char vec_body[MAX_VECTORS][256];
static unsigned vec_crc[MAX_VECTORS];
static int vec_count;

static void load_vectors(const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, f) && vec_count < MAX_VECTORS) {
        char *tab;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        tab = strchr(line, '\t');
        if (!tab) {
            fprintf(stderr, "%s: line without a tab: %s\n", path, line);
            exit(2);
        }
        *tab = '\0';
        snprintf(vec_body[vec_count], sizeof vec_body[0], "%s", line);
        vec_crc[vec_count] = (unsigned)strtoul(tab + 1, NULL, 16);
        vec_count++;
    }
    fclose(f);
}

/* The whole frame "$BODY*CRC\n" for a vector body, with the CRC from the file. */
static int vector_frame(const char *body, char *out, size_t size)
{
    int i;
    for (i = 0; i < vec_count; i++)
        if (strcmp(vec_body[i], body) == 0) {
            snprintf(out, size, "$%s*%04X\n", body, vec_crc[i]);
            return 1;
        }
    return 0;
}

/* ---- a sink collecting encoded frames ---- */

typedef struct {
    char buf[700];
    size_t len;
} sink_t;

static void sink_put(uint8_t c, void *ctx)
{
    sink_t *s = (sink_t *)ctx;
    if (s->len + 1 < sizeof s->buf)
        s->buf[s->len++] = (char)c;
    s->buf[s->len] = '\0';
}

static proto_tx_t tx_to(sink_t *s)
{
    proto_tx_t tx;
    s->len = 0;
    s->buf[0] = '\0';
    tx.put = sink_put;
    tx.ctx = s;
    tx.crc = 0;
    return tx;
}

static void check_encoded(const char *what, const sink_t *s, const char *body)
{
    char want[256];
    if (!vector_frame(body, want, sizeof want)) {
        CHECK(0, "%s: vector %s missing from crc.tsv", what, body);
        return;
    }
    CHECK(strcmp(s->buf, want) == 0, "encode %s: got %.*s", what, (int)strcspn(s->buf, "\n"), s->buf);
}

/* ---- parsing helpers ---- */

static proto_err_t parse_body(const char *body, proto_cmd_t *cmd)
{
    char content[200];
    snprintf(content, sizeof content, "%s*%04X", body, proto_crc16(body, strlen(body)));
    return proto_parse(content, (uint8_t)strlen(content), &LAYOUT, cmd);
}

static proto_err_t parse_raw(const char *content, proto_cmd_t *cmd)
{
    return proto_parse(content, (uint8_t)strlen(content), &LAYOUT, cmd);
}

static void test_crc(void)
{
    int i;
    CHECK(vec_count >= 10, "crc.tsv holds %d vectors", vec_count);
    for (i = 0; i < vec_count; i++)
        CHECK(proto_crc16(vec_body[i], strlen(vec_body[i])) == vec_crc[i], "crc of '%s' is %04X",
              vec_body[i], vec_crc[i]);
}

static void test_parse_vectors(void)
{
    proto_cmd_t cmd;
    char frame[256];
    proto_err_t err;

    vector_frame("HELLO,1,1", frame, sizeof frame);
    frame[strlen(frame) - 1] = '\0';
    err = proto_parse(frame + 1, (uint8_t)strlen(frame + 1), &LAYOUT, &cmd);
    CHECK(err == PROTO_OK && cmd.kind == CMD_HELLO && cmd.seq == 1 && cmd.proto == 1,
          "HELLO vector parses");

    vector_frame("SET,2,255,1,7,2,1", frame, sizeof frame);
    frame[strlen(frame) - 1] = '\0';
    err = proto_parse(frame + 1, (uint8_t)strlen(frame + 1), &LAYOUT, &cmd);
    CHECK(err == PROTO_OK && cmd.kind == CMD_SET && cmd.seq == 2 && cmd.state.brightness == 255
              && cmd.state.turn == 1 && cmd.state.pool == 7 && cmd.state.count == 2
              && cmd.state.values[0] == 2 && cmd.state.values[1] == 1,
          "SET vector parses");

    err = parse_body("SET,3,64,0,10,-3,0,10,-10,5,1", &cmd);
    CHECK(err == PROTO_OK && cmd.state.count == 6 && cmd.state.values[0] == -3
              && cmd.state.values[3] == -10 && cmd.state.values[5] == 1 && cmd.state.pool == 10,
          "SET with six seats and negative values parses");
    CHECK(parse_body("PING,4", &cmd) == PROTO_OK && cmd.kind == CMD_PING && cmd.seq == 4,
          "PING parses");
    CHECK(parse_body("QUERY,5", &cmd) == PROTO_OK && cmd.kind == CMD_QUERY && cmd.seq == 5,
          "QUERY parses");
    err = parse_body("SET,21,255,8,10,1,2,3,4,5,6,7,-8", &cmd);
    CHECK(err == PROTO_OK && cmd.state.count == 8 && cmd.state.turn == 8
              && cmd.state.values[6] == 7 && cmd.state.values[7] == -8,
          "SET with eight seats (Bagaji) parses");
    CHECK(parse_body("TEST,9,on", &cmd) == PROTO_OK && cmd.kind == CMD_TEST && cmd.test_on == 1,
          "TEST on parses");
    CHECK(parse_body("TEST,10,off", &cmd) == PROTO_OK && cmd.test_on == 0 && cmd.seq == 10,
          "TEST off parses");
    CHECK(parse_body("ACK,65535", &cmd) == PROTO_OK && cmd.kind == CMD_ACK && cmd.seq == 65535,
          "ACK of a device seq parses");
}

static void test_parse_errors(void)
{
    proto_cmd_t cmd;
    CHECK(parse_raw("PING,4*A636", &cmd) == PROTO_ERR_CRC && cmd.seq == 4 && !cmd.crc_ok,
          "wrong CRC: NAK crc with the frame's seq");
    CHECK(parse_raw("PING,4*a637", &cmd) == PROTO_ERR_CRC && cmd.seq == 4,
          "lower-case CRC digits: crc");
    CHECK(parse_raw("PING,4", &cmd) == PROTO_ERR_PARSE && cmd.seq == 4, "no '*': parse");
    CHECK(parse_raw("PING,4*A6G7", &cmd) == PROTO_ERR_CRC, "CRC not hex: crc");
    CHECK(parse_raw("PING,4*A63", &cmd) == PROTO_ERR_CRC, "three CRC digits: crc");
    CHECK(parse_raw("xx*1*0000", &cmd) == PROTO_ERR_CRC && cmd.seq == 0,
          "'*' in the body: crc, seq 0");
    {
        char body[] = "PI*G,4";
        char content[32];
        snprintf(content, sizeof content, "%s*%04X", body, proto_crc16(body, strlen(body)));
        CHECK(parse_raw(content, &cmd) == PROTO_ERR_PARSE && cmd.crc_ok,
              "'*' in a body whose CRC matches: parse");
    }
    CHECK(parse_body("PING", &cmd) == PROTO_ERR_PARSE && cmd.seq == 0 && cmd.crc_ok,
          "missing seq: parse, seq 0");
    CHECK(parse_body("PING,x", &cmd) == PROTO_ERR_PARSE, "seq not a number: parse");
    CHECK(parse_body("PING,0", &cmd) == PROTO_ERR_RANGE, "seq 0: range");
    CHECK(parse_body("PING,65536", &cmd) == PROTO_ERR_RANGE, "seq 65536: range");
    CHECK(parse_body("PING,4,5", &cmd) == PROTO_ERR_PARSE && cmd.seq == 4, "extra field: parse");
    CHECK(parse_body("FOO,3", &cmd) == PROTO_ERR_UNKNOWN && cmd.seq == 3, "unknown type");
    CHECK(parse_body("BOOT,1,2.0.0,2,7", &cmd) == PROTO_ERR_UNKNOWN,
          "a device frame sent to the device: unknown");
    CHECK(parse_body("TEST,4,maybe", &cmd) == PROTO_ERR_PARSE, "TEST neither on nor off: parse");
    CHECK(parse_body("HELLO,1", &cmd) == PROTO_ERR_PARSE, "HELLO without proto: parse");
    CHECK(parse_body("SET,2,255,1,7", &cmd) == PROTO_ERR_PARSE && cmd.seq == 2,
          "SET without seat values: parse");
    CHECK(parse_body("SET,2,255,1,7,+1", &cmd) == PROTO_ERR_PARSE, "'+' is not a number");
    CHECK(parse_body("SET,2,255,1,7,1,,1", &cmd) == PROTO_ERR_PARSE, "empty field: parse");
    CHECK(parse_body("SET,2,256,1,7,1", &cmd) == PROTO_ERR_RANGE, "brightness 256: range");
    CHECK(parse_body("SET,2,-1,1,7,1", &cmd) == PROTO_ERR_RANGE, "brightness -1: range");
    CHECK(parse_body("SET,2,255,9,7,1", &cmd) == PROTO_ERR_RANGE, "turn 9: range");
    CHECK(parse_body("SET,2,255,1,11,1", &cmd) == PROTO_ERR_RANGE, "pool 11: range");
    CHECK(parse_body("SET,2,255,1,7,11", &cmd) == PROTO_ERR_RANGE, "value 11: range");
    CHECK(parse_body("SET,2,255,1,7,-11", &cmd) == PROTO_ERR_RANGE, "value -11: range");
    CHECK(parse_body("SET,2,255,1,7,1,2,3,4,5,6,7,8,9", &cmd) == PROTO_ERR_RANGE,
          "nine seats on an eight-seat layout: range");
    {
        static const proto_layout_t six = { 6, 10, 10, 64, 450 };
        char content[64];
        const char *body = "SET,2,255,1,7,1,2,3,4,5,6,7";
        snprintf(content, sizeof content, "%s*%04X", body, proto_crc16(body, strlen(body)));
        CHECK(proto_parse(content, (uint8_t)strlen(content), &six, &cmd) == PROTO_ERR_RANGE,
              "seven seats on a six-seat layout: range");
    }
    CHECK(parse_body("SET,2,255,1,7,1,2,3,4,5,6,7,8,9,10,11,12", &cmd) == PROTO_ERR_RANGE,
          "many seats: range");
    CHECK(parse_body("SET,2,99999999999,1,7,1", &cmd) == PROTO_ERR_RANGE,
          "a huge number is a number out of range");
    {
        char body[] = "P\x01NG,4";
        char content[32];
        snprintf(content, sizeof content, "%s*%04X", body, proto_crc16(body, strlen(body)));
        CHECK(parse_raw(content, &cmd) == PROTO_ERR_PARSE && cmd.seq == 4,
              "control character in the body: parse");
    }
    CHECK(strcmp(proto_err_name(PROTO_ERR_CRC), "crc") == 0
              && strcmp(proto_err_name(PROTO_ERR_LONG), "long") == 0
              && strcmp(proto_err_name(PROTO_ERR_UNKNOWN), "unknown") == 0,
          "NAK reason words");
}

static void test_encode(void)
{
    sink_t s;
    proto_tx_t tx;
    uint8_t zeros[6] = { 0 };

    tx = tx_to(&s);
    proto_send_hello(&tx, 1, 7, &LAYOUT, 1);
    check_encoded("HELLO reply", &s, "HELLO,1,2.0.0,2,7,8,10,10,64,450,1");
    tx = tx_to(&s);
    proto_send_boot(&tx, 7);
    check_encoded("BOOT", &s, "BOOT,0,2.0.0,2,7");
    tx = tx_to(&s);
    proto_send_btn(&tx, 2, 7, 3, 'P');
    check_encoded("BTN press", &s, "BTN,2,7,3,P");
    tx = tx_to(&s);
    proto_send_btn(&tx, 3, 7, 0, 'L');
    check_encoded("BTN long", &s, "BTN,3,7,0,L");
    tx = tx_to(&s);
    proto_send_ack(&tx, 5, 7);
    check_encoded("ACK", &s, "ACK,5,7");
    tx = tx_to(&s);
    proto_send_ack(&tx, 65535, 65535);
    check_encoded("ACK 65535", &s, "ACK,65535,65535");
    tx = tx_to(&s);
    proto_send_nak(&tx, 7, 7, PROTO_ERR_CRC);
    check_encoded("NAK crc", &s, "NAK,7,7,crc");
    tx = tx_to(&s);
    proto_send_nak(&tx, 0, 7, PROTO_ERR_LONG);
    check_encoded("NAK long", &s, "NAK,0,7,long");
    tx = tx_to(&s);
    proto_send_fb(&tx, 5, 7, 1, zeros, 2);
    check_encoded("FB", &s, "FB,5,7,1,000000000000");
    {
        uint8_t grb[3] = { 0x12, 0xAB, 0x07 };
        tx = tx_to(&s);
        proto_send_fb(&tx, 9, 0, 0, grb, 1);
        CHECK(strncmp(s.buf, "$FB,9,0,0,AB1207*", 17) == 0, "FB sends G,R,B storage as RRGGBB");
    }
}

static void feed(proto_rx_t *rx, const char *bytes, uint8_t *last)
{
    while (*bytes)
        *last = proto_rx_byte(rx, (uint8_t)*bytes++);
}

static void test_receiver(void)
{
    proto_rx_t rx;
    uint8_t got = 0;
    char longest[PROTO_RX_FRAME_MAX + 2];

    proto_rx_init(&rx);
    feed(&rx, "noise\n\x01\xff$PING,4*A637\n", &got);
    CHECK(got == PROTO_RX_FRAME && strcmp(rx.buf, "PING,4*A637") == 0,
          "bytes before '$' are ignored");
    feed(&rx, "$PIN$PING,4*A637\r\n", &got);
    CHECK(got == PROTO_RX_FRAME && strcmp(rx.buf, "PING,4*A637") == 0,
          "'$' restarts the frame; '\\r' before '\\n' is dropped");
    CHECK(!proto_rx_busy(&rx), "idle after a frame");
    feed(&rx, "$PI", &got);
    CHECK(proto_rx_busy(&rx), "busy inside a frame");

    /* exactly 96 bytes from '$' to '\n' */
    memset(longest, 'A', sizeof longest);
    longest[0] = '$';
    longest[PROTO_RX_FRAME_MAX - 1] = '\n';
    longest[PROTO_RX_FRAME_MAX] = '\0';
    feed(&rx, longest, &got);
    CHECK(got == PROTO_RX_FRAME && rx.len == PROTO_RX_FRAME_MAX - 2, "a 96-byte frame is taken");
    longest[PROTO_RX_FRAME_MAX - 1] = '\r';
    longest[PROTO_RX_FRAME_MAX] = '\n';
    longest[PROTO_RX_FRAME_MAX + 1] = '\0';
    feed(&rx, longest, &got);
    CHECK(got == PROTO_RX_FRAME, "a 96-byte frame with '\\r\\n' is taken");
    longest[PROTO_RX_FRAME_MAX - 1] = 'A';
    longest[PROTO_RX_FRAME_MAX] = '\n';
    longest[PROTO_RX_FRAME_MAX + 1] = '\0';
    feed(&rx, longest, &got);
    CHECK(got == PROTO_RX_LONG, "a 97-byte frame is too long");
    {
        char huge[400];
        memset(huge, 'B', sizeof huge);
        huge[0] = '$';
        huge[sizeof huge - 2] = '\n';
        huge[sizeof huge - 1] = '\0';
        feed(&rx, huge, &got);
        CHECK(got == PROTO_RX_LONG, "a 400-byte frame is too long");
        feed(&rx, "$PING,4*A637\n", &got);
        CHECK(got == PROTO_RX_FRAME, "the next frame after a long one is taken");
    }
}

static void rgb_at(const uint8_t *grb, int led, int *r, int *g, int *b)
{
    *g = grb[3 * led];
    *r = grb[3 * led + 1];
    *b = grb[3 * led + 2];
}

static int led_is(const uint8_t *grb, int led, int r, int g, int b)
{
    int rr, gg, bb;
    rgb_at(grb, led, &rr, &gg, &bb);
    return rr == r && gg == g && bb == b;
}

static unsigned estimated_ma(const uint8_t *grb, int leds);

static void test_render(void)
{
    uint8_t grb[3 * 91];
    proto_state_t st;
    proto_cmd_t cmd;
    int i, all;

    CHECK(proto_led_count(&LAYOUT) == 91 && LED_COUNT == 91, "default layout: 91 LEDs");

    memset(&st, 0, sizeof st);
    st.brightness = 64;
    proto_render(&LAYOUT, &st, 1, 1, 0, grb);
    for (i = 0, all = 1; i < 90; i++)
        all &= led_is(grb, i, 0, 0, 0);
    CHECK(all && led_is(grb, 90, 0, 64, 0), "initial state: dark, status green at 64");
    proto_render(&LAYOUT, &st, 0, 1, 0, grb);
    CHECK(led_is(grb, 90, 64, 0, 0), "link lost, blink on: status red");
    proto_render(&LAYOUT, &st, 0, 0, 0, grb);
    CHECK(led_is(grb, 90, 0, 0, 0), "link lost, blink off: status off");

    parse_body("SET,2,255,1,7,2,-1", &cmd);
    proto_render(&LAYOUT, &cmd.state, 1, 1, 0, grb);
    CHECK(led_is(grb, 0, 0, 64, 0) && led_is(grb, 1, 0, 64, 0), "seat 1: two green at the limit");
    CHECK(led_is(grb, 2, 0, 0, 16) && led_is(grb, 9, 0, 0, 16), "seat 1 to act: rest blue 64*64/255");
    CHECK(led_is(grb, 10, 64, 0, 0) && led_is(grb, 11, 0, 0, 0), "seat 2: one red, rest off");
    CHECK(led_is(grb, 20, 0, 0, 0) && led_is(grb, 79, 0, 0, 0), "seats beyond N are dark");
    CHECK(led_is(grb, 80, 64, 40, 0) && led_is(grb, 86, 64, 40, 0) && led_is(grb, 87, 0, 0, 0),
          "pool: seven amber (255,160,0 scaled to 64,40,0)");

    parse_body("SET,3,30,5,0,1,1,1,1,1,1", &cmd);
    proto_render(&LAYOUT, &cmd.state, 1, 1, 0, grb);
    CHECK(led_is(grb, 0, 0, 30, 0) && led_is(grb, 41, 0, 0, 7) && led_is(grb, 90, 0, 30, 0),
          "brightness 30 below the limit scales every colour, status included");

    parse_body("SET,4,255,3,0,1,1", &cmd);
    proto_render(&LAYOUT, &cmd.state, 1, 1, 0, grb);
    CHECK(led_is(grb, 21, 0, 0, 0), "turn on a seat beyond N stays dark");

    parse_body("SET,5,255,8,0,0,0,0,0,0,0,3,-2", &cmd);
    proto_render(&LAYOUT, &cmd.state, 1, 1, 0, grb);
    CHECK(led_is(grb, 60, 0, 64, 0) && led_is(grb, 62, 0, 64, 0) && led_is(grb, 63, 0, 0, 0)
              && led_is(grb, 70, 64, 0, 0) && led_is(grb, 71, 64, 0, 0)
              && led_is(grb, 72, 0, 0, 16) && led_is(grb, 79, 0, 0, 16),
          "seats 7 and 8: green, red, seat 8 to act");

    proto_render(&LAYOUT, &cmd.state, 0, 1, 1, grb);
    for (i = 0, all = 1; i < 91; i++)
        all &= led_is(grb, i, 16, 16, 16);
    CHECK(all, "TEST on: every LED white at 16, the most 450 mA allows (max_brightness 64)");
    CHECK(estimated_ma(grb, 91) <= 450, "TEST on: estimated %u mA within the 450 mA budget",
          estimated_ma(grb, 91));
}

/* The current model: 1 mA per LED plus 20 mA per channel at 255, in proportion. */
static unsigned estimated_ma(const uint8_t *grb, int leds)
{
    unsigned long sum = 0;
    int i;
    for (i = 0; i < 3 * leds; i++)
        sum += grb[i];
    return (unsigned)(leds * PROTO_LED_IDLE_MA + (sum * PROTO_LED_CHANNEL_MA + 254) / 255);
}

static void test_power_budget(void)
{
    static const proto_layout_t external = { 8, 10, 10, 255, 2000 };
    static const proto_layout_t small = { 2, 5, 0, 255, 450 };
    uint8_t grb[3 * 91];
    proto_state_t full;
    int i, all;

    CHECK(proto_power_level(&LAYOUT, 91 * 765) == 16, "all white: level 16 on 450 mA");
    CHECK(proto_power_level(&LAYOUT, 0) == 255, "nothing lit: no limit");
    CHECK(proto_power_level(&external, 91 * 765) == 89, "all white: level 89 on 2000 mA");

    memset(&full, 0, sizeof full);
    full.brightness = 255;
    full.pool = 10;
    full.count = 8;
    full.turn = 0;
    for (i = 0; i < 8; i++)
        full.values[i] = 10;
    proto_render(&LAYOUT, &full, 1, 1, 0, grb);
    CHECK(led_is(grb, 0, 0, 47, 0) && led_is(grb, 80, 47, 29, 0) && led_is(grb, 90, 0, 47, 0),
          "every seat and the pool full: dimmed from 64 to 47");
    CHECK(estimated_ma(grb, 91) <= 450, "full state: estimated %u mA within 450",
          estimated_ma(grb, 91));
    proto_render(&LAYOUT, &full, 0, 0, 0, grb);
    CHECK(led_is(grb, 0, 0, 47, 0) && led_is(grb, 90, 0, 0, 0),
          "the link-lost blink does not change the level of the rest");

    proto_render(&external, &full, 1, 1, 0, grb);
    CHECK(led_is(grb, 0, 0, 250, 0) && estimated_ma(grb, 91) <= 2000,
          "an external 2000 mA supply: level 250, estimated %u mA", estimated_ma(grb, 91));
    proto_render(&external, &full, 1, 1, 1, grb);
    for (i = 0, all = 1; i < 91; i++)
        all &= led_is(grb, i, 89, 89, 89);
    CHECK(all && estimated_ma(grb, 91) <= 2000, "external supply, TEST: white at 89, %u mA",
          estimated_ma(grb, 91));

    memset(&full, 0, sizeof full);
    full.brightness = 255;
    full.count = 2;
    full.values[0] = 5;
    proto_render(&small, &full, 1, 1, 0, grb);
    CHECK(led_is(grb, 0, 0, 255, 0) && led_is(grb, 10, 0, 255, 0),
          "a light load on a short strip stays at full brightness");
}

static void test_buttons(void)
{
    button_t b;
    uint32_t t;
    int events = 0, longs = 0;
    char e;

    button_init(&b, 0);
    for (t = 0; t < 100; t++)
        if (button_update(&b, (t / 5) % 2, t))
            events++;
    CHECK(events == 0, "bounces shorter than 20 ms give no event");

    button_init(&b, 0);
    events = 0;
    for (t = 0; t < 300; t++) {
        e = button_update(&b, t >= 10 && t < 200, t);
        if (e == 'P')
            events++;
        else if (e)
            longs++;
    }
    CHECK(events == 1 && longs == 0, "a short press gives one P on release");

    button_init(&b, 0);
    events = longs = 0;
    for (t = 0; t < 3000; t++) {
        e = button_update(&b, t >= 10 && t < 2000, t);
        if (e == 'L')
            longs++;
        else if (e)
            events++;
    }
    CHECK(longs == 1 && events == 0, "a 2 s hold gives one L and a silent release");

    button_init(&b, 0);
    for (t = 0; t < 1500; t++) {
        e = button_update(&b, t >= 10 && t < 1020, t);
        if (e)
            break;
    }
    CHECK(e == 'L' && t == 1030, "L comes 1 s after the debounced press (t=%u)", (unsigned)t);
}

static void test_queue(void)
{
    btn_queue_t q;
    btn_event_t *e;
    int i, numbered = 1;

    btnq_init(&q);
    CHECK(btnq_first(&q) == 1, "after a reset the host should expect press 1");
    for (i = 1; i <= 8; i++) {
        e = btnq_push(&q, (uint8_t)(i % 9), 'P', 0);
        numbered &= e != NULL && e->press == i;
    }
    CHECK(numbered && q.count == 8, "presses are numbered 1, 2, ... in the order pressed");
    CHECK(btnq_push(&q, 1, 'L', 0) == NULL && q.count == 8 && q.next == 9,
          "a ninth press while 8 wait is ignored: no gap in the numbers");
    CHECK(btnq_first(&q) == 1, "HELLO tells the oldest waiting press");
    CHECK(btnq_due(&q, 249) == NULL, "no resend before 250 ms");
    e = btnq_due(&q, 250);
    CHECK(e && e->press == 1, "the oldest is resent after 250 ms");
    CHECK(btnq_due(&q, 260) == NULL, "then not again for 250 ms");
    CHECK(btnq_ack(&q, 3) == 3 && q.count == 5 && q.events[0].press == 4,
          "ACK 3 acknowledges presses 1-3 (cumulative)");
    CHECK(btnq_ack(&q, 3) == 0 && btnq_ack(&q, 1) == 0 && q.count == 5,
          "an old or repeated ACK removes nothing");
    CHECK(btnq_ack(&q, 100) == 0 && q.count == 5, "an ACK of a press not waiting removes nothing");
    e = btnq_due(&q, 261);
    CHECK(e && e->press == 4, "the next oldest is due at once: sent long ago with the others");
    CHECK(btnq_ack(&q, 8) == 5 && q.count == 0 && btnq_first(&q) == 9,
          "ACK of the newest empties the queue; the host should expect 9 next");
    CHECK(btnq_push(&q, 2, 'P', 300)->press == 9, "pressing goes on at 9");

    q.next = 65535;
    q.count = 0;
    CHECK(btnq_push(&q, 1, 'P', 0)->press == 65535 && btnq_push(&q, 1, 'P', 0)->press == 1,
          "press numbers wrap from 65535 to 1, never 0");
    CHECK(btnq_ack(&q, 1) == 2 && q.count == 0, "a cumulative ACK across the wrap");
    CHECK(btn_press_add(65534, 3) == 2 && btn_press_add(5, 0) == 5, "press number arithmetic");
}

static const char *kind_name(uint8_t kind)
{
    switch (kind) {
    case CMD_HELLO: return "HELLO";
    case CMD_SET: return "SET";
    case CMD_PING: return "PING";
    case CMD_QUERY: return "QUERY";
    case CMD_TEST: return "TEST";
    case CMD_ACK: return "ACK";
    default: return "?";
    }
}

/* Host rows of frames.tsv: DIR, FRAME, RESULT ("OK,KIND,SEQ" or "NAK,SEQ,REASON"). */
static void test_frame_table(const char *path)
{
    char line[1024];
    int rows = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        char *frame, *want, got[64];
        proto_rx_t rx;
        proto_cmd_t cmd;
        uint8_t status = PROTO_RX_NONE;
        const char *c;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != 'H' || line[1] != '\t')
            continue;
        frame = line + 2;
        want = strchr(frame, '\t');
        if (!want)
            continue;
        *want++ = '\0';
        proto_rx_init(&rx);
        for (c = frame; *c; c++)
            status = proto_rx_byte(&rx, (uint8_t)*c);
        status = proto_rx_byte(&rx, '\n');
        if (status == PROTO_RX_LONG) {
            snprintf(got, sizeof got, "NAK,0,long");
        } else if (status != PROTO_RX_FRAME) {
            snprintf(got, sizeof got, "(no frame)");
        } else {
            proto_err_t err = proto_parse(rx.buf, rx.len, &LAYOUT, &cmd);
            if (err == PROTO_OK)
                snprintf(got, sizeof got, "OK,%s,%u", kind_name(cmd.kind), cmd.seq);
            else
                snprintf(got, sizeof got, "NAK,%u,%s", cmd.seq, proto_err_name(err));
        }
        CHECK(strcmp(got, want) == 0, "frames.tsv %.40s: %s (want %s)", frame, got, want);
        rows++;
    }
    fclose(f);
    CHECK(rows >= 10, "frames.tsv holds %d host frames", rows);
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/*
 * edges.tsv (firmware_bridge/edge_vectors.py): FRAME<TAB>RESULTS. FRAME is fed byte by byte,
 * then '\n' ("\xHH" stands for any byte); each frame that ends gives OK,KIND,SEQ or
 * NAK,SEQ,REASON, joined by ';' (NONE for none). One check per row.
 */
static void test_edges(const char *path)
{
    static char line[8192];
    int rows = 0, bad = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    while (fgets(line, sizeof line, f)) {
        char *frame = line, *want, got[512];
        size_t glen = 0, i;
        proto_rx_t rx;
        uint8_t bytes[2048];
        size_t n = 0;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        want = strchr(frame, '\t');
        if (!want)
            continue;
        *want++ = '\0';
        for (i = 0; frame[i] && n < sizeof bytes - 1; i++) {
            if (frame[i] == '\\' && frame[i + 1] == 'x' && hex_value(frame[i + 2]) >= 0
                && hex_value(frame[i + 3]) >= 0) {
                bytes[n++] = (uint8_t)(hex_value(frame[i + 2]) * 16 + hex_value(frame[i + 3]));
                i += 3;
            } else {
                bytes[n++] = (uint8_t)frame[i];
            }
        }
        bytes[n++] = '\n';
        proto_rx_init(&rx);
        got[0] = '\0';
        for (i = 0; i < n; i++) {
            uint8_t status = proto_rx_byte(&rx, bytes[i]);
            char one[64];
            if (status == PROTO_RX_NONE)
                continue;
            if (status == PROTO_RX_LONG) {
                snprintf(one, sizeof one, "NAK,0,long");
            } else {
                proto_cmd_t cmd;
                proto_err_t err = proto_parse(rx.buf, rx.len, &LAYOUT, &cmd);
                if (err == PROTO_OK)
                    snprintf(one, sizeof one, "OK,%s,%u", kind_name(cmd.kind), cmd.seq);
                else
                    snprintf(one, sizeof one, "NAK,%u,%s", cmd.seq, proto_err_name(err));
            }
            glen += (size_t)snprintf(got + glen, sizeof got - glen, "%s%s", glen ? ";" : "", one);
        }
        if (!glen)
            snprintf(got, sizeof got, "NONE");
        rows++;
        if (strcmp(got, want) != 0)
            bad++;
        CHECK(strcmp(got, want) == 0, "edges.tsv %.60s: %s (want %s)", frame, got, want);
    }
    fclose(f);
    CHECK(rows >= 1000, "edges.tsv holds %d frames, %d disagree", rows, bad);
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s path/to/crc.tsv path/to/frames.tsv [path/to/edges.tsv]\n",
                argv[0]);
        return 2;
    }
    load_vectors(argv[1]);
    test_crc();
    test_frame_table(argv[2]);
    test_parse_vectors();
    test_parse_errors();
    test_encode();
    test_receiver();
    test_render();
    test_power_budget();
    test_buttons();
    test_queue();
    if (argc == 4)
        test_edges(argv[3]);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}

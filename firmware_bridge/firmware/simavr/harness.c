/*
 * simavr harness for the stone counter firmware.
 *
 *   simavr_harness path/to/stone_counter.elf
 *
 * Runs an ATmega328P at 16 MHz, throttled to real time, with the firmware ELF loaded. UART0 is
 * bridged to a pseudo-terminal whose path is printed first ("PTY /dev/pts/N"), so that a host
 * client talks to the firmware exactly as to a board on a USB serial port.
 *
 * Commands on stdin, one per line (each answered "OK <command>" once applied):
 *   press N / release N   hold or let go button N (0 undo on PD2, 1-6 seats on PC0-PC5,
 *                         7 and 8 on PD3 and PD4); a button changes at most once per 40 ms of
 *                         simulated time (later commands wait, in order, for their "OK")
 *   reset                 reset the MCU (as a board does when its port opens); EEPROM is kept
 *   drop TYPE             lose the next frame of this type (BTN, BOOT, ACK...) the AVR sends,
 *                         as a noisy line would; reported as "DROPPED <frame>" ('$' to '\n')
 *   strip                 print the strip as last latched
 *   quit                  exit (end of stdin too)
 * The WS2812B data pin (PD6) is decoded from its pulse widths: every latched frame that differs
 * from the previous one is printed as "STRIP RRGGBB..." (one group per LED), and pulses outside
 * the WS2812B timings as "WSERR ...".
 *
 * The UART bridge is single-threaded (bytes move between the pty and the simulated UART between
 * 1 ms slices of simulation), rather than simavr's uart_pty part, whose own thread feeds the
 * UART without a lock in libsimavrparts 1.6.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_ioport.h"
#include "avr_uart.h"
#include "sim_avr.h"
#include "sim_cycle_timers.h"
#include "sim_elf.h"
#include "sim_io.h"

#define FREQUENCY 16000000UL
#define SLICE_CYCLES (FREQUENCY / 1000)
/* Simulation this far behind the wall clock stops catching up (a slow or paused machine). */
#define MAX_LAG_NS 500000000LL

/* WS2812B decoding, in CPU cycles at 16 MHz (62.5 ns). */
#define WS_ONE_MIN 10      /* a high pulse this long or longer is a 1 */
#define WS_T0H_MIN 3       /* 0: 187-562 ns */
#define WS_T0H_MAX 9
#define WS_T1H_MIN 10      /* 1: 625-1000 ns */
#define WS_T1H_MAX 16
#define WS_PERIOD_MAX 80   /* rise to rise within a frame: at most 5 us */
#define WS_LATCH 800       /* 50 us low ends a frame */
#define WS_MAX_BYTES 3 * 256

static avr_t *avr;
static int pty_master = -1;

static uint8_t to_pty[16384];
static size_t to_pty_len;
static uint8_t from_pty[4096];
static size_t from_pty_len, from_pty_pos;
static int uart_room;
static avr_irq_t *uart_input;

static const struct {
    char port;
    int bit;
} button_pins[] = { { 'D', 2 }, { 'C', 0 }, { 'C', 1 }, { 'C', 2 },
                    { 'C', 3 }, { 'C', 4 }, { 'C', 5 }, { 'D', 3 }, { 'D', 4 } };
#define BUTTONS (int)(sizeof(button_pins) / sizeof(button_pins[0]))

static struct {
    int level;
    avr_cycle_count_t rise, fall;
    uint8_t bytes[WS_MAX_BYTES];
    int nbits;
    char last[WS_MAX_BYTES * 2 + 1];
} ws;

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static char drop_kind[16]; /* armed: lose the next frame of this type */
static int holding;        /* a frame's first bytes held back until its type is known */
static char held[24];
static size_t held_len;
static int dropping;       /* inside a frame being lost */
static char dropped[700];
static size_t dropped_len;

static void say(const char *fmt, ...);
static void to_pty_put(uint8_t c);

static void uart_output_hook(avr_irq_t *irq, uint32_t value, void *param)
{
    size_t k = strlen(drop_kind), i;
    (void)irq;
    (void)param;
    if (dropping) {
        if (value == '\n') {
            dropped[dropped_len] = '\0';
            say("DROPPED %s", dropped);
            dropping = 0;
        } else if (dropped_len + 1 < sizeof dropped) {
            dropped[dropped_len++] = (char)value;
        }
        return;
    }
    if (holding) {
        held[held_len++] = (char)value;
        if (held_len < k + 2 && value != '\n')
            return;
        holding = 0;
        if (held_len == k + 2 && memcmp(held + 1, drop_kind, k) == 0 && held[k + 1] == ',') {
            dropping = 1;
            drop_kind[0] = '\0';
            dropped_len = held_len - 1;
            memcpy(dropped, held + 1, dropped_len);
            return;
        }
        for (i = 0; i < held_len; i++)
            to_pty_put((uint8_t)held[i]);
        return;
    }
    if (k && value == '$') {
        holding = 1;
        held[0] = '$';
        held_len = 1;
        return;
    }
    to_pty_put((uint8_t)value);
}

static void to_pty_put(uint8_t c)
{
    /* Nobody has read the pty for a long while: drop what waits, as a full USB buffer would. */
    if (to_pty_len == sizeof to_pty)
        to_pty_len = 0;
    to_pty[to_pty_len++] = c;
}

static void uart_xon_hook(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_room = 1;
}

static void uart_xoff_hook(avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    (void)value;
    (void)param;
    uart_room = 0;
}

/* ---- WS2812B decoding ---- */

static void ws_hex(char *out)
{
    int leds = ws.nbits / 24, i;
    for (i = 0; i < leds; i++) /* wire order G, R, B; printed R, G, B */
        sprintf(out + 6 * i, "%02X%02X%02X", ws.bytes[3 * i + 1], ws.bytes[3 * i],
                ws.bytes[3 * i + 2]);
    out[6 * leds] = '\0';
}

static avr_cycle_count_t ws_latch(avr_t *a, avr_cycle_count_t when, void *param)
{
    char hex[sizeof ws.last];
    (void)a;
    (void)when;
    (void)param;
    if (ws.nbits) {
        if (ws.nbits % 24)
            say("WSERR frame of %d bits is not whole LEDs", ws.nbits);
        ws_hex(hex);
        if (strcmp(hex, ws.last) != 0) {
            strcpy(ws.last, hex);
            say("STRIP %s", hex);
        }
    }
    ws.nbits = 0;
    return 0;
}

static void ws_pin_hook(avr_irq_t *irq, uint32_t value, void *param)
{
    avr_cycle_count_t now = avr->cycle;
    (void)irq;
    (void)param;
    value = value ? 1 : 0;
    if ((int)value == ws.level)
        return;
    ws.level = (int)value;
    if (value) {
        if (ws.nbits && now - ws.rise > WS_PERIOD_MAX)
            say("WSERR bit %d starts %lu cycles after the previous one", ws.nbits,
                (unsigned long)(now - ws.rise));
        ws.rise = now;
        avr_cycle_timer_cancel(avr, ws_latch, NULL);
        return;
    }
    {
        avr_cycle_count_t high = now - ws.rise;
        int bit = high >= WS_ONE_MIN;
        if (bit ? (high < WS_T1H_MIN || high > WS_T1H_MAX) : (high < WS_T0H_MIN || high > WS_T0H_MAX))
            say("WSERR bit %d high for %lu cycles", ws.nbits, (unsigned long)high);
        if (ws.nbits < WS_MAX_BYTES * 8) {
            uint8_t *byte = &ws.bytes[ws.nbits / 8];
            *byte = (uint8_t)((*byte << 1) | bit);
            ws.nbits++;
        }
        ws.fall = now;
        avr_cycle_timer_register(avr, WS_LATCH, ws_latch, NULL);
    }
}

/* ---- buttons, commands ---- */

/* A button's state changes at most once per MIN_HOLD_CYCLES of simulated time (40 ms, twice the
 * firmware's debounce): a press and its release read from stdin together (the harness starved of
 * CPU by a busy machine) still make a press the firmware sees. */
#define MIN_HOLD_CYCLES (FREQUENCY / 25)
static avr_cycle_count_t button_changed[16];
static int button_ever[16];

static void set_button(int index, int down)
{
    avr_irq_t *irq = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(button_pins[index].port),
                                   button_pins[index].bit);
    avr_raise_irq(irq, down ? 0 : 1);
    button_changed[index] = avr->cycle;
    button_ever[index] = 1;
}

/* Whether a press or release of button n may be applied now (MIN_HOLD_CYCLES since its last change). */
static int button_ready(int n)
{
    return n < 0 || n >= BUTTONS || !button_ever[n] || avr->cycle >= button_changed[n] + MIN_HOLD_CYCLES;
}

/*
 * Lets go of every button. A reset clears the PIN registers but not the pins' IRQ values, and
 * simavr drops a raise that repeats the value, so each pin goes low and high again.
 */
static void release_all(void)
{
    int i;
    for (i = 0; i < BUTTONS; i++) {
        set_button(i, 1);
        set_button(i, 0);
    }
}

static void command(char *line)
{
    int n;
    char extra;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0')
        return;
    if (strncmp(line, "drop ", 5) == 0) {
        if (strlen(line + 5) == 0 || strlen(line + 5) >= sizeof drop_kind
            || strspn(line + 5, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(line + 5)) {
            say("ERR drop wants a frame type such as BTN or BOOT: %s", line);
            return;
        }
        strcpy(drop_kind, line + 5);
    } else if ((sscanf(line, "press %d %c", &n, &extra) == 1 || sscanf(line, "release %d %c", &n, &extra) == 1)) {
        if (n < 0 || n >= BUTTONS) {
            say("ERR button %d: 0-%d", n, BUTTONS - 1);
            return;
        }
        set_button(n, line[0] == 'p');
    } else if (strcmp(line, "reset") == 0) {
        avr_reset(avr);
        holding = dropping = 0;
        uart_room = 0;
        from_pty_len = from_pty_pos = 0;
        ws.nbits = 0;
        ws.level = 0;
        release_all();
    } else if (strcmp(line, "strip") == 0) {
        say("STRIP %s", ws.last);
    } else if (strcmp(line, "quit") == 0) {
        say("OK quit");
        exit(0);
    } else {
        say("ERR unknown command: %s", line);
        return;
    }
    say("OK %s", line);
}

/* Commands read but not yet applied, in order: a press or release waits for button_ready. */
#define QUEUE 64
static char queued[QUEUE][256];
static int queue_head, queue_len;

static void run_queue(void)
{
    while (queue_len > 0) {
        char *line = queued[queue_head];
        int n;
        char extra;
        if ((sscanf(line, "press %d %c", &n, &extra) == 1 || sscanf(line, "release %d %c", &n, &extra) == 1)
            && !button_ready(n))
            return;
        command(line);
        queue_head = (queue_head + 1) % QUEUE;
        queue_len--;
    }
}

static void read_stdin(void)
{
    static char line[256];
    static size_t len;
    char buf[256];
    ssize_t r = read(0, buf, sizeof buf);
    ssize_t i;
    if (r == 0 && queue_len == 0)
        exit(0);
    if (r <= 0) {
        run_queue();
        return; /* EAGAIN, or the end of stdin with commands still waiting */
    }
    for (i = 0; i < r; i++) {
        if (buf[i] == '\n') {
            line[len] = '\0';
            if (queue_len == QUEUE) {
                say("ERR more than %d commands waiting: %s", QUEUE, line);
            } else {
                strcpy(queued[(queue_head + queue_len) % QUEUE], line);
                queue_len++;
            }
            len = 0;
        } else if (len + 1 < sizeof line) {
            line[len++] = buf[i];
        }
    }
    run_queue();
}

/* ---- the pty ---- */

static void open_pty(void)
{
    int slave;
    char name[256];
    struct termios tio;
    if (openpty(&pty_master, &slave, name, NULL, NULL) < 0) {
        perror("openpty");
        exit(1);
    }
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);
    tcsetattr(slave, TCSANOW, &tio);
    /*
     * The slave stays open here too, so that the master never reads EIO while no client
     * holds the port; a client opening it sets its own line settings.
     */
    fcntl(pty_master, F_SETFL, fcntl(pty_master, F_GETFL) | O_NONBLOCK);
    say("PTY %s", name);
}

static void pump_pty(void)
{
    ssize_t r;
    if (to_pty_len) {
        r = write(pty_master, to_pty, to_pty_len);
        if (r > 0) {
            memmove(to_pty, to_pty + r, to_pty_len - (size_t)r);
            to_pty_len -= (size_t)r;
        }
    }
    if (from_pty_pos == from_pty_len) {
        from_pty_pos = from_pty_len = 0;
        r = read(pty_master, from_pty, sizeof from_pty);
        if (r > 0)
            from_pty_len = (size_t)r;
    }
    while (uart_room && from_pty_pos < from_pty_len)
        avr_raise_irq(uart_input, from_pty[from_pty_pos++]);
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void quiet_logger(avr_t *a, const int level, const char *format, va_list ap)
{
    (void)a;
    if (level <= LOG_WARNING)
        vfprintf(stderr, format, ap);
}

int main(int argc, char **argv)
{
    elf_firmware_t firmware;
    uint32_t flags = 0;
    long long wall0;
    avr_cycle_count_t cycle0;

    if (argc != 2) {
        fprintf(stderr, "usage: %s firmware.elf\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    avr_global_logger_set(quiet_logger);
    memset(&firmware, 0, sizeof firmware);
    if (elf_read_firmware(argv[1], &firmware) != 0) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "simavr has no atmega328p\n");
        return 1;
    }
    avr_init(avr);
    avr->frequency = FREQUENCY;
    firmware.frequency = FREQUENCY;
    avr_load_firmware(avr, &firmware);
    avr->frequency = FREQUENCY;

    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    uart_input = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            uart_output_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            uart_xon_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            uart_xoff_hook, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 6), ws_pin_hook,
                            NULL);
    release_all();

    open_pty();
    fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);

    wall0 = now_ns();
    cycle0 = avr->cycle;
    for (;;) {
        avr_cycle_count_t end = avr->cycle + SLICE_CYCLES;
        long long ahead;
        while (avr->cycle < end) {
            int state = avr_run(avr);
            if (state == cpu_Done || state == cpu_Crashed) {
                fprintf(stderr, "the AVR stopped (state %d) at pc 0x%04x\n", state, avr->pc);
                say("STOPPED %d", state);
                return 1;
            }
        }
        pump_pty();
        read_stdin();
        ahead = (long long)((avr->cycle - cycle0) * 1000000000ULL / FREQUENCY) - (now_ns() - wall0);
        if (ahead > 999999999)
            ahead = 999999999;
        if (ahead > 200000) {
            struct timespec pause = { 0, (long)ahead };
            nanosleep(&pause, NULL);
        } else if (ahead < -MAX_LAG_NS) {
            wall0 = now_ns();
            cycle0 = avr->cycle;
        }
    }
}

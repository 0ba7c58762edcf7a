/* ATmega328P board support for the stone counter; see board.h. */
#include "board.h"

#include <avr/eeprom.h>
#include <avr/interrupt.h>
#include <util/atomic.h>

#ifndef F_CPU
#define F_CPU 16000000UL
#endif

/* Timer1 runs free at F_CPU/64: 4 us per count at 16 MHz, 250 counts per millisecond. */
#define TICKS_PER_MS (F_CPU / 64 / 1000)

typedef struct {
    volatile uint8_t *pin; /* PINx; on the ATmega328P DDRx follows at +1 and PORTx at +2 */
    uint8_t bit;
} button_pin_t;

static const button_pin_t buttons[] = BUTTON_PINS;

/* Ring buffers: sizes are powers of two, indices wrap by masking. */
#define RX_SIZE 128
#define TX_SIZE 128
static volatile uint8_t rx_buf[RX_SIZE];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t tx_buf[TX_SIZE];
static volatile uint8_t tx_head, tx_tail;

static uint16_t clock_last;
static uint16_t clock_frac;
static uint32_t clock_ms;

void board_init(void)
{
    uint8_t i;

    /* Timer1: normal mode, no interrupts, clock/64. */
    TCCR1A = 0;
    TCCR1B = (1 << CS11) | (1 << CS10);
    TIMSK1 = 0;
    clock_last = TCNT1;
    clock_frac = 0;
    clock_ms = 0;

    for (i = 0; i < sizeof(buttons) / sizeof(buttons[0]); i++) {
        volatile uint8_t *ddr = buttons[i].pin + 1;
        volatile uint8_t *port = buttons[i].pin + 2;
        *ddr &= (uint8_t)~(1 << buttons[i].bit);
        *port |= (uint8_t)(1 << buttons[i].bit);
    }

    /* 115200 baud with U2X: UBRR = 16 (2.1 % error, as the Arduino core uses). */
    rx_head = rx_tail = tx_head = tx_tail = 0;
    UCSR0A = (1 << U2X0);
    UBRR0 = (uint16_t)((F_CPU / 8 / BAUD_RATE) - 1);
    UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
    UCSR0B = (1 << RXEN0) | (1 << TXEN0) | (1 << RXCIE0);
}

uint32_t board_millis(void)
{
    uint16_t now = TCNT1;
    clock_frac += (uint16_t)(now - clock_last);
    clock_last = now;
    while (clock_frac >= TICKS_PER_MS) {
        clock_frac -= TICKS_PER_MS;
        clock_ms++;
    }
    return clock_ms;
}

uint8_t board_button_count(void)
{
    return (uint8_t)(sizeof(buttons) / sizeof(buttons[0]));
}

uint8_t board_button_down(uint8_t index)
{
    if (index >= board_button_count())
        return 0;
    return (*buttons[index].pin & (1 << buttons[index].bit)) == 0;
}

ISR(USART_RX_vect)
{
    uint8_t c = UDR0;
    uint8_t next = (uint8_t)((rx_head + 1) & (RX_SIZE - 1));
    /* A full buffer drops the byte: the frame fails its CRC and the host resends it. */
    if (next != rx_tail) {
        rx_buf[rx_head] = c;
        rx_head = next;
    }
}

ISR(USART_UDRE_vect)
{
    if (tx_head == tx_tail) {
        UCSR0B &= (uint8_t)~(1 << UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (uint8_t)((tx_tail + 1) & (TX_SIZE - 1));
}

uint8_t board_uart_read(uint8_t *c)
{
    if (rx_head == rx_tail)
        return 0;
    *c = rx_buf[rx_tail];
    rx_tail = (uint8_t)((rx_tail + 1) & (RX_SIZE - 1));
    return 1;
}

void board_uart_write(uint8_t c)
{
    uint8_t next = (uint8_t)((tx_head + 1) & (TX_SIZE - 1));
    while (next == tx_tail)
        ;
    tx_buf[tx_head] = c;
    ATOMIC_BLOCK(ATOMIC_RESTORESTATE)
    {
        tx_head = next;
        UCSR0B |= (1 << UDRIE0);
    }
}

uint8_t board_uart_idle(void)
{
    return tx_head == tx_tail;
}

uint16_t board_next_boot(void)
{
    uint16_t boot = (uint16_t)(eeprom_read_word((const uint16_t *)0) + 1);
    eeprom_update_word((uint16_t *)0, boot);
    return boot;
}

/* WS2812B bit-banging for the ATmega328P at 16 MHz; see ws2812.h. */
#include "ws2812.h"

#include <avr/interrupt.h>
#include <avr/io.h>

#include "board.h"

#if F_CPU != 16000000UL
#error "ws2812.c is cycle-counted for 16 MHz"
#endif

void ws2812_init(void)
{
    WS2812_PORT &= (uint8_t)~(1 << WS2812_BIT);
    WS2812_DDR |= (uint8_t)(1 << WS2812_BIT);
}

void ws2812_send(const uint8_t *grb, uint16_t bytes)
{
    uint8_t sreg, hi, lo, next, byte, bits = 8;

    if (bytes == 0)
        return;
    sreg = SREG;
    cli();
    hi = (uint8_t)(WS2812_PORT | (1 << WS2812_BIT));
    lo = (uint8_t)(WS2812_PORT & ~(1 << WS2812_BIT));
    byte = *grb++;
    /*
     * Cycle of each instruction within the 20-cycle bit in brackets; the line rises at [0],
     * falls at [6] for a 0 bit and at [12] for a 1 bit. After the eighth bit the branch to 2:
     * loads the next byte in the same 20 cycles.
     */
    __asm__ __volatile__(
        "1:                      \n\t"
        "out  %[port], %[hi]     \n\t" /* [0]  rise */
        "mov  %[next], %[lo]     \n\t" /* [1] */
        "sbrc %[byte], 7         \n\t" /* [2]  skip when the bit is 0 (2 cycles) */
        "mov  %[next], %[hi]     \n\t" /* [3] */
        "nop                     \n\t" /* [4] */
        "nop                     \n\t" /* [5] */
        "out  %[port], %[next]   \n\t" /* [6]  a 0 bit falls */
        "lsl  %[byte]            \n\t" /* [7] */
        "dec  %[bits]            \n\t" /* [8] */
        "breq 2f                 \n\t" /* [9]  taken: 2 cycles */
        "nop                     \n\t" /* [10] */
        "nop                     \n\t" /* [11] */
        "out  %[port], %[lo]     \n\t" /* [12] a 1 bit falls */
        "nop                     \n\t" /* [13] */
        "nop                     \n\t" /* [14] */
        "nop                     \n\t" /* [15] */
        "nop                     \n\t" /* [16] */
        "nop                     \n\t" /* [17] */
        "rjmp 1b                 \n\t" /* [18] 2 cycles */
        "2:                      \n\t"
        "ldi  %[bits], 8         \n\t" /* [11] */
        "out  %[port], %[lo]     \n\t" /* [12] a 1 bit falls */
        "ld   %[byte], %a[ptr]+  \n\t" /* [13] 2 cycles; reads one byte past the end at last */
        "sbiw %[count], 1        \n\t" /* [15] 2 cycles */
        "nop                     \n\t" /* [17] */
        "brne 1b                 \n\t" /* [18] 2 cycles when taken */
        : [next] "=&r"(next), [byte] "+r"(byte), [bits] "+d"(bits), [ptr] "+e"(grb),
          [count] "+w"(bytes)
        : [port] "I"(_SFR_IO_ADDR(WS2812_PORT)), [hi] "r"(hi), [lo] "r"(lo));
    SREG = sreg;
}

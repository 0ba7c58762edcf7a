/*
 * main() for building the sketch with plain avr-gcc (see Makefile): the Arduino core's main()
 * does the same after its own init(). Not in the sketch folder, so the IDE never compiles it.
 */
void setup(void);
void loop(void);

int main(void)
{
    setup();
    for (;;)
        loop();
}

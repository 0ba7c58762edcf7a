"""The LED stone counter: serial protocol, host client, emulator and the Arduino firmware."""

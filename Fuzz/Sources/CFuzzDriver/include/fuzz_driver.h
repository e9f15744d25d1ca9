// libFuzzer's driver, started from a Swift executable target's own main.
// SwiftPM links executables with main aliased to the module's entry, so libFuzzer's main is never
// used; instead each target's main.swift calls clubhouse_fuzz_main, which runs libFuzzer's public
// driver (LLVMFuzzerRunDriver) on the target's LLVMFuzzerTestOneInput.
#ifndef CLUBHOUSE_FUZZ_DRIVER_H
#define CLUBHOUSE_FUZZ_DRIVER_H

int clubhouse_fuzz_main(int argc, char **argv);

#endif

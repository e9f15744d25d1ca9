#include "fuzz_driver.h"
#include <stddef.h>
#include <stdint.h>

// From libclang_rt.fuzzer (linked by swiftc -sanitize=fuzzer).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
// Defined by each fuzz target in Swift with @_cdecl("LLVMFuzzerTestOneInput").
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int clubhouse_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}

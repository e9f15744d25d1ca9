// libFuzzer's driver on this target's LLVMFuzzerTestOneInput (see CFuzzDriver).
import CFuzzDriver
#if canImport(Glibc)
import Glibc
#endif

exit(clubhouse_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))

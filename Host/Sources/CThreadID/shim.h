// The kernel's id of the calling thread, by the raw system call (Swift's Glibc module has neither
// gettid nor the variadic syscall). The runner tells the thread running a plugin's call from the
// plugin's own threads by it (RunningCall.swift): unlike thread-specific values or TLS, which a
// plugin can copy or share (a pthread setting the same keys, a raw clone without CLONE_SETTLS), a
// thread's id is the kernel's and no two live threads share one.
#include <sys/syscall.h>
#include <unistd.h>

static inline int clubhouse_thread_id(void) { return (int)syscall(SYS_gettid); }

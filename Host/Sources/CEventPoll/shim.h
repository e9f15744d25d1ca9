// epoll(7) for serve's event loop (ServeTransport.swift): Swift's Glibc module does not include <sys/epoll.h>; and the
// claim of glibc's cancel signal (SignalRelay, CommandLineTool.swift).
#include <sys/epoll.h>

// glibc keeps signal 32 (SIGCANCEL, for pthread_cancel) for itself: sigaction refuses it, and until the process
// first cancels a thread it stays at its default action, which ends the process — a `kill -32` ended the host
// mid-drill with the machine firing (the fifth outside attack). Cancelling one throwaway thread has glibc
// install its own handler, which ignores the signal unless the process itself sent it to one of its threads.
// Returns 0 when done. (Signal 33, SIGSETXID, glibc's handler from the start.)
//
// The throwaway thread disables cancellation and waits on a mutex the caller holds until it has cancelled it, so
// it returns by itself: no forced unwind through libgcc_s (which walked the loaded libraries' unwind tables at
// every command). A cancel that comes before the thread disables cancellation stays pending — nothing on its way
// out is a cancellation point. glibc installs its handler in pthread_cancel, before it looks at the target; should
// a libc not do so, the handler is still the default afterwards (read with rt_sigaction, which glibc's sigaction
// wrapper would refuse for 32), and a thread is cancelled the old way: one that waits with cancellation enabled.
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *clubhouse_wait_to_be_cancelled(void *unused) {
    (void)unused;
    for (;;) pause();
    return 0;
}

static void *clubhouse_wait_uncancellable(void *held) {
    int old;
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
    pthread_mutex_lock((pthread_mutex_t *)held);
    pthread_mutex_unlock((pthread_mutex_t *)held);
    return 0;
}

/// Whether signal 32 is at its default action (1), handled or ignored (0), or unknown (-1).
static inline int clubhouse_cancel_signal_is_default(void) {
    struct { void *handler; unsigned long flags; void *restorer; unsigned long mask; } action;
    memset(&action, 0, sizeof action);
    if (syscall(SYS_rt_sigaction, 32, (void *)0, &action, sizeof action.mask) != 0) return -1;
    return action.handler == (void *)0 ? 1 : 0;
}

static inline int clubhouse_claim_cancel_signal(void) {
    static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
    pthread_t thread;
    pthread_mutex_lock(&held);
    if (pthread_create(&thread, 0, clubhouse_wait_uncancellable, &held) == 0) {
        int cancelled = pthread_cancel(thread);
        pthread_mutex_unlock(&held);
        int joined = pthread_join(thread, 0);
        if (cancelled == 0 && joined == 0 && clubhouse_cancel_signal_is_default() == 0) return 0;
    } else {
        pthread_mutex_unlock(&held);
    }
    if (pthread_create(&thread, 0, clubhouse_wait_to_be_cancelled, 0) != 0) return -1;
    if (pthread_cancel(thread) != 0) return -1;
    return pthread_join(thread, 0);
}

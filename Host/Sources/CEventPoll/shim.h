// epoll(7) for serve's event loop (ServeTransport.swift): Swift's Glibc module does not include <sys/epoll.h>; and the
// claim of glibc's cancel signal (SignalRelay, CommandLineTool.swift).
#include <sys/epoll.h>

// glibc keeps signal 32 (SIGCANCEL, for pthread_cancel) for itself: sigaction refuses it, and until the process
// first cancels a thread it stays at its default action, which ends the process — a `kill -32` ended the host
// mid-drill with the machine firing (the fifth outside attack). Cancelling one throwaway thread has glibc
// install its own handler, which ignores the signal unless the process itself sent it to one of its threads.
// Returns 0 when done. (Signal 33, SIGSETXID, glibc's handler from the start.)
#include <pthread.h>
#include <unistd.h>

static void *clubhouse_wait_to_be_cancelled(void *unused) {
    (void)unused;
    for (;;) pause();
    return 0;
}

static inline int clubhouse_claim_cancel_signal(void) {
    pthread_t thread;
    if (pthread_create(&thread, 0, clubhouse_wait_to_be_cancelled, 0) != 0) return -1;
    if (pthread_cancel(thread) != 0) return -1;
    return pthread_join(thread, 0);
}

// Independent pieces of work run on every core (what `DispatchQueue.concurrentPerform` was used for),
// over POSIX threads: the product does not link Dispatch (Package.swift, productSettings).

#if canImport(Glibc)
import Glibc
#endif

public enum Parallel {
    /// The processors online (at least 1).
    public static let processorCount = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Calls `body` once for each of `0..<iterations`, on up to `processorCount` threads (the calling
    /// thread one of them), and returns when every call has returned. The order of the calls is not fixed.
    public static func perform(iterations: Int, _ body: (Int) -> Void) {
        guard iterations > 1, processorCount > 1 else {
            for i in 0..<max(0, iterations) { body(i) }
            return
        }
        withoutActuallyEscaping(body) { body in
            let shared = Shared(iterations: iterations, body: body)
            let helpers = min(iterations, processorCount) - 1
            var threads: [pthread_t] = []
            threads.reserveCapacity(helpers)
            for _ in 0..<helpers {
                var thread = pthread_t()
                let box = Unmanaged.passRetained(shared).toOpaque()
                if pthread_create(&thread, nil, { raw in
                    guard let raw else { return nil }
                    Unmanaged<Shared>.fromOpaque(raw).takeRetainedValue().drain()
                    return nil
                }, box) == 0 {
                    threads.append(thread)
                } else {
                    Unmanaged<Shared>.fromOpaque(box).release()
                }
            }
            shared.drain()
            for thread in threads { pthread_join(thread, nil) }
        }
    }

    /// The next index to run, handed out under a mutex.
    /// @unchecked Sendable: `next` is read and written under `mutex`; `body` is called from several
    /// threads, as `perform` says, and does not outlive `perform` (every thread is joined before it returns).
    private final class Shared: @unchecked Sendable {
        private let mutex: UnsafeMutablePointer<pthread_mutex_t> = .allocate(capacity: 1)
        private var next = 0
        private let iterations: Int
        let body: (Int) -> Void

        init(iterations: Int, body: @escaping (Int) -> Void) {
            self.iterations = iterations
            self.body = body
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        private func take() -> Int? {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            guard next < iterations else { return nil }
            defer { next += 1 }
            return next
        }

        func drain() {
            while let i = take() { body(i) }
        }
    }
}

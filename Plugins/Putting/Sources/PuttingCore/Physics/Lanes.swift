// Work spread over a few threads with results in index order: `Lanes.map(n, lanes: k) { i in … }` is
// `(0..<n).map { i in … }`, computed by k threads that each take the next index not yet taken (so a lane
// that drew quick items takes more of them). Each result depends only on its index, so the answer is the
// same on any number of lanes and in any order of taking (the best line and the green book rely on that:
// one lane or two give the same digits).
//
// The lanes are threads of our own (`LaneThread`, pthreads), never libdispatch's worker pool: on Linux that
// pool's monitor reads /proc/<tid>/stat of its workers once a second while work waits in its queue, and
// crashes the process (SIGILL, "workq: registered worker exited prematurely") when it cannot open the file —
// which is every time in a sandboxed runner (Landlock grants no /proc). With its workers a sandboxed putting
// runner crashed in `bestline` whenever that tick met a lane still queued: under load (`LanesTests`).
import Glibc
import Synchronization

enum Lanes {
    /// `(0..<count).map(body)` on up to `lanes` threads (the caller's thread is one of them). A thread the system
    /// refuses (a process or memory limit) is no lane: the others take its indices.
    static func map<T>(_ count: Int, lanes: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let width = Swift.min(lanes, count)
        guard width > 1 else { return (0..<count).map(body) }
        let buffer = UnsafeMutablePointer<T?>.allocate(capacity: count)
        buffer.initialize(repeating: nil, count: count)
        defer { buffer.deinitialize(count: count); buffer.deallocate() }
        let slots = Slots(base: buffer)
        let next = Atomic<Int>(0)
        withoutActuallyEscaping(body) { body in
            let work: @Sendable () -> Void = {
                while true {
                    let k = next.add(1, ordering: .relaxed).oldValue
                    guard k < count else { break }
                    slots.base.advanced(by: k).pointee = body(k)
                }
            }
            let helpers = (1..<width).compactMap { _ in LaneThread.start(work) }
            work()
            // Joined before `body` stops being valid: no lane outlives this call.
            for helper in helpers { helper.join() }
        }
        return (0..<count).map { k in
            // Every index was taken (the caller's own lane runs until none is left) and written before its join.
            guard let value = buffer[k] else { preconditionFailure("Lanes.map: index \(k) was not computed") }
            return value
        }
    }
}

/// A thread of our own for one piece of work, joined by whoever started it. Named `putting-lane` (in `ps -L`, and so
/// a test can tell it from a libdispatch worker).
struct LaneThread: Sendable {
    static let name = "putting-lane"
    private let handle: pthread_t

    /// Starts `work` on a new thread; nil when the system will not make one (the caller then does the work itself).
    static func start(_ work: @escaping @Sendable () -> Void) -> LaneThread? {
        let box = Unmanaged.passRetained(WorkBox(work)).toOpaque()
        var handle = pthread_t()
        let rc = pthread_create(&handle, nil, { raw in
            guard let raw else { return nil }
            _ = LaneThread.setName?(pthread_self(), LaneThread.name)
            Unmanaged<WorkBox>.fromOpaque(raw).takeRetainedValue().work()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<WorkBox>.fromOpaque(box).release()
            return nil
        }
        return LaneThread(handle: handle)
    }

    /// glibc's pthread_setname_np (not in the Glibc module's headers without _GNU_SOURCE); nil where it is missing.
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    static let setName: SetName? = dlsym(dlopen(nil, RTLD_NOW), "pthread_setname_np").map { unsafeBitCast($0, to: SetName.self) }

    /// Waits until the work has finished (its writes are then visible to the caller).
    func join() { pthread_join(handle, nil) }

    private final class WorkBox: Sendable {
        let work: @Sendable () -> Void
        init(_ work: @escaping @Sendable () -> Void) { self.work = work }
    }
}

/// Result slots that lanes write into, each lane its own indices.
/// @unchecked Sendable: no two lanes write the same index, and the caller reads them after every lane was joined.
private struct Slots<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T?>
}

// Work spread over a few threads with results in index order: `Lanes.map(n, lanes: k) { i in … }` is
// `(0..<n).map { i in … }`, computed by k threads that each take the next index not yet taken (so a lane
// that drew quick items takes more of them). Each result depends only on its index, so the answer is the
// same on any number of lanes and in any order of taking (the best line and the green book rely on that:
// one lane or two give the same digits).
import Dispatch
import Synchronization

enum Lanes {
    /// `(0..<count).map(body)` on up to `lanes` threads (the caller's thread is one of them).
    static func map<T>(_ count: Int, lanes: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let width = Swift.min(lanes, count)
        guard width > 1 else { return (0..<count).map(body) }
        let buffer = UnsafeMutablePointer<T?>.allocate(capacity: count)
        buffer.initialize(repeating: nil, count: count)
        defer { buffer.deinitialize(count: count); buffer.deallocate() }
        let slots = Slots(base: buffer)
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: width) { _ in
            while true {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < count else { break }
                slots.base.advanced(by: k).pointee = body(k)
            }
        }
        return (0..<count).map { k in
            guard let value = buffer[k] else { preconditionFailure("Lanes.map: index \(k) was not computed") }
            return value
        }
    }
}

/// Result slots that lanes write into, each lane its own indices.
/// @unchecked Sendable: no two lanes write the same index, and the caller reads them after every lane finished.
private struct Slots<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T?>
}

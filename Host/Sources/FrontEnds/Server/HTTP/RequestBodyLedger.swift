// What request bodies hold of the host's memory (Host/HTTP.md, "Limits": `--http-max-body-memory`, and a
// quarter of it per caller). A body counts from its head, when the loop admits it, until its response is
// queued. The loop admits; the worker that queues the response gives it back at once, before the client
// can read the answer — so a client's next upload right after its answer is never refused for its own
// last one (given back by the loop alone, it raced the client's next request).

import ClubhousePlatform

final class RequestBodyLedger: @unchecked Sendable {
    // Safe: every member below is read and written under `lock` only.
    private let lock = Lock()
    private var total = 0
    private var byHolder: [String: Int] = [:]
    private var held: [ObjectIdentifier: (holder: String, bytes: Int)] = [:]

    enum Admission: Equatable {
        case admitted
        /// Over the bound across all callers.
        case overBound
        /// Over the caller's share: bytes this caller holds now.
        case overShare(held: Int)
    }

    /// Counts `bytes` of `connection`'s body against `holder`'s share and the bound, or says why not.
    func admit(_ connection: HTTPConnection, holder: String, bytes: Int, bound: Int, share: Int) -> Admission {
        lock.withLock {
            if total + bytes > bound { return .overBound }
            let mine = byHolder[holder, default: 0]
            if mine + bytes > share { return .overShare(held: mine) }
            total += bytes
            byHolder[holder] = mine + bytes
            held[ObjectIdentifier(connection)] = (holder, bytes)
            return .admitted
        }
    }

    /// Gives back what `connection`'s body counted (nothing when it holds nothing). Any thread.
    func release(_ connection: HTTPConnection) {
        lock.withLock {
            guard let (holder, bytes) = held.removeValue(forKey: ObjectIdentifier(connection)) else { return }
            total -= bytes
            let left = byHolder[holder, default: 0] - bytes
            byHolder[holder] = left > 0 ? left : nil
        }
    }
}

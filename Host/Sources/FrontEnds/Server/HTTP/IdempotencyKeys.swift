// Repeated writes (Host/HTTP.md, "Repeated writes"): a client that may send a write twice — a phone
// that lost the answer when the connection dropped, and sends the score again once it is back — names
// the request with `Idempotency-Key: <key>`. The first request with a key runs; a repeat by the same
// caller with the same method, target and body gets the first answer again (`Idempotent-Replayed:
// true`) without running; the same key for another request is refused (422), and a repeat while the
// first is still running is told to wait (409). Answers the client should retry (5xx, timeouts,
// cancellations) are not kept. Kept in memory for a day, at most `capacity` keys (the oldest go first).

import Synchronization

final class IdempotencyKeys: Sendable {
    static let maxKeyBytes = 200
    static let lifetimeMilliseconds: Int64 = 24 * 3600 * 1000

    struct Request: Equatable {
        var method: String
        var target: String
        var body: [UInt8]
    }

    enum Start {
        /// Run the request, then `finish` it.
        case run
        /// Answer this (a replay, or a refusal) without running.
        case answer(HTTPResponse)
    }

    private struct Entry {
        var request: Request
        var response: HTTPResponse?
        var at: Int64
    }

    private let capacity: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int = 10_000) { self.capacity = capacity }

    private static func slot(_ caller: String, _ key: String) -> String { caller + "\u{0}" + key }

    /// Whether a request carrying `key` runs, or what it is answered instead.
    func start(caller: String, key: String, request: Request, now: Int64) -> Start {
        if key.isEmpty || key.utf8.count > IdempotencyKeys.maxKeyBytes || key.utf8.contains(where: { $0 < 0x21 || $0 > 0x7e }) {
            return .answer(.error(400, "Idempotency-Key must be 1 to \(IdempotencyKeys.maxKeyBytes) visible ASCII characters, such as a random hex string; use a new one for each new request"))
        }
        let slot = IdempotencyKeys.slot(caller, key)
        return entries.withLock { entries -> Start in
            if let kept = entries[slot], now - kept.at < IdempotencyKeys.lifetimeMilliseconds {
                guard kept.request == request else {
                    return .answer(.error(422, "Idempotency-Key '\(key)' was used for another request (\(kept.request.method) \(kept.request.target)); use a new key for a new request",
                                          name: "invalid-argument"))
                }
                guard var response = kept.response else {
                    return .answer(.error(409, "the request with Idempotency-Key '\(key)' is still being answered; send it again when that is done", name: "busy"))
                }
                response.headers.append(("Idempotent-Replayed", "true"))
                return .answer(response)
            }
            if entries.count >= capacity {
                entries = entries.filter { now - $0.value.at < IdempotencyKeys.lifetimeMilliseconds }
                while entries.count >= capacity, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key {
                    entries.removeValue(forKey: oldest)
                }
            }
            entries[slot] = Entry(request: request, response: nil, at: now)
            return .run
        }
    }

    /// Keeps the answer of a request that ran (or forgets the key when the client should try again).
    func finish(caller: String, key: String, response: HTTPResponse) {
        let slot = IdempotencyKeys.slot(caller, key)
        let retryable = response.status >= 500 || response.status == 499 || response.status == 408 || response.status == 429
        entries.withLock { entries in
            if retryable { entries.removeValue(forKey: slot) } else { entries[slot]?.response = response }
        }
    }
}

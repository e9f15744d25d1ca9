// Repeated writes (Host/HTTP.md, "Repeated writes"): a client that may send a write twice — a phone
// that lost the answer when the connection dropped, and sends the score again once it is back — names
// the request with `Idempotency-Key: <key>`. The first request with a key runs; a repeat by the same
// caller with the same method, target and body gets the first answer again (`Idempotent-Replayed:
// true`) without running; the same key for another request is refused (422), and a repeat while the
// first is still running is told to wait (409). Answers the client should retry (5xx, timeouts,
// cancellations) are not kept. Kept in memory for a day, at most `capacity` keys and `maxBytes` bytes of
// requests and answers (`--http-idempotency-bytes`), of which one caller holds at most a quarter (of each; its own
// oldest finished keys go first: one client's large answers never push out another phone's keys — the fifth
// outside attack, a23: 300 keyed 340 KB answers held 105 MB). Nothing else is ever pushed out before its day is
// over: a key still running, or another caller's answer, stays (the sixth outside attack: five credentials each
// filling their quarter pushed out a victim's keys, and its repeats ran twice). When the store is full of
// unexpired keys a NEW keyed write is refused with 503 and `Retry-After` (until the oldest key expires): a write
// refused is better than a write run twice. An answer that cannot be kept (larger than a caller's share, or no
// room left when it ended) leaves its key: a repeat is told the request ran, with 409, rather than run twice.

import ClubhouseHashing
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
        /// Whose share it counts against (the credential, whatever the route).
        var caller: String
        var request: Request
        var response: HTTPResponse?
        /// Set when the answer was too large to keep (`response` stays nil).
        var answerBytesNotKept: Int?
        /// Why it was not kept: larger than a caller's share, or the store was full when it ended.
        var answerTooLarge = true
        var at: Int64
        /// What the entry holds: its key, request and kept answer.
        var bytes: Int
    }

    /// What one caller holds: bytes and keys.
    private struct Held {
        var bytes = 0
        var count = 0
    }

    /// The entries, and the bytes they hold in all and per caller.
    private struct Book {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var perCaller: [String: Held] = [:]

        mutating func remove(_ slot: String) {
            guard let gone = entries.removeValue(forKey: slot) else { return }
            bytes -= gone.bytes
            var left = perCaller[gone.caller] ?? Held()
            left.bytes -= gone.bytes
            left.count -= 1
            perCaller[gone.caller] = left.count > 0 ? left : nil
        }

        mutating func add(_ slot: String, _ entry: Entry) {
            remove(slot)
            entries[slot] = entry
            bytes += entry.bytes
            perCaller[entry.caller, default: Held()].bytes += entry.bytes
            perCaller[entry.caller, default: Held()].count += 1
        }
    }

    private let capacity: Int
    private let maxBytes: Int
    private let book = Mutex(Book())

    init(capacity: Int = 10_000, maxBytes: Int = HTTPLimits().idempotencyBytes) {
        self.capacity = capacity
        self.maxBytes = max(1, maxBytes)
    }

    /// The most one caller's keys may hold, in bytes and in keys.
    private var share: Int { max(1, maxBytes / 4) }
    private var countShare: Int { max(1, capacity / 4) }

    /// Bytes kept for this many: an estimate of the strings' and arrays' storage.
    private static func size(_ slot: String, _ request: Request, _ response: HTTPResponse?) -> Int {
        var n = 128 + slot.utf8.count + request.method.utf8.count + request.target.utf8.count + request.body.count
        if let response { n += response.body.count + response.headers.reduce(0) { $0 + 32 + $1.0.utf8.count + $1.1.utf8.count } }
        return n
    }

    /// Bytes held now (tests).
    var bytesHeld: Int { book.withLock { $0.bytes } }

    private static func slot(_ caller: String, _ key: String) -> String { caller + "\u{0}" + key }

    /// The refusal of a request that carries more than one Idempotency-Key header (as one header `a, b` is refused:
    /// which of them names the request cannot be told, so none is guessed at).
    static func refusal(headers count: Int) -> HTTPResponse {
        .error(400, "Idempotency-Key was sent \(count) times; send it once, 1 to \(maxKeyBytes) visible ASCII characters, such as a random hex string; use a new one for each new request")
    }

    /// Whether a request carrying `key` runs, or what it is answered instead. `caller` names the credential and
    /// the route (a key is its caller's own on its route); `owner` the credential alone, whose share it counts
    /// against. The body is kept as its SHA-256 (what a repeat is compared with), never whole.
    func start(caller: String, owner: String? = nil, key: String, request: Request, now: Int64) -> Start {
        var request = request
        request.body = Array(SHA256.hash(request.body).bytes)
        if key.isEmpty || key.utf8.count > IdempotencyKeys.maxKeyBytes || key.utf8.contains(where: { $0 < 0x21 || $0 > 0x7e }) {
            return .answer(.error(400, "Idempotency-Key must be 1 to \(IdempotencyKeys.maxKeyBytes) visible ASCII characters, such as a random hex string; use a new one for each new request"))
        }
        let slot = IdempotencyKeys.slot(caller, key)
        return book.withLock { book -> Start in
            if let kept = book.entries[slot], now - kept.at < IdempotencyKeys.lifetimeMilliseconds {
                guard kept.request == request else {
                    return .answer(.error(422, "Idempotency-Key '\(key)' was used for another request (\(kept.request.method) \(kept.request.target)); use a new key for a new request",
                                          name: "invalid-argument"))
                }
                if let bytes = kept.answerBytesNotKept {
                    let why = kept.answerTooLarge ? "was too large to keep (a quarter of --http-idempotency-bytes)"
                        : "could not be kept (the server's Idempotency-Keys were at their bound, --http-idempotency-bytes)"
                    return .answer(.error(409, "the request with Idempotency-Key '\(key)' already ran; its answer (\(bytes) bytes) \(why): read the result instead of sending the request again",
                                          name: "already-done"))
                }
                guard var response = kept.response else {
                    return .answer(.error(409, "the request with Idempotency-Key '\(key)' is still being answered; send it again when that is done", name: "busy"))
                }
                response.headers.append(("Idempotent-Replayed", "true"))
                return .answer(response)
            }
            let entry = Entry(caller: owner ?? caller, request: request, response: nil, answerBytesNotKept: nil, at: now,
                              bytes: IdempotencyKeys.size(slot, request, nil))
            if let why = makeRoom(&book, for: entry, now: now) { return .answer(refusal(why, key: key)) }
            book.add(slot, entry)
            return .run
        }
    }

    /// Why a new keyed write finds no room (makeRoom).
    private enum NoRoom {
        /// Every key held is unexpired; the oldest expires in this many ms.
        case full(waitMilliseconds: Int64)
        /// The caller's share is full of its own writes still running.
        case ownRunning
    }

    /// A keyed write refused for want of room, nothing run (503, `Retry-After`).
    private func refusal(_ why: NoRoom, key: String) -> HTTPResponse {
        let seconds: Int64, message: String
        switch why {
        case .full(let wait):
            seconds = max(1, (wait + 999) / 1000)
            message = "the request with Idempotency-Key '\(key)' did not run: the server holds as many Idempotency-Keys as it may (--http-idempotency-bytes, \(capacity) keys) and forgets none before its day is over (a repeat would run twice); send it again with the same key after Retry-After (\(seconds) s), or ask the host's administrator to raise --http-idempotency-bytes"
        case .ownRunning:
            seconds = 1
            message = "the request with Idempotency-Key '\(key)' did not run: this credential's quarter of the Idempotency-Keys (--http-idempotency-bytes) is full of its own requests still running; send it again with the same key after Retry-After (1 s)"
        }
        var response = HTTPResponse.error(503, message)
        response.headers.append(("Retry-After", String(seconds)))
        return response
    }

    /// Drops what is expired, then the caller's own oldest finished keys while it would hold more than its share;
    /// nothing else (a key still running, another caller's answer) is dropped before its day is over. Returns nil
    /// when `entry` fits now, else why not (nothing is dropped then).
    private func makeRoom(_ book: inout Book, for entry: Entry, now: Int64) -> NoRoom? {
        func overAll(_ freed: Held) -> Bool {
            book.entries.count - freed.count >= capacity || book.bytes - freed.bytes + entry.bytes > maxBytes
        }
        func overShare(_ freed: Held) -> Bool {
            let own = book.perCaller[entry.caller] ?? Held()
            return own.count - freed.count >= countShare || own.bytes - freed.bytes + entry.bytes > share
        }
        guard overAll(Held()) || overShare(Held()) else { return nil }
        for (slot, e) in book.entries where now - e.at >= IdempotencyKeys.lifetimeMilliseconds { book.remove(slot) }
        guard overAll(Held()) || overShare(Held()) else { return nil }
        // The caller's own finished keys, oldest first, while it would hold more than its share: chosen first and
        // dropped only when the entry then fits the whole store too (nothing is lost for a refusal).
        var freed = Held(), chosen: [String] = []
        if overShare(freed) {
            let own = book.entries.filter { $0.value.caller == entry.caller && ($0.value.response != nil || $0.value.answerBytesNotKept != nil) }
                .sorted { $0.value.at < $1.value.at }
            for (slot, e) in own {
                guard overShare(freed) else { break }
                chosen.append(slot)
                freed.bytes += e.bytes
                freed.count += 1
            }
            if overShare(freed) { return .ownRunning }
        }
        if overAll(freed) {
            let oldest = book.entries.values.map(\.at).min() ?? now
            return .full(waitMilliseconds: oldest + IdempotencyKeys.lifetimeMilliseconds - now)
        }
        for slot in chosen { book.remove(slot) }
        return nil
    }

    /// Keeps the answer of a request that ran (or forgets the key when the client should try again).
    func finish(caller: String, key: String, response: HTTPResponse) {
        let slot = IdempotencyKeys.slot(caller, key)
        let retryable = response.status >= 500 || response.status == 499 || response.status == 408 || response.status == 429
        book.withLock { book in
            guard var entry = book.entries[slot] else { return }
            if retryable { return book.remove(slot) }
            let bytes = IdempotencyKeys.size(slot, entry.request, response)
            if bytes > share {
                // Too large to keep: the key stays, so a repeat is told the request ran instead of running it again.
                entry.answerBytesNotKept = response.body.count
            } else {
                var kept = entry
                kept.response = response
                kept.bytes = bytes
                book.remove(slot)
                if makeRoom(&book, for: kept, now: entry.at) == nil {
                    entry = kept
                } else {
                    // No room for the answer (the store is full of unexpired keys): the key keeps the room it held,
                    // and a repeat is told the request ran.
                    entry.answerBytesNotKept = response.body.count
                    entry.answerTooLarge = false
                }
            }
            book.add(slot, entry)
        }
    }
}

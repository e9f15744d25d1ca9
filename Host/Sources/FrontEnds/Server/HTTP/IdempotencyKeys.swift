// Repeated writes (Host/HTTP.md, "Repeated writes"): a client that may send a write twice — a phone
// that lost the answer when the connection dropped, and sends the score again once it is back — names
// the request with `Idempotency-Key: <key>`. The first request with a key runs; a repeat by the same
// caller with the same method, target and body gets the first answer again (`Idempotent-Replayed:
// true`) without running; the same key for another request is refused (422), and a repeat while the
// first is still running is told to wait (409). Answers the client should retry (5xx, timeouts,
// cancellations) are not kept. Kept in memory for a day, at most `capacity` keys and `maxBytes` bytes of
// requests and answers (`--http-idempotency-bytes`; the oldest go first), of which one caller holds at most a
// quarter (its own oldest go first: one client's large answers never push out another phone's keys — the fifth
// outside attack, a23: 300 keyed 340 KB answers held 105 MB). An answer larger than a caller's share is not
// kept: a repeat is told the request ran, with 409, rather than run twice.

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
        var at: Int64
        /// What the entry holds: its key, request and kept answer.
        var bytes: Int
    }

    /// The entries, and the bytes they hold in all and per caller.
    private struct Book {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var perCaller: [String: Int] = [:]

        mutating func remove(_ slot: String) {
            guard let gone = entries.removeValue(forKey: slot) else { return }
            bytes -= gone.bytes
            let left = (perCaller[gone.caller] ?? 0) - gone.bytes
            perCaller[gone.caller] = left > 0 ? left : nil
        }

        mutating func add(_ slot: String, _ entry: Entry) {
            remove(slot)
            entries[slot] = entry
            bytes += entry.bytes
            perCaller[entry.caller, default: 0] += entry.bytes
        }
    }

    private let capacity: Int
    private let maxBytes: Int
    private let book = Mutex(Book())

    init(capacity: Int = 10_000, maxBytes: Int = HTTPLimits().idempotencyBytes) {
        self.capacity = capacity
        self.maxBytes = max(1, maxBytes)
    }

    /// The most one caller's keys may hold.
    private var share: Int { max(1, maxBytes / 4) }

    /// Bytes kept for this many: an estimate of the strings' and arrays' storage.
    private static func size(_ slot: String, _ request: Request, _ response: HTTPResponse?) -> Int {
        var n = 128 + slot.utf8.count + request.method.utf8.count + request.target.utf8.count + request.body.count
        if let response { n += response.body.count + response.headers.reduce(0) { $0 + 32 + $1.0.utf8.count + $1.1.utf8.count } }
        return n
    }

    /// Bytes held now (tests).
    var bytesHeld: Int { book.withLock { $0.bytes } }

    private static func slot(_ caller: String, _ key: String) -> String { caller + "\u{0}" + key }

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
                    return .answer(.error(409, "the request with Idempotency-Key '\(key)' already ran; its answer (\(bytes) bytes) was too large to keep (a quarter of --http-idempotency-bytes): read the result instead of sending the request again",
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
            makeRoom(&book, for: entry, now: now)
            book.add(slot, entry)
            return .run
        }
    }

    /// Drops what is expired, then the caller's own oldest keys while it would hold more than its share, then
    /// the oldest of all while the count or the bytes would pass their bounds (a key still running included: a
    /// repeat of it then runs, as after a restart).
    private func makeRoom(_ book: inout Book, for entry: Entry, now: Int64) {
        let over = { (book: Book) -> Bool in book.entries.count >= self.capacity || book.bytes + entry.bytes > self.maxBytes }
        if over(book) || (book.perCaller[entry.caller] ?? 0) + entry.bytes > share {
            for (slot, e) in book.entries where now - e.at >= IdempotencyKeys.lifetimeMilliseconds { book.remove(slot) }
        }
        while (book.perCaller[entry.caller] ?? 0) + entry.bytes > share,
              let oldest = book.entries.filter({ $0.value.caller == entry.caller }).min(by: { $0.value.at < $1.value.at })?.key {
            book.remove(oldest)
        }
        while over(book), let oldest = book.entries.min(by: { $0.value.at < $1.value.at })?.key {
            book.remove(oldest)
        }
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
                entry.response = response
                entry.bytes = bytes
                book.remove(slot)
                makeRoom(&book, for: entry, now: entry.at)
            }
            book.add(slot, entry)
        }
    }
}

// Repeated writes (Host/HTTP.md, "Repeated writes"): a client that may send a write twice — a phone
// that lost the answer when the connection dropped, and sends the score again once it is back — names
// the request with `Idempotency-Key: <key>`. The first request with a key runs; a repeat by the same
// caller with the same method, target and body gets the first answer again (`Idempotent-Replayed:
// true`) without running; the same key for another request is refused (422), and a repeat while the
// first is still running is told to wait (409). A write run twice is worse than a write refused, so a key is never
// forgotten before its day is over merely for room (the eighth outside attack, a27/a28: a credential's oldest keys
// forgotten past its quarter made a resent offline queue run every write twice):
// - room for bytes is made by dropping the caller's own oldest kept ANSWERS; the key stays as a small entry whose
//   repeat gets 409 `already-done` (as an answer too large to keep, or one that found no room when it ended);
// - when the caller's quarter of the key count, or the whole store, is full of unexpired keys, a NEW keyed write is
//   refused with 503 and `Retry-After` (until the oldest of them expires); nothing of another caller's is touched;
// - answers the client should retry (5xx, timeouts, cancellations) are not kept, unless the call committed a write
//   (CallContext.committedAWrite: a runner killed after its commit, a25): then the key stays as "answer lost" (409);
// - a request refused before anything of it ran keeps nothing (`forget`): the corrected request with the key runs.
// Kept in memory for a day, at most `capacity` keys and `maxBytes` bytes (`--http-idempotency-bytes`), of which one
// caller holds at most a quarter of each.

import ClubhouseHashing
import Synchronization

final class IdempotencyKeys: Sendable {
    static let maxKeyBytes = 200
    static let lifetimeMilliseconds: Int64 = 24 * 3600 * 1000
    /// Keys held at most (a quarter per credential: 10 000 keyed writes a day, far past what a phone or a club's
    /// kiosk sends). A key whose answer was dropped costs a few hundred bytes, counted in `maxBytes` too.
    static let defaultCapacity = 40_000

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

    /// Why a request that ran has no answer kept: a repeat is told it ran (409 `already-done`), never run again.
    enum NotKept: Equatable {
        /// Larger than a caller's share.
        case tooLarge(bytes: Int)
        /// No room when it ended, or dropped later to make room for the caller's newer keys (the key stays).
        case noRoom(bytes: Int)
        /// The call committed a write, then failed before it answered (its runner killed, out of memory, past its
        /// time): the write happened, its answer was lost.
        case lost
    }

    private struct Entry {
        /// Whose share it counts against (the credential, whatever the route).
        var caller: String
        var request: Request
        var response: HTTPResponse?
        /// Set when the request ran but its answer is not kept (`response` stays nil).
        var notKept: NotKept?
        var at: Int64
        /// What the entry holds: its key, request and kept answer.
        var bytes: Int
        /// Still running: neither an answer nor a note that it ran.
        var running: Bool { response == nil && notKept == nil }
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

    init(capacity: Int = IdempotencyKeys.defaultCapacity, maxBytes: Int = HTTPLimits().idempotencyBytes) {
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
                if let notKept = kept.notKept {
                    let what: String
                    switch notKept {
                    case .tooLarge(let bytes):
                        what = "its answer (\(bytes) bytes) was too large to keep (a quarter of --http-idempotency-bytes)"
                    case .noRoom(let bytes):
                        what = "its answer (\(bytes) bytes) could not be kept (the server's Idempotency-Keys were at their bound, --http-idempotency-bytes)"
                    case .lost:
                        return .answer(.error(409, "the request with Idempotency-Key '\(key)' already ran and committed its write, but its answer was lost (the plugin failed before it answered): read the resource to see the result instead of sending the request again",
                                              name: "already-done"))
                    }
                    return .answer(.error(409, "the request with Idempotency-Key '\(key)' already ran; \(what): read the result instead of sending the request again",
                                          name: "already-done"))
                }
                guard var response = kept.response else {
                    return .answer(.error(409, "the request with Idempotency-Key '\(key)' is still being answered; send it again when that is done", name: "busy"))
                }
                response.headers.append(("Idempotent-Replayed", "true"))
                return .answer(response)
            }
            let entry = Entry(caller: owner ?? caller, request: request, response: nil, notKept: nil, at: now,
                              bytes: IdempotencyKeys.size(slot, request, nil))
            if let why = makeRoom(&book, caller: entry.caller, keys: 1, bytes: entry.bytes, now: now) { return .answer(refusal(why, key: key)) }
            book.add(slot, entry)
            return .run
        }
    }

    /// Why a new keyed write finds no room (makeRoom).
    private enum NoRoom {
        /// Every key the store may hold is held, unexpired; the oldest expires in this many ms.
        case full(waitMilliseconds: Int64)
        /// The credential holds its quarter of the keys (by count, or by bytes of keys whose answers are already
        /// dropped), unexpired; its oldest expires in this many ms.
        case ownKeys(waitMilliseconds: Int64)
        /// The caller's quarter of the bytes is full of its own writes still running.
        case ownRunning
    }

    /// A keyed write refused for want of room, nothing run (503, `Retry-After`).
    private func refusal(_ why: NoRoom, key: String) -> HTTPResponse {
        let seconds: Int64, message: String
        func wait(_ ms: Int64) -> Int64 { max(1, (ms + 999) / 1000) }
        switch why {
        case .full(let ms):
            seconds = wait(ms)
            message = "the request with Idempotency-Key '\(key)' did not run: the server holds as many Idempotency-Keys as it may (--http-idempotency-bytes, \(capacity) keys) and forgets none before its day is over (a repeat would run twice); send it again with the same key after Retry-After (\(seconds) s), or ask the host's administrator to raise --http-idempotency-bytes"
        case .ownKeys(let ms):
            seconds = wait(ms)
            message = "the request with Idempotency-Key '\(key)' did not run: this credential holds its quarter of the server's Idempotency-Keys (\(countShare) of \(capacity) keys a day, a quarter of --http-idempotency-bytes) and forgets none before its day is over (a repeat would run twice); send it again with the same key after Retry-After (\(seconds) s)"
        case .ownRunning:
            seconds = 1
            message = "the request with Idempotency-Key '\(key)' did not run: this credential's quarter of the Idempotency-Keys (--http-idempotency-bytes) is full of its own requests still running; send it again with the same key after Retry-After (1 s)"
        }
        var response = HTTPResponse.error(503, message)
        response.headers.append(("Retry-After", String(seconds)))
        return response
    }

    /// Makes room for `keys` more keys and `bytes` more bytes of `caller`: drops what is expired, then — for bytes
    /// only — the ANSWERS of the caller's own oldest answered keys, each key staying as a small "ran; answer not
    /// kept" entry (its repeat gets 409, never runs again). No key is ever forgotten before its day is over, and
    /// nothing of another caller's is touched. Returns nil when it fits now, else why not (nothing dropped then).
    private func makeRoom(_ book: inout Book, caller: String, keys: Int, bytes: Int, now: Int64) -> NoRoom? {
        func fits(_ freed: Int) -> Bool {
            let own = book.perCaller[caller] ?? Held()
            return book.entries.count + keys <= capacity && own.count + keys <= countShare
                && book.bytes - freed + bytes <= maxBytes && own.bytes - freed + bytes <= share
        }
        guard !fits(0) else { return nil }
        for (slot, e) in book.entries where now - e.at >= IdempotencyKeys.lifetimeMilliseconds { book.remove(slot) }
        guard !fits(0) else { return nil }
        func expiresIn(_ entries: [Entry]) -> Int64 {
            (entries.map(\.at).min() ?? now) + IdempotencyKeys.lifetimeMilliseconds - now
        }
        let own = book.perCaller[caller] ?? Held()
        if own.count + keys > countShare {
            return .ownKeys(waitMilliseconds: expiresIn(book.entries.values.filter { $0.caller == caller }))
        }
        if book.entries.count + keys > capacity { return .full(waitMilliseconds: expiresIn(Array(book.entries.values))) }
        // Bytes: the caller's own kept answers, oldest first, each worth its answer's bytes; chosen first and dropped
        // only when the entry then fits (nothing is lost for a refusal).
        let answered = book.entries.filter { $0.value.caller == caller && $0.value.response != nil }.sorted { $0.value.at < $1.value.at }
        var freed = 0, chosen: [String] = []
        for (slot, e) in answered {
            guard !fits(freed) else { break }
            chosen.append(slot)
            freed += e.bytes - IdempotencyKeys.size(slot, e.request, nil)
        }
        guard fits(freed) else {
            if own.bytes - freed + bytes > share {
                // Full of its own keys whose answers are already dropped (a small --http-idempotency-bytes): wait for
                // the oldest to expire; full of requests still running: retry in a second.
                let mine = book.entries.values.filter { $0.caller == caller }
                return mine.allSatisfy(\.running) ? .ownRunning : .ownKeys(waitMilliseconds: expiresIn(mine.filter { !$0.running }))
            }
            return .full(waitMilliseconds: expiresIn(Array(book.entries.values)))
        }
        for slot in chosen {
            guard var e = book.entries[slot], let answer = e.response else { continue }
            e.response = nil
            e.notKept = .noRoom(bytes: answer.body.count)
            e.bytes = IdempotencyKeys.size(slot, e.request, nil)
            book.add(slot, e)
        }
        return nil
    }

    /// Forgets a key whose request was refused before anything of it ran (a malformed body, a lease refused, the
    /// plugin's lane full): the corrected request, sent with the same key, runs — nothing of a refusal is kept.
    func forget(caller: String, key: String) {
        book.withLock { $0.remove(IdempotencyKeys.slot(caller, key)) }
    }

    /// Keeps the answer of a request that ran (or forgets the key when the client should try again). `committed`:
    /// the call committed a write — a 5xx of such a call is not retried (it would run twice) but noted as lost.
    func finish(caller: String, key: String, response: HTTPResponse, committed: Bool = false) {
        let slot = IdempotencyKeys.slot(caller, key)
        let retryable = response.status >= 500 || response.status == 499 || response.status == 408 || response.status == 429
        book.withLock { book in
            guard var entry = book.entries[slot], entry.running else { return }
            if retryable {
                guard committed else { return book.remove(slot) }
                // The write happened; its answer did not come. The key stays, small: a repeat is told so (409).
                entry.notKept = .lost
                return book.add(slot, entry)
            }
            let bytes = IdempotencyKeys.size(slot, entry.request, response)
            if bytes > share {
                // Too large to keep: the key stays, so a repeat is told the request ran instead of running it again.
                entry.notKept = .tooLarge(bytes: response.body.count)
            } else if makeRoom(&book, caller: entry.caller, keys: 0, bytes: bytes - entry.bytes, now: entry.at) == nil {
                entry.response = response
                entry.bytes = bytes
            } else {
                // No room for the answer (the store is full of unexpired keys): the key keeps the room it held,
                // and a repeat is told the request ran.
                entry.notKept = .noRoom(bytes: response.body.count)
            }
            book.add(slot, entry)
        }
    }
}

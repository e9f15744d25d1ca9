// serve --http's reply cache: the replies of reads a plugin declared `"cache": {"max_age_ms": N}` for (entry.h,
// ABI 1.7), kept and answered again from the event loop without a worker or the plugin — after every check a
// worker would make (Host, the access layer's credential, scope, revocation and back-off). A kept reply is
// answered only to the same request (the target: path and query) with the same credential (its headers'
// SHA-256), for at most N ms, and only while its stamp (SiteRuntime.replyStamp: the plugin's reloads, its
// runner's generation, its other commands' calls in this host, its database's commits by any process) is the one
// taken just before the call that made it. Bounded in bytes (`--http-reply-cache-bytes`, least recently used first out). Host/HTTP.md,
// "Cached replies".

import ClubhouseHashing
import ClubhouseHost
import ClubhousePlatform

/// @unchecked Sendable: `entries`, `total` and `tick` are read and written holding `lock`.
final class HTTPReplyCache: @unchecked Sendable {
    struct Entry {
        var stamp: ReplyStamp
        /// Monotonic ms after which it is never answered.
        var expires: Int64
        /// The reply's data with its newline, as the route answers it.
        var body: [UInt8]
        var etag: String
        var used: UInt64
        var cost: Int
    }

    /// The bound in bytes (bodies and keys); 0 keeps nothing.
    let capacity: Int
    private let lock = Lock()
    private var entries: [String: Entry] = [:]
    private var total = 0
    private var tick: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    /// The default bound of `--http-reply-cache-bytes`.
    static let defaultCapacity = 16 << 20

    /// What a kept reply is found by: the plugin, the command, the request's target (path and query, as sent)
    /// and the SHA-256 of the credential the request carries (Authorization, apikey, Cookie), so a reply is never
    /// answered to another credential, even where the plugin's reply does not depend on the caller.
    static func key(alias: String, command: String, target: String, authorization: String?, apiKey: String?, cookies: [String]) -> String {
        var credential = authorization ?? ""
        credential += "\n" + (apiKey ?? "") + "\n" + cookies.joined(separator: "; ")
        return alias + "\u{0}" + command + "\u{0}" + target + "\u{0}" + String(SHA256.hash(credential).description.prefix(32))
    }

    /// The kept reply for `key`, when it has not expired and `current()` equals its stamp; a stale one is dropped.
    func lookup(_ key: String, now: Int64, current: () -> ReplyStamp?) -> Entry? {
        guard let kept = lock.withLock({ entries[key] }) else { return nil }
        // The stamp is read outside the lock (it asks the runtime and the database); the entry is dropped only
        // when it is still the one looked at.
        let fresh = kept.expires > now && current() == kept.stamp
        return lock.withLock { () -> Entry? in
            // Replaced meanwhile by a newer reply: a miss this time.
            guard var entry = entries[key], entry.stamp == kept.stamp, entry.expires == kept.expires else { return nil }
            guard fresh else {
                drop(key)
                return nil
            }
            tick += 1
            entry.used = tick
            entries[key] = entry
            return entry
        }
    }

    /// Keeps a reply made under `stamp` (taken before its call) for `maxAge` ms; its ETag. A reply larger than
    /// an eighth of the bound is not kept; the least recently used go first to make room.
    @discardableResult
    func store(_ key: String, stamp: ReplyStamp, maxAge: Int, body: [UInt8], now: Int64) -> String {
        let etag = HTTPReplyCache.etag(body)
        let cost = body.count + key.utf8.count + 64
        guard capacity > 0, cost <= capacity / 8 else { return etag }
        lock.withLock {
            drop(key)
            while total + cost > capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key { drop(oldest) }
            tick += 1
            entries[key] = Entry(stamp: stamp, expires: now + Int64(maxAge), body: body, etag: etag, used: tick, cost: cost)
            total += cost
        }
        return etag
    }

    /// A strong validator of a reply's bytes.
    static func etag(_ body: [UInt8]) -> String { "\"" + String(SHA256.hash(body).description.prefix(32)) + "\"" }

    /// Bytes held now (bodies and keys), and how many replies.
    var held: (bytes: Int, replies: Int) { lock.withLock { (total, entries.count) } }

    /// Only under `lock`.
    private func drop(_ key: String) {
        if let gone = entries.removeValue(forKey: key) { total -= gone.cost }
    }
}

// The secrets the access layer hands out and how a request presents them:
// - a device token `chtok_<id>_<secret>` (Authorization: Bearer, or the `apikey` header),
// - a browser session `chses_<id>_<secret>` in the site's cookie,
// - a pairing code, 8 characters of an alphabet without 0/O or 1/I, shown as ABCD-EFGH.
// The id (8 base32 characters) is public (token list shows it) and finds the row; the secret is 32
// bytes from the kernel's CSPRNG (256 bits), and only the SHA-256 of the whole text is stored and
// compared, in constant time.

import ClubhouseABI
import ClubhouseHashing
import ClubhousePlatform

/// What kind of credential a row is.
public enum CredentialKind: String, Sendable, CaseIterable {
    /// A device token (`token create`): a Bearer token or `apikey`.
    case token
    /// A browser session (`token pair`, then the pairing code exchanged): an HttpOnly cookie.
    case browser

    var prefix: String { self == .token ? "chtok_" : "chses_" }
}

/// A failure of the access layer, with the status the CLI maps to its exit code.
public struct AccessError: Error, Sendable, CustomStringConvertible {
    public var status: Status
    public var message: String
    public var description: String { message }

    public init(_ status: Status, _ message: String) {
        self.status = status
        self.message = message
    }
}

enum Credentials {
    static let idLength = 8
    static let secretBytes = 32
    /// base32 (RFC 4648) in lower case: ids are typed in `token revoke`.
    static let idAlphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
    /// 32 characters without 0, O, 1 or I (5 bits each, so a random byte's low 5 bits carry no bias).
    static let codeAlphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")
    static let codeLength = 8

    static func random(_ count: Int) throws(AccessError) -> [UInt8] {
        switch SecureRandom.bytes(count) {
        case .success(let bytes): return bytes
        case .failure(let e): throw AccessError(.io, "cannot make a secret: \(e.description)")
        }
    }

    static func newID() throws(AccessError) -> String {
        String(try random(idLength).map { idAlphabet[Int($0 & 31)] })
    }

    /// A new credential's text: prefix, id, `_`, 43 characters of base64url.
    static func newSecret(kind: CredentialKind, id: String) throws(AccessError) -> String {
        kind.prefix + id + "_" + base64URL(try random(secretBytes))
    }

    /// A new pairing code (8 characters, no separator).
    static func newPairingCode() throws(AccessError) -> String {
        String(try random(codeLength).map { codeAlphabet[Int($0 & 31)] })
    }

    /// ABCD-EFGH, as shown.
    static func displayed(code: String) -> String {
        String(code.prefix(4)) + "-" + String(code.dropFirst(4))
    }

    /// A typed code in canonical form (upper case, separators and spaces dropped), or nil when it
    /// cannot be one (wrong length or a character outside the alphabet).
    static func normalizedCode(_ typed: String) -> String? {
        let kept = typed.uppercased().unicodeScalars.filter { $0 != "-" && $0 != " " }
        guard kept.count == codeLength, kept.allSatisfy({ codeAlphabet.contains(Character($0)) }) else { return nil }
        return String(String.UnicodeScalarView(kept))
    }

    /// The id inside a presented credential of `kind`, or nil when the text is not of its shape.
    static func id(in text: String, kind: CredentialKind) -> String? {
        let bytes = Array(text.utf8)
        let prefix = Array(kind.prefix.utf8)
        let secretLength = (secretBytes * 8 + 5) / 6
        guard bytes.count == prefix.count + idLength + 1 + secretLength, bytes.starts(with: prefix) else { return nil }
        let id = bytes[prefix.count..<(prefix.count + idLength)]
        // a–z and 2–7 (base32 in lower case).
        guard id.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x32 && $0 <= 0x37) }), bytes[prefix.count + idLength] == UInt8(ascii: "_") else { return nil }
        let secret = bytes[(prefix.count + idLength + 1)...]
        guard secret.allSatisfy(isBase64URL) else { return nil }
        return String(decoding: id, as: UTF8.self)
    }

    static func isBase64URL(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F
    }

    static func digest(_ text: String) -> [UInt8] { SHA256.hash(text).bytes }

    /// Equal contents, in time that depends only on the length (both are SHA-256 digests here).
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<a.count { difference |= a[i] ^ b[i] }
        return difference == 0
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var out = ""
        var i = 0
        while i < bytes.count {
            let chunk = Array(bytes[i..<min(i + 3, bytes.count)])
            let n = (Int(chunk[0]) << 16) | (chunk.count > 1 ? Int(chunk[1]) << 8 : 0) | (chunk.count > 2 ? Int(chunk[2]) : 0)
            let characters = chunk.count + 1
            for k in 0..<characters { out.append(alphabet[(n >> (18 - 6 * k)) & 63]) }
            i += 3
        }
        return out
    }

    // MARK: what a request presents

    /// `text` without the spaces and tabs around it (header values).
    static func trim(_ text: String) -> String {
        var s = Substring(text)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }

    /// The token of an `Authorization: Bearer <token>` header; nil for another scheme or none.
    static func bearer(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let trimmed = trim(authorization)
        guard trimmed.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        return trim(String(trimmed.dropFirst(7)))
    }

    /// The site's session cookie's name: `clubhouse-<site>` (characters a cookie name may not hold
    /// become `_`), so two sites served from one host keep their own sessions.
    static func cookieName(site: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
        return "clubhouse-" + String(site.prefix(64).map { allowed.contains($0) ? $0 : "_" })
    }

    /// Every value the `Cookie` header gives `name` (a browser may send the name twice).
    static func cookieValues(_ header: String?, name: String) -> [String] {
        guard let header else { return [] }
        var values: [String] = []
        for pair in header.split(separator: ";") {
            let part = trim(String(pair))
            guard let eq = part.firstIndex(of: "="), part[..<eq] == name else { continue }
            var value = String(part[part.index(after: eq)...])
            if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            values.append(value)
        }
        return values
    }
}

// The host's own RFC 8785 (JSON Canonicalization Scheme) writer for outbox records: members sorted by
// their keys' UTF-16 code units, no whitespace, strings with the minimal escaping of §3.2.2.2 (the
// shared JSONWriter's), every number an IEEE double written the ECMAScript way (§3.2.2.3). The
// practice plugin has its own (with its raid-v2 profile); the host imports no plugin, so it keeps
// this small one. Checked against RFC 8785's own examples (RecordCanonicalFormTests).

import ClubhouseHashing
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// A record body the canonical form cannot represent (a number beyond a double), with where it is.
public struct CanonicalFormError: Error, Sendable, Equatable {
    public let message: String
}

public enum RecordCanonicalForm {
    /// The canonical bytes of `value`.
    public static func bytes(of value: JSONValue) throws(CanonicalFormError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        try append(value, to: &out, at: "")
        return out
    }

    /// The lowercase hex SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(bytes).hex }

    static func append(_ value: JSONValue, to out: inout [UInt8], at pointer: String) throws(CanonicalFormError) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .string(let s): JSONWriter.appendQuoted(s, to: &out)
        case .number(let n):
            guard let text = ecmaScript(lexeme: n.lexeme) else {
                throw CanonicalFormError(message: "number \(n.lexeme) at \(pointer.isEmpty ? "the root" : pointer) is outside the range of a double (RFC 8785 writes every number as one)")
            }
            out.append(contentsOf: text.utf8)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                try append(element, to: &out, at: pointer + "/\(i)")
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            let members = object.members.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                try append(member.value, to: &out, at: pointer + "/" + member.key)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A JSON number lexeme as ECMAScript's Number.prototype.toString writes its double; nil when it
    /// is beyond a double's range.
    static func ecmaScript(lexeme: String) -> String? {
        let value = lexeme.withCString { strtod($0, nil) }
        guard value.isFinite else { return nil }
        if value == 0 { return "0" }
        // Swift's description is the shortest round-trip form: split it into digits and a point.
        let text = "\(abs(value))"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            mantissa = text[..<e]
        }
        var digits = ""
        var pointAt = mantissa.count
        if let dot = mantissa.firstIndex(of: ".") {
            pointAt = mantissa.distance(from: mantissa.startIndex, to: dot)
            digits = String(mantissa[..<dot]) + String(mantissa[mantissa.index(after: dot)...])
        } else {
            digits = String(mantissa)
        }
        // value = 0.d1d2… × 10^n
        var n = pointAt + exponent
        while digits.hasPrefix("0") && digits.count > 1 {
            digits.removeFirst()
            n -= 1
        }
        while digits.hasSuffix("0") && digits.count > 1 { digits.removeLast() }
        let k = digits.count
        var out = value < 0 ? "-" : ""
        if k <= n && n <= 21 {
            out += digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            out += String(digits.prefix(n)) + "." + String(digits.dropFirst(n))
        } else if -6 < n && n <= 0 {
            out += "0." + String(repeating: "0", count: -n) + digits
        } else {
            let e = n - 1
            out += String(digits.prefix(1)) + (k > 1 ? "." + String(digits.dropFirst()) : "") + "e" + (e < 0 ? "-" : "+") + String(abs(e))
        }
        return out
    }
}

import ClubhouseJSON
import ClubhouseHashing

/// The two canonical JSON forms the kernel knows, by their command-line names.
public enum CanonicalProfile: String, Sendable, CaseIterable, Codable {
    /// Kernel v2, the form the stored template hashes use: keys in UTF-16 order, integers as
    /// written, floats as Python's `repr` (`1.0` and `-0.0` kept), compatible with `canonicaljson`.
    case raidV2 = "raid-v2"
    /// Strict RFC 8785 (JCS): every number is an IEEE double written the ECMAScript way.
    case rfc8785 = "rfc8785"

    /// Parses a profile name, with a message listing the valid ones.
    public init(name: String) throws(PracticeError) {
        guard let profile = CanonicalProfile(rawValue: name) else {
            throw PracticeError.usage("unknown profile '\(name)'; use raid-v2 or rfc8785")
        }
        self = profile
    }
}

/// A value the canonical form cannot represent, with the JSON Pointer of where it is.
public struct CanonicalizationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// JSON Pointer of the offending value (`""` is the root).
    public let pointer: String

    public var description: String {
        "\(message) at \(pointer.isEmpty ? "the root" : pointer)"
    }
}

/// Writes the canonical bytes of a parsed document.
public enum CanonicalJSON {
    /// The canonical UTF-8 bytes of `value`.
    public static func bytes(of value: JSONValue, profile: CanonicalProfile) throws(CanonicalizationError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        try append(value, profile: profile, to: &out)
        return out
    }

    /// The canonical text of `value`.
    public static func string(of value: JSONValue, profile: CanonicalProfile) throws(CanonicalizationError) -> String {
        String(decoding: try bytes(of: value, profile: profile), as: UTF8.self)
    }

    /// Appends the canonical bytes of `value` to `out`.
    public static func append(_ value: JSONValue, profile: CanonicalProfile, to out: inout [UInt8])
        throws(CanonicalizationError)
    {
        var writer = CanonicalWriter(profile: profile)
        do {
            try writer.write(value, into: &out)
        } catch {
            throw CanonicalizationError(message: error.message, pointer: writer.failurePointer)
        }
    }

    /// The lowercase hex SHA-256 of the canonical bytes (the kernel's content identity).
    public static func hash(of value: JSONValue, profile: CanonicalProfile) throws(CanonicalizationError) -> String {
        SHA256.hash(try bytes(of: value, profile: profile)).hex
    }
}

/// An error found while writing; the writer remembers the path to it so the caller can report a pointer.
struct CanonicalWriteFailure: Error {
    let message: String
}

struct CanonicalWriter {
    let profile: CanonicalProfile
    /// The path to the value that failed, innermost last (object keys or array indices).
    private(set) var failurePath: [String] = []

    init(profile: CanonicalProfile) { self.profile = profile }

    var failurePointer: String {
        failurePath.reversed().map { "/" + JSONDocument.escapePointerToken($0) }.joined()
    }

    mutating func write(_ value: JSONValue, into out: inout [UInt8]) throws(CanonicalWriteFailure) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .string(let s): JSONWriter.appendQuoted(s, to: &out)
        case .number(let n): try writeNumber(n, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                do { try write(element, into: &out) } catch { failurePath.append(String(i)); throw error }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            let members = object.members
            out.append(UInt8(ascii: "{"))
            let order = try UTF16KeyOrder.sortedIndices(of: members)
            for (position, index) in order.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                let member = members[index]
                JSONWriter.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                do { try write(member.value, into: &out) } catch { failurePath.append(member.key); throw error }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    func writeNumber(_ n: JSONNumber, into out: inout [UInt8]) throws(CanonicalWriteFailure) {
        var lexeme = n.lexeme
        let ok = lexeme.withUTF8 { CanonicalNumber.append(lexeme: $0, isInteger: n.isInteger, profile: profile, to: &out) }
        guard ok else {
            throw CanonicalWriteFailure(message: "number \(n.lexeme) is outside the range of a double")
        }
    }
}

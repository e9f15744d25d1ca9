// The text forms of Ed25519 keys that Clubhouse reads and writes:
// - a public key as `ed25519:` + standard base64 of its 32 bytes (what plugins.json's
//   "publishers" hold and what `clubhouse plugin keygen` prints);
// - a private key as a PKCS #8 PEM file (RFC 8410 §7: "-----BEGIN PRIVATE KEY-----", the 48-byte
//   DER of the 32-byte seed), the form `openssl genpkey -algorithm ed25519` writes, so a key made
//   by either tool works with the other.

public enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 (RFC 4648 §4) with padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict decoding: standard alphabet, padded to a multiple of 4, no whitespace, and the unused
    /// bits of the last character zero (so one byte string has exactly one text). nil otherwise.
    public static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 65...90: return c - 65
            case 97...122: return c - 71
            case 48...57: return c + 4
            case 43: return 62
            case 47: return 63
            default: return nil
            }
        }
        var out: [UInt8] = []
        var i = 0
        while i < chars.count {
            let last = i + 4 == chars.count
            let pad = last ? (chars[i + 3] == 61 ? (chars[i + 2] == 61 ? 2 : 1) : 0) : 0
            guard let a = value(chars[i]), let b = value(chars[i + 1]) else { return nil }
            let c = pad == 2 ? 0 : value(chars[i + 2]), d = pad >= 1 ? 0 : value(chars[i + 3])
            guard let c, let d else { return nil }
            out.append(a << 2 | b >> 4)
            if pad == 2 {
                guard b & 15 == 0 else { return nil }
            } else {
                out.append((b & 15) << 4 | c >> 2)
                if pad == 1 {
                    guard c & 3 == 0 else { return nil }
                } else {
                    out.append((c & 3) << 6 | d)
                }
            }
            i += 4
        }
        return out
    }
}

extension Ed25519 {
    /// The prefix of a public key's text form.
    public static let publicKeyPrefix = "ed25519:"

    /// `ed25519:BASE64` of 32 public key bytes.
    public static func publicKeyText(_ key: [UInt8]) -> String { publicKeyPrefix + Base64.encode(key) }

    /// The 32 bytes of an `ed25519:BASE64` public key, or why it is not one.
    public static func parsePublicKey(_ text: String) -> Result<[UInt8], KeyError> {
        guard text.hasPrefix(publicKeyPrefix) else {
            return .failure(KeyError("'\(text)' is not an Ed25519 public key: write \"ed25519:\" and the key's 32 bytes in base64 (what clubhouse plugin keygen prints)"))
        }
        guard let bytes = Base64.decode(String(text.dropFirst(publicKeyPrefix.count))) else {
            return .failure(KeyError("'\(text)': the text after \"ed25519:\" is not standard base64"))
        }
        guard bytes.count == 32 else {
            return .failure(KeyError("'\(text)' holds \(bytes.count) bytes; an Ed25519 public key is 32"))
        }
        guard isValidPublicKey(bytes) else {
            return .failure(KeyError("'\(text)' is not a point of the Ed25519 curve (RFC 8032 §5.1.3); copy the key again from clubhouse plugin keygen"))
        }
        return .success(bytes)
    }

    /// A short, stable name for a public key: the first 16 hex digits of its SHA-256.
    public static func fingerprint(_ key: [UInt8]) -> String { String(SHA256.hex(key).prefix(16)) }

    /// The DER of a PKCS #8 Ed25519 private key before its 32-byte seed (RFC 8410 §7):
    /// SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING (32) } }.
    static let pkcs8Prefix: [UInt8] = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                                       0x04, 0x22, 0x04, 0x20]

    /// The PEM text of a private key seed.
    public static func privateKeyPEM(seed: [UInt8]) -> String {
        "-----BEGIN PRIVATE KEY-----\n" + Base64.encode(pkcs8Prefix + seed) + "\n-----END PRIVATE KEY-----\n"
    }

    /// The 32-byte seed of a PKCS #8 PEM private key, or why it is not one.
    public static func parsePrivateKeyPEM(_ text: String) -> Result<[UInt8], KeyError> {
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        guard let begin = lines.firstIndex(of: "-----BEGIN PRIVATE KEY-----"),
              let end = lines.firstIndex(of: "-----END PRIVATE KEY-----"), end > begin else {
            if text.contains("BEGIN ENCRYPTED PRIVATE KEY") {
                return .failure(KeyError("the key is encrypted; give an unencrypted Ed25519 key (clubhouse plugin keygen, or openssl genpkey -algorithm ed25519)"))
            }
            return .failure(KeyError("not a PEM private key (no \"-----BEGIN PRIVATE KEY-----\" … \"-----END PRIVATE KEY-----\"); make one with clubhouse plugin keygen"))
        }
        guard let der = Base64.decode(lines[(begin + 1)..<end].joined()) else {
            return .failure(KeyError("the PEM body is not base64"))
        }
        guard der.count == 48, Array(der[0..<16]) == pkcs8Prefix else {
            return .failure(KeyError("not an Ed25519 private key (PKCS #8 with OID 1.3.101.112, RFC 8410); make one with clubhouse plugin keygen"))
        }
        return .success(Array(der[16..<48]))
    }

    public struct KeyError: Error, Sendable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

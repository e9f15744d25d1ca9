// The name an upload's body is kept under (Host/HTTP.md, "Uploads"): the client's file name from
// `Content-Disposition: attachment; filename="s.csv"` (or RFC 8187's `filename*=UTF-8''…`, which wins),
// so that the plugin sees `s.csv` as its path argument's last component and its messages name the file
// the person chose. A name is only ever a name: one with a `/` or `\`, a control character, a leading
// `.`, or more than 200 bytes is refused, never cleaned up into a path.

enum UploadName {
    static let maxBytes = 200

    /// The file name the header gives (nil without a header or without a filename parameter), or the
    /// reason it is refused.
    static func parse(contentDisposition header: String?) -> Result<String?, UploadNameRefusal> {
        guard let header else { return .success(nil) }
        var plain: String?
        var extended: String?
        for parameter in parameters(header) {
            switch parameter.name {
            case "filename": plain = parameter.value
            case "filename*":
                guard let decoded = decodeExtended(parameter.value) else {
                    return .failure(UploadNameRefusal(message: "the upload's Content-Disposition filename* is not UTF-8''…percent-encoded text"))
                }
                extended = decoded
            default: continue
            }
        }
        guard let name = extended ?? plain else { return .success(nil) }
        return check(name).map { Optional($0) }
    }

    /// Refuses a name that is not a plain file name.
    static func check(_ name: String) -> Result<String, UploadNameRefusal> {
        let shown = String(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) }.prefix(80))
        let plain = "send the file's name alone, e.g. Content-Disposition: attachment; filename=\"session.csv\""
        if name.isEmpty { return .failure(UploadNameRefusal(message: "the upload's file name is empty; \(plain)")) }
        if name.utf8.count > maxBytes {
            return .failure(UploadNameRefusal(message: "the upload's file name is \(name.utf8.count) bytes; at most \(maxBytes)"))
        }
        if name.contains("/") || name.contains("\\") || name.hasPrefix(".")
            || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) {
            return .failure(UploadNameRefusal(message: "the upload's file name '\(shown)' is not a plain file name (no '/', '\\', control characters or leading '.'); \(plain)"))
        }
        return .success(name)
    }

    /// `attachment; filename="a b.csv"; filename*=UTF-8''a%20b.csv` → its parameters (names lowercased).
    static func parameters(_ header: String) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        var rest = Substring(header)
        // The disposition type comes first.
        guard let semicolon = rest.firstIndex(of: ";") else { return [] }
        rest = rest[rest.index(after: semicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingSpaces().lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                var escaped = false
                while let c = rest.first {
                    rest = rest.dropFirst()
                    if escaped { value.append(c); escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { break } else { value.append(c) }
                }
                rest = rest.drop { $0 != ";" }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingSpaces()
                rest = rest[end...]
            }
            rest = rest.drop { $0 == ";" }
            result.append((name, value))
        }
        return result
    }

    /// `UTF-8''%E2%82%AC.csv` → "€.csv" (RFC 8187); nil for another charset or bad encoding.
    static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return try? HTTPTarget.percentDecode(ArraySlice(parts[2].utf8), plusIsSpace: false).get()
    }
}

struct UploadNameRefusal: Error {
    var message: String
}

// POSIX ustar archives (IEEE 1003.1-1988), written and read here so plugin packages need no
// package or external tool. Only regular files are written or accepted; every header's checksum,
// size and name is checked before any byte is used.

enum Ustar {
    struct Entry: Sendable, Equatable {
        var name: String
        var bytes: [UInt8]
        var mode: Int = 0o644
    }

    struct ReadError: Error, Sendable { var message: String }

    static let blockSize = 512

    /// The archive of `entries`, in order, with mtime 0 and uid/gid 0 so a pack is reproducible.
    static func write(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        for entry in entries {
            var header = [UInt8](repeating: 0, count: blockSize)
            func put(_ text: String, at offset: Int, width: Int) {
                for (i, b) in Array(text.utf8).prefix(width).enumerated() { header[offset + i] = b }
            }
            func octal(_ value: Int, at offset: Int, width: Int) {
                let digits = String(value, radix: 8)
                put(String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits, at: offset, width: width - 1)
            }
            put(entry.name, at: 0, width: 100)
            octal(entry.mode, at: 100, width: 8)
            octal(0, at: 108, width: 8)
            octal(0, at: 116, width: 8)
            octal(entry.bytes.count, at: 124, width: 12)
            octal(0, at: 136, width: 12)
            header[156] = UInt8(ascii: "0")
            put("ustar", at: 257, width: 6)
            put("00", at: 263, width: 2)
            put("root", at: 265, width: 32)
            put("root", at: 297, width: 32)
            for i in 148..<156 { header[i] = UInt8(ascii: " ") }
            let sum = header.reduce(0) { $0 + Int($1) }
            let digits = String(sum, radix: 8)
            put(String(repeating: "0", count: max(0, 6 - digits.count)) + digits, at: 148, width: 6)
            header[154] = 0
            header[155] = UInt8(ascii: " ")
            out += header
            out += entry.bytes
            let padding = (blockSize - entry.bytes.count % blockSize) % blockSize
            out += [UInt8](repeating: 0, count: padding)
        }
        out += [UInt8](repeating: 0, count: blockSize * 2)
        return out
    }

    /// The entries of `archive`; throws on the first bad header, bad name, truncation or non-file entry.
    static func read(_ archive: [UInt8]) throws(ReadError) -> [Entry] {
        var entries: [Entry] = []
        var offset = 0
        while true {
            guard offset + blockSize <= archive.count else {
                throw ReadError(message: "the archive is truncated: it ends at byte \(archive.count) without the end-of-archive blocks")
            }
            let header = Array(archive[offset..<offset + blockSize])
            if header.allSatisfy({ $0 == 0 }) { break }
            let index = entries.count + 1
            guard let stored = octal(header[148..<156]) else {
                throw ReadError(message: "entry \(index) at byte \(offset): the header checksum field is not an octal number")
            }
            var sum = 0
            for (i, b) in header.enumerated() { sum += (148..<156).contains(i) ? 32 : Int(b) }
            guard sum == stored else {
                throw ReadError(message: "entry \(index) at byte \(offset): header checksum is \(stored) but the header sums to \(sum) (damaged archive)")
            }
            guard header[257..<262].elementsEqual(Array("ustar".utf8)) else {
                throw ReadError(message: "entry \(index) at byte \(offset): not a ustar header")
            }
            let name = joinName(prefix: text(header[345..<500]), name: text(header[0..<100]))
            try checkName(name)
            let type = header[156]
            guard type == UInt8(ascii: "0") || type == 0 else {
                throw ReadError(message: "entry '\(name)' is not a regular file (type '\(Character(Unicode.Scalar(type)))'); a package holds only files")
            }
            guard let size = octal(header[124..<136]), size >= 0 else {
                throw ReadError(message: "entry '\(name)': the size field is not an octal number")
            }
            let start = offset + blockSize
            guard size <= archive.count - start else {
                throw ReadError(message: "the archive is truncated: entry '\(name)' needs \(size) bytes but only \(archive.count - start) remain")
            }
            guard !entries.contains(where: { $0.name == name }) else {
                throw ReadError(message: "entry '\(name)' appears twice in the archive")
            }
            let mode = octal(header[100..<108]) ?? 0o644
            entries.append(Entry(name: name, bytes: Array(archive[start..<start + size]), mode: mode))
            offset = start + (size + blockSize - 1) / blockSize * blockSize
        }
        return entries
    }

    /// A name must stay inside the folder it is extracted into: relative, no `..`, no empty or `.` parts.
    static func checkName(_ name: String) throws(ReadError) {
        if name.isEmpty { throw ReadError(message: "an entry has an empty name") }
        if name.hasPrefix("/") {
            throw ReadError(message: "entry '\(name)' has an absolute path, which would escape the install directory")
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains("..") {
            throw ReadError(message: "entry '\(name)' has a '..' path, which would escape the install directory")
        }
        // Files sit at the package's top level, a panel's in web/ (one level, nothing deeper), the central
        // SQL in federation/postgresql/.
        let panelFile = parts.count == 2 && parts[0] == "web" && !parts[1].hasPrefix(".")
        let sqlFile = parts.count == 3 && parts[0] == "federation" && parts[1] == "postgresql" && !parts[2].hasPrefix(".")
        if parts.contains(where: { $0.isEmpty || $0 == "." }) || (parts.count > 1 && !panelFile && !sqlFile) {
            throw ReadError(message: "entry '\(name)' is not a plain file name; a package's files sit at its top level (a panel's in web/, its central SQL in federation/postgresql/)")
        }
        if name.utf8.contains(where: { $0 < 32 || $0 == 127 }) {
            throw ReadError(message: "entry name \(Array(name.utf8)) has control characters")
        }
    }

    private static func text(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    private static func joinName(prefix: String, name: String) -> String {
        prefix.isEmpty ? name : prefix + "/" + name
    }

    /// An octal field (spaces and NULs around the digits allowed); nil when anything else is there.
    private static func octal(_ field: ArraySlice<UInt8>) -> Int? {
        let digits = field.filter { $0 != 0 && $0 != UInt8(ascii: " ") }
        guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }) else {
            return digits.isEmpty ? 0 : nil
        }
        return digits.reduce(0) { $0 * 8 + Int($1 - UInt8(ascii: "0")) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One document line of a JSON Lines text.
public struct JSONLine: Sendable, Equatable {
    /// 1-based line number in the file.
    public let number: Int
    /// Byte range of the line, without its LF.
    public let range: Range<Int>
}

/// Splits JSON Lines text. Lines end at LF only: U+2028/U+2029 (and U+0085) may appear raw
/// inside JSON strings and never end a line. A CR before the LF stays in the line, where the
/// parser skips it as whitespace. Lines holding only JSON whitespace are skipped.
public enum JSONLines {
    public static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> [JSONLine] {
        var lines: [JSONLine] = []
        guard let base = bytes.baseAddress else { return lines }
        var start = 0
        var number = 1
        let count = bytes.count
        while start <= count {
            var end = count
            if start < count, let hit = memchrLF(base + start, count - start) {
                end = start + hit
            }
            if !isBlank(bytes, start..<end) {
                lines.append(JSONLine(number: number, range: start..<end))
            }
            if end == count { break }
            start = end + 1
            number += 1
        }
        return lines
    }

    public static func split(_ bytes: [UInt8]) -> [JSONLine] {
        bytes.withUnsafeBufferPointer { split($0) }
    }

    @inline(__always) static func memchrLF(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int? {
        guard let hit = memchr(p, 0x0A, n) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(p)
    }

    static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        for i in range {
            switch bytes[i] {
            case 0x20, 0x09, 0x0D: continue
            default: return false
            }
        }
        return true
    }
}

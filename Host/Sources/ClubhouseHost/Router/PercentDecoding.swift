// `%XX` escapes, decoded once for the host: HTTP paths and queries (FrontEnds' HTTPTarget, which refuses
// a bad escape) and a federation URL's parameters (read as libpq reads them, a bad escape kept).

import ClubhouseJSON  // JSONEscapes.hexValue

public enum PercentDecoding {
    /// `utf8` with each `%XX` (hex digits of either case) replaced by its byte and, when `plusIsSpace`,
    /// each `+` by a space. A `%` not followed by two hex digits: nil when `strict`, else kept as it is.
    public static func bytes(_ utf8: ArraySlice<UInt8>, plusIsSpace: Bool = false, strict: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i < utf8.endIndex {
            let b = utf8[i]
            if b == UInt8(ascii: "%") {
                if i + 2 < utf8.endIndex, let high = JSONEscapes.hexValue(utf8[i + 1]), let low = JSONEscapes.hexValue(utf8[i + 2]) {
                    out.append(high << 4 | low)
                    i += 3
                    continue
                }
                if strict { return nil }
            }
            out.append(plusIsSpace && b == UInt8(ascii: "+") ? 0x20 : b)
            i += 1
        }
        return out
    }
}

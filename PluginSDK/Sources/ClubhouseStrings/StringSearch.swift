// Searching and replacing within strings, for modules built without `_StringProcessing`.
//
// Every module that ends up in `clubhouse` or a bundled plugin is compiled with
// `-disable-implicit-string-processing-module-import` (Package.swift says why: loading
// libswift_StringProcessing and libswift_RegexParser cost every command ≈ 0.44 ms), and the
// standard library alone has no `String.contains(String)`, `replacing(_:with:)`,
// `firstRange(of:)`, `ranges(of:)` or a split on a string. These are those, with the same meaning
// (whole characters compared as `Character`s do); the modules below every other one
// (ClubhouseJSON, ClubhouseHashing, ClubhousePlatform) import this one, so every module sees them.
//
// The receivers and arguments are concrete (`String`, `Substring`), so that where Foundation's or
// `_StringProcessing`'s generic versions are visible too (the tests), these win without ambiguity.

extension String {
    /// True when `other` occurs in this string (an empty `other` occurs everywhere).
    public func contains(_ other: String) -> Bool { StringSearch.firstRange(of: other, in: self[...]) != nil }
    public func contains(_ other: Substring) -> Bool { StringSearch.firstRange(of: String(other), in: self[...]) != nil }

    /// The first place `other` occurs, if any.
    public func firstRange(of other: String) -> Range<String.Index>? { StringSearch.firstRange(of: other, in: self[...]) }

    /// Every place `other` occurs, left to right, not overlapping.
    public func ranges(of other: String) -> [Range<String.Index>] { StringSearch.ranges(of: other, in: self[...]) }

    /// This string with every occurrence of `target` (left to right, not overlapping) replaced.
    public func replacing(_ target: String, with replacement: String) -> String {
        StringSearch.replacing(target, with: replacement, in: self[...])
    }

    /// The parts between the occurrences of `separator`.
    public func split(separator: String, omittingEmptySubsequences: Bool = true) -> [Substring] {
        StringSearch.split(self[...], separator: separator, omittingEmptySubsequences: omittingEmptySubsequences)
    }
}

extension Substring {
    public func contains(_ other: String) -> Bool { StringSearch.firstRange(of: other, in: self) != nil }
    public func firstRange(of other: String) -> Range<String.Index>? { StringSearch.firstRange(of: other, in: self) }
    public func ranges(of other: String) -> [Range<String.Index>] { StringSearch.ranges(of: other, in: self) }
    public func replacing(_ target: String, with replacement: String) -> String {
        StringSearch.replacing(target, with: replacement, in: self)
    }
    public func split(separator: String, omittingEmptySubsequences: Bool = true) -> [Substring] {
        StringSearch.split(self, separator: separator, omittingEmptySubsequences: omittingEmptySubsequences)
    }
}

enum StringSearch {
    /// The first occurrence of `needle` in `text` at or after `start`. When both are ASCII (every
    /// byte a whole character, and no other character equal to an ASCII one) the bytes are compared;
    /// otherwise characters, as `Character`'s `==` compares them.
    static func firstRange(of needle: String, in text: Substring, from start: String.Index? = nil) -> Range<String.Index>? {
        let from = start ?? text.startIndex
        if needle.isEmpty { return from..<from }
        return firstRange(of: needle, in: text, from: from, bytewise: isASCII(needle.utf8) && isASCII(text.utf8[from...]))
    }

    /// `bytewise`: the needle and the text from `from` on are ASCII (the caller looked once: `ranges`
    /// asks again and again from further on, and looking each time made a split of a long text quadratic).
    private static func firstRange(of needle: String, in text: Substring, from: String.Index, bytewise: Bool) -> Range<String.Index>? {
        if needle.isEmpty { return from..<from }
        if bytewise {
            let bytes = text.utf8, pattern = Array(needle.utf8)
            let first = pattern[0]
            var i = from
            while let hit = bytes[i...].firstIndex(of: first) {
                var j = hit, k = 0
                while k < pattern.count, j < bytes.endIndex, bytes[j] == pattern[k] { bytes.formIndex(after: &j); k += 1 }
                if k == pattern.count { return hit..<j }
                i = bytes.index(after: hit)
            }
            return nil
        }
        let characters = Array(needle)
        var i = from
        while i < text.endIndex {
            var j = i, k = 0
            while k < characters.count, j < text.endIndex, text[j] == characters[k] { text.formIndex(after: &j); k += 1 }
            if k == characters.count { return i..<j }
            text.formIndex(after: &i)
        }
        return nil
    }

    static func ranges(of needle: String, in text: Substring) -> [Range<String.Index>] {
        var found: [Range<String.Index>] = []
        var from = text.startIndex
        let bytewise = isASCII(needle.utf8) && isASCII(text.utf8)
        while from <= text.endIndex, let range = firstRange(of: needle, in: text, from: from, bytewise: bytewise) {
            found.append(range)
            if range.isEmpty {
                if range.upperBound == text.endIndex { break }
                from = text.index(after: range.upperBound)
            } else {
                from = range.upperBound
            }
        }
        return found
    }

    static func replacing(_ target: String, with replacement: String, in text: Substring) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var rest = text.startIndex
        for range in ranges(of: target, in: text) {
            out += text[rest..<range.lowerBound]
            out += replacement
            rest = range.upperBound
        }
        out += text[rest...]
        return out
    }

    static func split(_ text: Substring, separator: String, omittingEmptySubsequences: Bool) -> [Substring] {
        var parts: [Substring] = []
        var rest = text.startIndex
        for range in ranges(of: separator, in: text) where !range.isEmpty {
            let part = text[rest..<range.lowerBound]
            if !(omittingEmptySubsequences && part.isEmpty) { parts.append(part) }
            rest = range.upperBound
        }
        let last = text[rest...]
        if !(omittingEmptySubsequences && last.isEmpty) { parts.append(last) }
        return parts
    }

    private static func isASCII<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        if let contiguous = bytes.withContiguousStorageIfAvailable({ isASCII(buffer: $0) }) { return contiguous }
        return bytes.allSatisfy { $0 < 0x80 }
    }

    private static func isASCII(buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in buffer where byte >= 0x80 { return false }
        return true
    }
}

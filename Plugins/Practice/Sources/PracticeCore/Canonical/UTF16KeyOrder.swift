import ClubhouseJSON

/// Object member order of RFC 8785 §3.2.3: keys compared as sequences of UTF-16 code units.
///
/// Keys are compared on their UTF-8 bytes, which order like code points; the two orders differ
/// only when a code point at or above U+10000 (a surrogate pair in UTF-16, D800–DBFF first) meets
/// one in U+E000–U+FFFF at the first difference, and that case is flipped.
enum UTF16KeyOrder {
    /// True when `a` sorts before `b`.
    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(a.count, b.count)
        var i = 0
        while i < n && a[i] == b[i] { i += 1 }
        if i == n { return a.count < b.count }
        let x = a[i], y = b[i]
        // Back up to the first byte of the code point that differs (continuation bytes are 10xxxxxx).
        var start = i
        while start > 0 && a[start] & 0xC0 == 0x80 { start -= 1 }
        let leadA = a[start], leadB = b[start]
        // A 4-byte sequence (F0–F4) is a supplementary code point; EE/EF lead U+E000–U+FFFF.
        let supplementaryA = leadA >= 0xF0, supplementaryB = leadB >= 0xF0
        if supplementaryA != supplementaryB {
            let bmpLead = supplementaryA ? leadB : leadA
            if bmpLead >= 0xEE {
                // The BMP character is ≥ U+E000, above every surrogate: the supplementary one sorts first.
                return supplementaryA
            }
        }
        return x < y
    }

    static func precedes(_ a: String, _ b: String) -> Bool {
        if let r = a.utf8.withContiguousStorageIfAvailable({ pa in
            b.utf8.withContiguousStorageIfAvailable { pb in precedes(pa, pb) }
        }), let result = r {
            return result
        }
        return a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// The member indices in canonical order; two equal keys are an error.
    static func sortedIndices(of members: [(key: String, value: JSONValue)]) throws(CanonicalWriteFailure) -> [Int] {
        let n = members.count
        var order = Array(0..<n)
        if n < 2 { return order }
        if n <= 16 {
            // Insertion sort: objects are small, and this avoids the closure overhead of sort(by:).
            for i in 1..<n {
                let current = order[i]
                var j = i
                while j > 0 && precedes(members[current].key, members[order[j - 1]].key) {
                    order[j] = order[j - 1]
                    j -= 1
                }
                order[j] = current
            }
        } else {
            order.sort { precedes(members[$0].key, members[$1].key) }
        }
        // Byte equality: Swift's == would call "é" (U+00E9) and "e\u{301}" equal, JSON does not.
        for i in 1..<n where members[order[i - 1]].key.utf8.elementsEqual(members[order[i]].key.utf8) {
            throw CanonicalWriteFailure(message: "duplicate key \"\(members[order[i]].key)\" in an object")
        }
        return order
    }
}

// Semantic versions (semver 2.0 precedence) and the requirement ranges a site may put on a plugin.

public struct SemanticVersion: Sendable, Comparable, CustomStringConvertible {
    public var major: Int
    public var minor: Int
    public var patch: Int
    public var prerelease: [String]

    public init(major: Int, minor: Int, patch: Int, prerelease: [String] = []) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
    }

    /// Parses "1.2.3", "1.2.3-beta.1", "1.2.3+build" (build metadata ignored).
    public init?(_ text: String) {
        // The common case, "1.2.3" without leading zeros, in one pass over the bytes; anything else (and any
        // doubt: an overflow) goes the Character way below, which words nothing but decides the same.
        if let numbers = SemanticVersion.plainNumbers(text.utf8), numbers.count == 3, !numbers.leadingZero {
            self.init(major: numbers.values.0, minor: numbers.values.1, patch: numbers.values.2)
            return
        }
        // Identifiers of the pre-release and the build metadata are SemVer's: non-empty runs of
        // ASCII letters, digits and '-'. A version names folders (installed packages, database
        // backups), so nothing else may pass: issue 27's attack round made a descriptor version
        // "1.0.0+x/../../…" write a backup outside the data directory.
        func identifiers(_ part: Substring) -> [String]? {
            let list = part.split(separator: ".", omittingEmptySubsequences: false)
            guard list.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") } }) else { return nil }
            return list.map(String.init)
        }
        var core = Substring(text)
        if let plus = core.firstIndex(of: "+") {
            guard identifiers(core[core.index(after: plus)...]) != nil else { return nil }
            core = core[..<plus]
        }
        var pre: [String] = []
        if let dash = core.firstIndex(of: "-") {
            guard let list = identifiers(core[core.index(after: dash)...]) else { return nil }
            pre = list
            core = core[..<dash]
        }
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for p in parts {
            guard !p.isEmpty, p.allSatisfy(\.isASCIIDigitCharacter), let n = Int(p), !(p.count > 1 && p.first == "0") else {
                return nil
            }
            numbers.append(n)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2], prerelease: pre)
    }

    public var description: String {
        "\(major).\(minor).\(patch)" + (prerelease.isEmpty ? "" : "-" + prerelease.joined(separator: "."))
    }

    public static func < (a: SemanticVersion, b: SemanticVersion) -> Bool {
        if a.major != b.major { return a.major < b.major }
        if a.minor != b.minor { return a.minor < b.minor }
        if a.patch != b.patch { return a.patch < b.patch }
        // A pre-release sorts before its release; identifiers compare numerically when both are numbers.
        if a.prerelease.isEmpty || b.prerelease.isEmpty { return !a.prerelease.isEmpty && b.prerelease.isEmpty }
        for (x, y) in zip(a.prerelease, b.prerelease) where x != y {
            switch (Int(x), Int(y)) {
            case let (i?, j?): return i < j
            case (_?, nil): return true
            case (nil, _?): return false
            default: return x < y
            }
        }
        return a.prerelease.count < b.prerelease.count
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}

extension SemanticVersion {
    /// Up to three dot-separated runs of ASCII digits ("1", "1.2", "1.2.3"), each non-empty and within Int, with
    /// whether a run of two or more digits starts with 0; nil for any other text (the callers' slow paths decide).
    static func plainNumbers(_ bytes: String.UTF8View) -> (values: (Int, Int, Int), count: Int, leadingZero: Bool)? {
        var values = (0, 0, 0)
        var count = 0
        var value = 0
        var digits = 0
        var leadingZero = false
        var firstDigit: UInt8 = 0
        func finish() -> Bool {
            guard digits > 0, count < 3 else { return false }
            if digits > 1 && firstDigit == UInt8(ascii: "0") { leadingZero = true }
            switch count {
            case 0: values.0 = value
            case 1: values.1 = value
            default: values.2 = value
            }
            count += 1
            value = 0
            digits = 0
            return true
        }
        for b in bytes {
            if b == UInt8(ascii: ".") {
                guard finish() else { return nil }
                continue
            }
            let d = b &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            if digits == 0 { firstDigit = b }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(Int(d))
            guard !o1, !o2 else { return nil }
            value = sum
            digits += 1
        }
        guard finish() else { return nil }
        return (values, count, leadingZero)
    }
}

/// A version requirement: comparators joined by spaces (all must hold), eg: ">=1.2.0 <2.0.0",
/// "^1.2", "~1.2.3", "1.2.3", "*".
public struct VersionRequirement: Sendable, CustomStringConvertible {
    enum Op: String { case eq = "=", gt = ">", ge = ">=", lt = "<", le = "<=" }
    let comparators: [(Op, SemanticVersion)]
    public let description: String

    public init?(_ text: String) {
        description = text
        var comparators: [(Op, SemanticVersion)] = []
        let tokens = text.split(whereSeparator: { $0 == " " || $0 == "," })
        if tokens.isEmpty { return nil }
        for token in tokens {
            var t = Substring(token)
            if t == "*" { continue }
            if t.first == "^" || t.first == "~" {
                let caret = t.first == "^"
                t = t.dropFirst()
                guard let (low, given) = VersionRequirement.partial(t) else { return nil }
                let high: SemanticVersion?
                if caret {
                    if low.major > 0 || given == 1 { high = VersionRequirement.nextMajor(low) }
                    else if low.minor > 0 || given == 2 { high = VersionRequirement.nextMinor(low) }
                    else { high = VersionRequirement.nextPatch(low) }
                } else {
                    high = given == 1 ? VersionRequirement.nextMajor(low) : VersionRequirement.nextMinor(low)
                }
                // A bound past Int.max (eg: "^9223372036854775807") cannot be written: refuse the requirement.
                guard let high else { return nil }
                comparators.append((.ge, low))
                comparators.append((.lt, high))
                continue
            }
            var op = Op.eq
            for candidate in [Op.ge, .le, .gt, .lt, .eq] where t.hasPrefix(candidate.rawValue) {
                op = candidate
                t = t.dropFirst(candidate.rawValue.count)
                break
            }
            guard let (v, given) = VersionRequirement.partial(t) else { return nil }
            if op == .eq && given < 3 {
                // "1.2" means any 1.2.x
                guard let high = given == 1 ? VersionRequirement.nextMajor(v) : VersionRequirement.nextMinor(v) else { return nil }
                comparators.append((.ge, v))
                comparators.append((.lt, high))
            } else {
                comparators.append((op, v))
            }
        }
        self.comparators = comparators
    }

    /// The first version of the next major, minor or patch line; nil past Int.max.
    static func nextMajor(_ v: SemanticVersion) -> SemanticVersion? {
        let (n, overflow) = v.major.addingReportingOverflow(1)
        return overflow ? nil : SemanticVersion(major: n, minor: 0, patch: 0)
    }

    static func nextMinor(_ v: SemanticVersion) -> SemanticVersion? {
        let (n, overflow) = v.minor.addingReportingOverflow(1)
        return overflow ? nil : SemanticVersion(major: v.major, minor: n, patch: 0)
    }

    static func nextPatch(_ v: SemanticVersion) -> SemanticVersion? {
        let (n, overflow) = v.patch.addingReportingOverflow(1)
        return overflow ? nil : SemanticVersion(major: v.major, minor: v.minor, patch: n)
    }

    /// "1", "1.2" or "1.2.3[-pre]" → the version and how many numbers were given.
    static func partial(_ text: Substring) -> (SemanticVersion, Int)? {
        // "1", "1.2" (leading zeros allowed, as below) and "1.2.3" (not: SemanticVersion's rule) in one pass.
        if let plain = SemanticVersion.plainNumbers(String(text).utf8), plain.count < 3 || !plain.leadingZero {
            let (a, b, c) = plain.values
            return (SemanticVersion(major: a, minor: b, patch: c), plain.count)
        }
        if let full = SemanticVersion(String(text)) { return (full, 3) }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }) else {
            return nil
        }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count else { return nil }
        return (SemanticVersion(major: numbers[0], minor: numbers.count > 1 ? numbers[1] : 0, patch: 0), parts.count)
    }

    public func isSatisfied(by v: SemanticVersion) -> Bool {
        comparators.allSatisfy { op, bound in
            switch op {
            case .eq: return v == bound
            case .gt: return v > bound
            case .ge: return v >= bound
            case .lt: return v < bound
            case .le: return v <= bound
            }
        }
    }
}

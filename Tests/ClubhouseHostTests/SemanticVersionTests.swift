import XCTest
@testable import ClubhouseHost
@testable import ClubhouseLoader

final class SemanticVersionTests: XCTestCase {
    func testParsesAndOrdersBySemverPrecedence() throws {
        let ordered = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
                       "1.0.0-rc.1", "1.0.0", "1.0.1", "1.2.0", "2.0.0"]
        let versions = try ordered.map { try XCTUnwrap(SemanticVersion($0), $0) }
        for (a, b) in zip(versions, versions.dropFirst()) { XCTAssertLessThan(a, b, "\(a) < \(b)") }
        XCTAssertEqual(SemanticVersion("1.2.3+build.5")?.description, "1.2.3")
        for bad in ["1.2", "01.2.3", "1.2.3-", "a.b.c", "1.2.3.4", ""] { XCTAssertNil(SemanticVersion(bad), bad) }
    }

    /// The byte path for plain "1.2.3" (and a requirement's "1" / "1.2") decides as the Character path it skips:
    /// the same version or the same refusal, for the plain forms and for every near miss.
    func testThePlainVersionFastPathAgreesWithTheFullParse() {
        func reference(_ text: String) -> SemanticVersion? {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, !text.contains("+"), !text.contains("-") else { return nil }
            var numbers: [Int] = []
            for p in parts {
                guard !p.isEmpty, p.allSatisfy(\.isASCIIDigitCharacter), let n = Int(p), !(p.count > 1 && p.first == "0") else { return nil }
                numbers.append(n)
            }
            return SemanticVersion(major: numbers[0], minor: numbers[1], patch: numbers[2])
        }
        func referencePartial(_ text: String) -> (SemanticVersion, Int)? {
            if let full = reference(text) { return (full, 3) }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }) else { return nil }
            let numbers = parts.compactMap { Int($0) }
            guard numbers.count == parts.count else { return nil }
            return (SemanticVersion(major: numbers[0], minor: numbers.count > 1 ? numbers[1] : 0, patch: 0), parts.count)
        }
        let big = "9223372036854775807", over = "9223372036854775808"
        let texts = ["0.0.0", "1.2.3", "10.20.30", "1.0.0", "01.2.3", "1.02.3", "1.2.03", "1.2.0", "0.1.0", "1.2", "1", "01", "01.2",
                     "1.2.3.4", "1..3", ".1.2", "1.2.", "", ".", "1.2.x", "1.2.3 ", " 1.2.3", "1.2.3a", "١.٢.٣", "1.2.３",
                     "\(big).0.0", "\(over).0.0", "0.\(big).0", "0.0.\(over)", big, over, "\(big).1", "\(over).1", "1.\(over)"]
        for text in texts {
            XCTAssertEqual(SemanticVersion(text)?.description, reference(text)?.description, text)
            let partial = VersionRequirement.partial(Substring(text))
            let expected = referencePartial(text)
            XCTAssertEqual(partial?.0.description, expected?.0.description, text)
            XCTAssertEqual(partial?.1, expected?.1, text)
        }
    }

    func testRequirements() throws {
        func check(_ requirement: String, _ yes: [String], _ no: [String], line: UInt = #line) throws {
            let r = try XCTUnwrap(VersionRequirement(requirement), requirement, line: line)
            for v in yes { XCTAssertTrue(r.isSatisfied(by: try XCTUnwrap(SemanticVersion(v))), "\(requirement) ∋ \(v)", line: line) }
            for v in no { XCTAssertFalse(r.isSatisfied(by: try XCTUnwrap(SemanticVersion(v))), "\(requirement) ∌ \(v)", line: line) }
        }
        try check("^1.2", ["1.2.0", "1.9.9"], ["1.1.9", "2.0.0"])
        try check("^0.3.1", ["0.3.1", "0.3.9"], ["0.4.0", "0.3.0"])
        try check("~1.2.3", ["1.2.3", "1.2.9"], ["1.3.0", "1.2.2"])
        try check(">=1.0.0 <2.0.0", ["1.0.0", "1.5.2"], ["0.9.9", "2.0.0"])
        try check("1.2", ["1.2.0", "1.2.7"], ["1.3.0"])
        try check("1.2.3", ["1.2.3"], ["1.2.4"])
        try check("*", ["0.0.1", "9.9.9"], [])
        XCTAssertNil(VersionRequirement(">=banana"))
        XCTAssertNil(VersionRequirement(""))
    }

    /// Issue 27's attack round: a plugin's descriptor version "1.0.0+x/../../../tmp/t1/t2/t3/ESCAPED"
    /// was accepted (build metadata was never checked), and upgrading the plugin made the host create
    /// folders and write its database backup outside the data directory, where the version names the
    /// backup's file. Pre-release and build identifiers are SemVer's: [0-9A-Za-z-]+, dot-separated.
    func testPreReleaseAndBuildIdentifiersAreLettersDigitsAndHyphensOnly() throws {
        for bad in ["1.0.0+x/../../../../tmp/attack/ESCAPED", "1.0.0+a/b", "1.0.0-a/b", "1.0.0+", "1.0.0+a..b",
                    "1.0.0-beta+", "1.0.0+é", "1.0.0-x\u{0}", "1.0.0+ spaced", "1.0.0-rc.1+x/y"] {
            XCTAssertNil(SemanticVersion(bad), bad)
        }
        for good in ["1.0.0+build.5", "1.0.0-rc.1+exp.sha.5114f85", "1.0.0-x-y-z.--", "1.0.0+0001"] {
            XCTAssertNotNil(SemanticVersion(good), good)
        }
    }

    /// Found by Fuzz/fuzz-config: an upper bound one past Int.max trapped (arithmetic overflow).
    func testRequirementsWhoseUpperBoundWouldOverflowAreRefused() throws {
        let max = "9223372036854775807"
        for text in ["^\(max)", "^\(max).10", "^0.\(max)", "^0.0.\(max)", "~\(max)", "~1.\(max)", "~1.\(max).3",
                     max, "=\(max)", "1.\(max)"] {
            XCTAssertNil(VersionRequirement(text), text)
        }
        // The largest numbers are still fine where no bound has to go past them.
        let r = try XCTUnwrap(VersionRequirement(">=\(max).0.0"))
        XCTAssertTrue(r.isSatisfied(by: SemanticVersion(major: Int.max, minor: 0, patch: 0)))
        XCTAssertNotNil(VersionRequirement("^\(Int.max - 1)"))
    }

    func testAnOverflowingRequirementInPluginsJSONIsAnError() {
        // The fuzzer's input, reduced: the plugin's version requirement "^9223372036854775807.10".
        let text = #"{"sites": {"default": {"plugins": {"tennis": {"id": "org.clubhouse.tennis", "version": "^9223372036854775807.10"}}}}}"#
        do {
            _ = try ConfigurationParser.parse(text, source: "p.json", baseDirectory: nil)
            XCTFail("accepted \(text)")
        } catch {
            XCTAssertEqual(error.errors.map(\.description),
                           [#"p.json:1:88: version requirement '^9223372036854775807.10' is not valid; write eg: ">=1.0.0", "^1.2", ">=1.0.0 <2.0.0""#])
        }
    }
}

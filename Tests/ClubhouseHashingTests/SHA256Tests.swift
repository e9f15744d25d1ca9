import XCTest
@testable import ClubhouseHashing

/// FIPS 180-4 / NIST CAVS example vectors, through both engines and through odd chunkings.
final class SHA256Tests: XCTestCase {
    static let vectors: [(message: String, digest: String)] = [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ]

    func testNISTVectorsOnEveryEngine() {
        for engine in SHA256.Engine.allCases {
            for (message, digest) in Self.vectors {
                XCTAssertEqual(SHA256.hash(message, engine: engine).hex, digest, "\(engine) \"\(message)\"")
            }
        }
    }

    func testOneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        for engine in SHA256.Engine.allCases {
            XCTAssertEqual(SHA256.hash(message, engine: engine).hex,
                           "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "\(engine)")
        }
    }

    func testStreamingInAnyChunkingEqualsOneShot() {
        // Lengths around the padding boundaries (55/56 bytes, one and two blocks) and beyond.
        var state: UInt64 = 7
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for length in [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000] {
            let message = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            let expected = SHA256.hash(message, engine: .portable)
            XCTAssertEqual(SHA256.hash(message, engine: .hardware), expected, "engines differ at length \(length)")
            for chunk in [1, 3, 63, 64, 65, 200] {
                var hash = SHA256(engine: .preferred)
                var start = 0
                while start < message.count {
                    let end = min(start + chunk, message.count)
                    hash.update(Array(message[start..<end]))
                    start = end
                }
                XCTAssertEqual(hash.finalize(), expected, "length \(length) in chunks of \(chunk)")
            }
        }
    }

    func testHardwareRequestFallsBackWhereUnavailable() {
        let hash = SHA256(engine: .hardware)
        XCTAssertEqual(hash.engine, SHA256.Engine.hardwareAvailable ? .hardware : .portable)
    }

    func testDigestHexIsLowercaseAndSixtyFourCharacters() {
        let hex = SHA256.hash("abc").hex
        XCTAssertEqual(hex.count, 64)
        XCTAssertEqual(hex, hex.lowercased())
        XCTAssertEqual(SHA256.hash("abc").bytes.count, 32)
    }
}

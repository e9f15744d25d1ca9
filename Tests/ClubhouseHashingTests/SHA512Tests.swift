import XCTest
@testable import ClubhouseHashing

/// FIPS 180-4 / NIST example vectors for SHA-512 (one block, two blocks, the empty message, one
/// million 'a'), and streaming in any chunking around the 111/112-byte padding boundary.
final class SHA512Tests: XCTestCase {
    static let vectors: [(message: String, digest: String)] = [
        ("", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        ("abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c33596fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
    ]

    func testNISTVectors() {
        for (message, digest) in Self.vectors {
            XCTAssertEqual(SHA512.hash(message).hex, digest, "\"\(message)\"")
        }
    }

    func testOneMillionA() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        XCTAssertEqual(SHA512.hash(message).hex,
                       "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b")
    }

    func testStreamingInAnyChunkingEqualsOneShot() {
        var state: UInt64 = 11
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        for length in [0, 1, 111, 112, 113, 127, 128, 129, 239, 240, 255, 256, 1000] {
            let message = (0..<length).map { _ in UInt8(truncatingIfNeeded: next()) }
            let whole = SHA512.hash(message)
            var streamed = SHA512()
            var offset = 0
            while offset < length {
                let take = min(length - offset, Int(next() % 130) + 1)
                streamed.update(Array(message[offset..<offset + take]))
                offset += take
            }
            XCTAssertEqual(streamed.finalize(), whole, "length \(length)")
        }
    }

    func testHexRoundTrip() {
        XCTAssertEqual(Hex.decode("00ff10Ab"), [0, 255, 16, 171])
        XCTAssertEqual(Hex.encode([0, 255, 16, 171]), "00ff10ab")
        XCTAssertNil(Hex.decode("abc"))
        XCTAssertNil(Hex.decode("zz"))
    }
}

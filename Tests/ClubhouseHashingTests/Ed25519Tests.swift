import XCTest
@testable import ClubhouseHashing

/// RFC 8032 §7.1, every Ed25519 test vector (TEST 1, 2, 3, 1024 and SHA(abc)): the public key
/// from the secret key, the signature byte for byte, and verification; then the encoding rules of
/// §5.1.3 and §5.1.7 (non-canonical S, bad point encodings) that a verifier must enforce.
final class Ed25519Tests: XCTestCase {
    struct Vector { var name, secret, publicKey, message, signature: String }

    /// TEST 1024's message: 1023 bytes, as printed in the RFC.
    static let message1023 =
        "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d8" +
        "79de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc" +
        "1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e" +
        "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc103b6621fcde2beca1231d206be6cd9ec7" +
        "aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed185ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2" +
        "d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270" +
        "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2cf65bd92dd597b07" +
        "07e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128bab27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51a" +
        "ddd3b75a2b1ae0784504df543af8969be3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7" +
        "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8" +
        "ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34dff7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08" +
        "d78ff4ef5d63653a65040cf9bfd4aca7984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4" +
        "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e" +
        "6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5fb93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b5" +
        "0d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d" +
        "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0"

    static let vectors: [Vector] = [
        Vector(name: "TEST 1", secret: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
               publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", message: "",
               signature: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        Vector(name: "TEST 2", secret: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
               publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", message: "72",
               signature: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
        Vector(name: "TEST 3", secret: "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
               publicKey: "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", message: "af82",
               signature: "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"),
        Vector(name: "TEST 1024", secret: "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
               publicKey: "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e", message: message1023,
               signature: "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03"),
        Vector(name: "TEST SHA(abc)", secret: "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
               publicKey: "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
               message: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
               signature: "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704"),
    ]

    func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex) ?? [] }

    func testEveryRFC8032Vector() {
        XCTAssertEqual(bytes(Self.message1023).count, 1023)
        // SHA(abc)'s message is the SHA-512 of "abc", as the RFC says.
        XCTAssertEqual(SHA512.hash("abc").hex, Self.vectors[4].message)
        for v in Self.vectors {
            let seed = bytes(v.secret), message = bytes(v.message), signature = bytes(v.signature)
            XCTAssertEqual(Hex.encode(Ed25519.publicKey(seed: seed)), v.publicKey, v.name)
            XCTAssertEqual(Hex.encode(Ed25519.sign(message, seed: seed)), v.signature, v.name)
            XCTAssertEqual(Ed25519.verify(signature, message: message, publicKey: bytes(v.publicKey)), .valid, v.name)
            // Any other message, key or signature bit fails.
            XCTAssertEqual(Ed25519.verify(signature, message: message + [0], publicKey: bytes(v.publicKey)), .mismatch, v.name)
            let other = Self.vectors[(Self.vectors.firstIndex { $0.name == v.name }! + 1) % Self.vectors.count]
            XCTAssertEqual(Ed25519.verify(signature, message: message, publicKey: bytes(other.publicKey)), .mismatch, v.name)
            for bit in [0, 7, 255, 256, 300, 511] {
                var flipped = signature
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                XCTAssertNotEqual(Ed25519.verify(flipped, message: message, publicKey: bytes(v.publicKey)), .valid, "\(v.name) bit \(bit)")
            }
        }
    }

    /// §5.1.7: S must be below L. S + L verifies under the group equation alone, so a verifier
    /// that skips the check accepts a second signature for the same message (malleability).
    func testANonCanonicalSIsRefused() {
        let v = Self.vectors[0]
        let signature = bytes(v.signature)
        let l: [UInt8] = bytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        var sum = [UInt8](repeating: 0, count: 32)
        var carry = 0
        for i in 0..<32 {
            let s = Int(signature[32 + i]) + Int(l[i]) + carry
            sum[i] = UInt8(s & 255)
            carry = s >> 8
        }
        XCTAssertEqual(carry, 0)
        let malleated = Array(signature[0..<32]) + sum
        XCTAssertEqual(Ed25519.verify(malleated, message: [], publicKey: bytes(v.publicKey)), .nonCanonicalS)
        // L itself and all ones are refused too; L − 1 is canonical.
        XCTAssertFalse(Scalar25519.isCanonical(l))
        XCTAssertFalse(Scalar25519.isCanonical([UInt8](repeating: 0xff, count: 32)))
        var below = l
        below[0] -= 1
        XCTAssertTrue(Scalar25519.isCanonical(below))
    }

    /// §5.1.3: y ≥ p, a y with no x, and x = 0 with the sign bit set are not points.
    func testBadPointEncodingsAreRefused() {
        let v = Self.vectors[1]
        let signature = bytes(v.signature), message = bytes(v.message)
        // p itself (ed ff … ff 7f) and p + 1 encode y ≥ p; 2^255 − 1 too.
        var p = [UInt8](repeating: 0xff, count: 32)
        p[0] = 0xed
        p[31] = 0x7f
        var pPlusOne = p
        pPlusOne[0] = 0xee
        let allOnes = [UInt8](repeating: 0xff, count: 31) + [0x7f]
        // y = 1 with the sign bit: x = 0, so sign 1 is invalid (the identity's other encoding).
        var negativeZero = [UInt8](repeating: 0, count: 32)
        negativeZero[0] = 1
        negativeZero[31] = 0x80
        // y = 2: (y² − 1)/(d·y² + 1) is not a square.
        var noRoot = [UInt8](repeating: 0, count: 32)
        noRoot[0] = 2
        for (name, encoding) in [("p", p), ("p+1", pPlusOne), ("2^255-1", allOnes), ("-0", negativeZero), ("no root", noRoot)] {
            XCTAssertNil(Point(decoding: encoding), name)
            XCTAssertFalse(Ed25519.isValidPublicKey(encoding), name)
            XCTAssertEqual(Ed25519.verify(signature, message: message, publicKey: encoding), .badPublicKey, name)
            XCTAssertEqual(Ed25519.verify(encoding + Array(signature[32..<64]), message: message, publicKey: bytes(v.publicKey)), .badR, name)
        }
        // y = 1 with sign 0 is the identity, a valid encoding; so is y = p − 1 (x = 0, y = −1).
        var one = [UInt8](repeating: 0, count: 32)
        one[0] = 1
        XCTAssertNotNil(Point(decoding: one))
        var minusOne = p
        minusOne[0] = 0xec
        XCTAssertNotNil(Point(decoding: minusOne))
        XCTAssertEqual(Ed25519.verify(Array(signature[0..<63]), message: message, publicKey: bytes(v.publicKey)), .badLength)
    }

    func testFieldConstantsAndCanonicalEncoding() {
        // d·121666 = −121665 and (√−1)² = −1.
        XCTAssertEqual((Point.d * Field25519(small: 121_666) + Field25519(small: 121_665)).isZero, 1)
        XCTAssertEqual((Point.sqrtMinusOne.squared() + .one).isZero, 1)
        // B encodes to 0x58 0x66 … 0x66 and has order L: [L]B is the identity.
        XCTAssertEqual(Hex.encode(Point.base.encoded), "58" + String(repeating: "66", count: 31))
        let l = bytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        XCTAssertTrue(Point.baseMultiple(l).isIdentity)
        // p + 5 (a non-canonical field input) encodes canonically as 5.
        var p5 = [UInt8](repeating: 0xff, count: 32)
        p5[0] = 0xf2
        p5[31] = 0x7f
        XCTAssertEqual(Field25519(bytes: p5).bytes, [5] + [UInt8](repeating: 0, count: 31))
        // The inverse: x · x⁻¹ = 1.
        let x = Field25519(bytes: bytes(Self.vectors[3].publicKey))
        XCTAssertEqual(Field25519.equal(x * x.inverse(), .one), 1)
    }

    func testScalarReductionMatchesKnownValues() {
        // 2^512 − 1 mod L, and L·3 + 7 mod L = 7.
        let allOnes = [UInt8](repeating: 0xff, count: 64)
        XCTAssertEqual(Hex.encode(Scalar25519.bytes(Scalar25519.reduce(bytes64: allOnes))),
                       "000f9c44e31106a447938568a71b0ed065bef517d273ecce3d9a307c1b419903")
        let l = bytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
        let three = [UInt8(3)] + [UInt8](repeating: 0, count: 31), seven = [UInt8(7)] + [UInt8](repeating: 0, count: 31)
        XCTAssertEqual(Scalar25519.bytes(Scalar25519.mulAdd(l, three, seven)), seven)
    }

    func testKeyTextForms() throws {
        let v = Self.vectors[0]
        let key = bytes(v.publicKey)
        let text = Ed25519.publicKeyText(key)
        XCTAssertEqual(text, "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")
        XCTAssertEqual(try Ed25519.parsePublicKey(text).get(), key)
        for bad in ["11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", "ed25519:!!", "ed25519:AAAA", "ed25519:" + Base64.encode(negativeZeroKey)] {
            XCTAssertThrowsError(try Ed25519.parsePublicKey(bad).get(), bad)
        }
        let pem = Ed25519.privateKeyPEM(seed: bytes(v.secret))
        XCTAssertEqual(try Ed25519.parsePrivateKeyPEM(pem).get(), bytes(v.secret))
        // RFC 8410 §10.3's example private key (the same form openssl writes).
        let rfc8410 = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n-----END PRIVATE KEY-----\n"
        XCTAssertEqual(Hex.encode(try Ed25519.parsePrivateKeyPEM(rfc8410).get()), "d4ee72dbf913584ad5b6d8f1f769f8ad3afe7c28cbf1d4fbe097a88f44755842")
        XCTAssertThrowsError(try Ed25519.parsePrivateKeyPEM("hello").get())
        XCTAssertEqual(Ed25519.parsePrivateKeyPEM("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n").errorMessage,
                       "the key is encrypted; give an unencrypted Ed25519 key (clubhouse plugin keygen, or openssl genpkey -algorithm ed25519)")
        // An RSA key's PKCS #8 header is not Ed25519's.
        XCTAssertTrue(Ed25519.parsePrivateKeyPEM("-----BEGIN PRIVATE KEY-----\n" + Base64.encode([UInt8](repeating: 1, count: 48)) + "\n-----END PRIVATE KEY-----\n")
            .errorMessage?.hasPrefix("not an Ed25519 private key (PKCS #8 with OID 1.3.101.112") ?? false)
        XCTAssertThrowsError(try Ed25519.parsePrivateKeyPEM("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n").get())
    }

    var negativeZeroKey: [UInt8] {
        var k = [UInt8](repeating: 0, count: 32)
        k[0] = 1
        k[31] = 0x80
        return k
    }

    func testBase64IsStrict() {
        for (bytes, text) in [([UInt8](), ""), ([0x66], "Zg=="), ([0x66, 0x6f], "Zm8="), ([0x66, 0x6f, 0x6f], "Zm9v"),
                              (Array("foobar".utf8), "Zm9vYmFy")] {
            XCTAssertEqual(Base64.encode(bytes), text)
            XCTAssertEqual(Base64.decode(text), bytes)
        }
        for bad in ["Zg", "Zh==", "Zm9=", "Z===", "Zm 9v", "Zm9v\n", "=Zm9", "Zg==Zg=="] { XCTAssertNil(Base64.decode(bad), bad) }
    }
}

extension Result where Failure == Ed25519.KeyError {
    var errorMessage: String? { if case .failure(let e) = self { return e.message } else { return nil } }
}

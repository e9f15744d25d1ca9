// Signing benchmark (issue 32, "manifest and publisher"): what checking a package signature costs,
// in a release build. Ed25519 verification (RFC 8032 §5.1.7, ClubhouseHashing) of a 600-byte
// manifest, as the host does it when a site requires signatures, signing (constant-time), and
// SHA-512 throughput. Wall and thread CPU time, medians. The peers run in the same session from
// Benchmarks/signing/run.sh: Python's `cryptography` (OpenSSL underneath) verifying the same
// signature in a loop, and `openssl speed ed25519`.
// Usage: clubhouse-bench signing [--calls N] [--samples K] [--emit DIR]
//   --emit DIR writes key.hex, message.bin and signature.hex for the peers and exits.

import ClubhouseHashing
#if canImport(Glibc)
import Glibc
#endif

func signingBench(_ arguments: [String]) {
    func option(_ name: String) -> String? {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }
    let calls = option("--calls").flatMap(Int.init) ?? 2000
    let samples = option("--samples").flatMap(Int.init) ?? 11
    // RFC 8032 TEST 1's seed; a manifest-sized message (a packed manifest is 500-700 bytes).
    let seed = Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60") ?? []
    var message = Array("clubhouse-package-signature-v1\n".utf8)
    message += Array(String(repeating: "{\"id\": \"org.example.notes\", \"version\": \"1.2.3\", \"sha256\": \"0123456789abcdef\"}\n", count: 8).utf8)
    message = Array(message.prefix(600))
    let publicKey = Ed25519.publicKey(seed: seed)
    let signature = Ed25519.sign(message, seed: seed)
    guard Ed25519.verify(signature, message: message, publicKey: publicKey) == .valid else { print("signing bench: the signature does not verify"); return }
    if let dir = option("--emit") {
        func write(_ name: String, _ bytes: [UInt8]) {
            guard let f = fopen(dir + "/" + name, "wb") else { return }
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
            fclose(f)
        }
        write("key.hex", Array(Hex.encode(publicKey).utf8))
        write("seed.hex", Array(Hex.encode(seed).utf8))
        write("message.bin", message)
        write("signature.hex", Array(Hex.encode(signature).utf8))
        return
    }
    var sink = 0
    func perCall(_ n: Int, _ body: () -> Void) -> (wall: Double, cpu: Double) {
        var walls: [Double] = [], cpus: [Double] = []
        for sample in 0...samples {
            let cpu0 = signingThreadCPU(), wall0 = Measure.now()
            for _ in 0..<n { body() }
            if sample > 0 {
                walls.append((Measure.now() - wall0) / Double(n))
                cpus.append((signingThreadCPU() - cpu0) / Double(n))
            }
        }
        return (Measure.median(walls), Measure.median(cpus))
    }
    let verify = perCall(calls) { if Ed25519.verify(signature, message: message, publicKey: publicKey) == .valid { sink &+= 1 } }
    let sign = perCall(max(1, calls / 4)) { sink &+= Int(Ed25519.sign(message, seed: seed)[0]) }
    let mebibyte = [UInt8](repeating: 0x61, count: 1 << 20)
    let sha = perCall(20) { sink &+= Int(SHA512.hash(mebibyte).bytes[0]) }
    func us(_ s: Double) -> String { String(format: "%.1f µs", s * 1e6) }
    print("Ed25519 verify, 600-byte manifest (cofactored, §5.1.7):  \(us(verify.wall)) wall, \(us(verify.cpu)) CPU  (\(Int(1 / verify.cpu)) verifications/s per core)")
    print("Ed25519 sign, same message (constant-time):            \(us(sign.wall)) wall, \(us(sign.cpu)) CPU")
    print(String(format: "SHA-512, 1 MiB:                                        %.0f MB/s (CPU)", 1.048576 / sha.cpu))
    if sink == 42 { print("") }
}

private func signingThreadCPU() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

// SHA-256 and SHA-512 throughput and small-message cost, CPU time of this thread, medians of 11
// samples: compiled by run.sh with ClubhouseHashing's sources of two revisions (release flags).
import Foundation
func cpu() -> Double { var t = timespec(); clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
var sink = 0
let mebibyte = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
let small = [UInt8](repeating: 7, count: 43)
func measure(_ name: String, bytes: Int, _ n: Int, _ body: () -> Void) {
    var samples: [Double] = []
    for _ in 0..<11 { let t0 = cpu(); for _ in 0..<n { body() }; samples.append((cpu() - t0) / Double(n)) }
    let m = median(samples)
    print(String(format: "%@: %.3f µs CPU per call, %.0f MB/s", name, m * 1e6, Double(bytes) / m / 1e6))
}
measure("SHA-256 hardware 1 MiB", bytes: 1 << 20, 20) { sink &+= Int(SHA256.hash(mebibyte, engine: .hardware).bytes[0]) }
measure("SHA-256 portable 1 MiB", bytes: 1 << 20, 5) { sink &+= Int(SHA256.hash(mebibyte, engine: .portable).bytes[0]) }
measure("SHA-256 hardware 43 B", bytes: 43, 200_000) { sink &+= Int(SHA256.hash(small, engine: .hardware).bytes[0]) }
measure("SHA-256 hardware 1 MiB in 100 B updates", bytes: 1 << 20, 10) {
    var h = SHA256(engine: .hardware)
    mebibyte.withUnsafeBytes { b in var i = 0; while i < b.count { let n = min(100, b.count - i); h.update(UnsafeRawBufferPointer(rebasing: b[i..<(i + n)])); i += n } }
    sink &+= Int(h.finalize().bytes[0])
}
measure("SHA-512 1 MiB", bytes: 1 << 20, 10) { sink &+= Int(SHA512.hash(mebibyte).bytes[0]) }
measure("SHA-512 43 B", bytes: 43, 100_000) { sink &+= Int(SHA512.hash(small).bytes[0]) }
print("sink \(sink)")

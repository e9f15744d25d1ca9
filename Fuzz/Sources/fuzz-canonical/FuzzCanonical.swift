// Fuzzes the practice plugin's canonical JSON (`practice hash`, `practice canonicalize`) in both
// profiles. Properties checked on every input:
// - the one-pass writer (CanonicalHasher, with its fallback) and the tree writer
//   (JSONParser + CanonicalJSON) agree: same bytes, or both refuse;
// - canonical output re-parses, and canonicalizing it again gives the same bytes (a fixed point);
// - the hash is the SHA-256 of the canonical bytes, and JSON Lines hashing of a one-line input
//   gives the same digest.

import ClubhouseHashing
import ClubhouseJSON
import PracticeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCanonical(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let tree = try? JSONParser.parse(bytes: bytes)
    for profile in CanonicalProfile.allCases {
        var hasher = CanonicalHasher(profile: profile)
        let streamed = bytes.withUnsafeBufferPointer { try? hasher.canonicalize($0) }
        let written = tree.flatMap { try? CanonicalJSON.bytes(of: $0, profile: profile) }
        check(streamed == written, "\(profile): one-pass \(text(streamed)) vs tree \(text(written))")
        guard let canonical = written else { continue }

        // A fixed point: canonical text canonicalizes to itself.
        do {
            let again = try CanonicalJSON.bytes(of: try JSONParser.parse(bytes: canonical), profile: profile)
            check(again == canonical, "\(profile): not a fixed point: \(text(canonical)) → \(text(again))")
        } catch {
            fail("\(profile): canonical output does not re-parse or re-canonicalize (\(error)): \(text(canonical))")
        }
        if let value = tree, let hex = try? CanonicalJSON.hash(of: value, profile: profile) {
            check(hex == SHA256.hash(canonical).hex, "\(profile): hash is not SHA-256 of the canonical bytes")
            if !bytes.contains(0x0A), !bytes.contains(0x0D) {
                let lines = try? CanonicalCommands.hash(HashRequest(profile: profile, input: bytes, sourceName: "fuzz.jsonl",
                                                                    jsonLines: true, threads: 1))
                check(lines?.documents.first?.sha256 == hex, "\(profile): JSON Lines digest differs from the document's")
            }
        }
    }
    return 0
}

func text(_ bytes: [UInt8]?) -> String { bytes.map { String(decoding: $0, as: UTF8.self) } ?? "refused" }

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

func fail(_ message: String) -> Never { fatalError("fuzz-canonical: \(message)") }

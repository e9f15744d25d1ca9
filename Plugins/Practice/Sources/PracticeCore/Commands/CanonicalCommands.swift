import Glibc
import ClubhouseJSON
import ClubhouseHashing
import ClubhouseToolkit

/// `practice canonicalize [--profile …] FILE|-`: the canonical bytes of one JSON document.
public struct CanonicalizeRequest: Sendable {
    public var profile: CanonicalProfile
    public var input: [UInt8]
    /// How to name the input in messages (a path, or `-` for standard input).
    public var sourceName: String

    public init(profile: CanonicalProfile = .raidV2, input: [UInt8], sourceName: String) {
        self.profile = profile
        self.input = input
        self.sourceName = sourceName
    }
}

public struct CanonicalizeResult: Sendable, Codable, Equatable {
    public let profile: CanonicalProfile
    /// The canonical text (UTF-8).
    public let canonical: String
    /// Lowercase hex SHA-256 of the canonical bytes.
    public let sha256: String

    /// What the command prints: the canonical bytes alone.
    public var text: String { canonical }
}

/// `practice hash [--profile …] [--jsonl] FILE|-`: content hashes of one document or of every line.
public struct HashRequest: Sendable {
    public var profile: CanonicalProfile
    public var input: [UInt8]
    public var sourceName: String
    /// One document per LF-terminated line instead of one document.
    public var jsonLines: Bool
    /// Threads for JSON Lines (nil: one per core; 1: this thread only).
    public var threads: Int?

    public init(profile: CanonicalProfile = .raidV2, input: [UInt8], sourceName: String, jsonLines: Bool = false,
                threads: Int? = nil) {
        self.profile = profile
        self.input = input
        self.sourceName = sourceName
        self.jsonLines = jsonLines
        self.threads = threads
    }
}

public struct HashResult: Sendable, Codable, Equatable {
    public struct Line: Sendable, Codable, Equatable {
        /// 1-based line number (1 for a single document).
        public let line: Int
        /// Lowercase hex SHA-256 of the canonical form; nil when the line is not valid.
        public let sha256: String?
        /// Why the line has no hash (`file:line:column: message`).
        public let error: String?
    }

    public let profile: CanonicalProfile
    public let documents: [Line]
    public var errorCount: Int { documents.count { $0.error != nil } }

    /// The result as JSON (built directly: a 10,000-line result is too big for a Codable round trip).
    public var json: JSONValue {
        let lines: [JSONValue] = documents.map { d in
            .object(JSONObject([(key: "line", value: .int(d.line)),
                                (key: "sha256", value: d.sha256.map(JSONValue.string) ?? .null),
                                (key: "error", value: d.error.map(JSONValue.string) ?? .null)]))
        }
        return .object(JSONObject([(key: "profile", value: .string(profile.rawValue)), (key: "documents", value: .array(lines)),
                                   (key: "errors", value: .int(errorCount))]))
    }

    /// Only the counts, for callers that read the text (one line per document there already).
    public var summaryJSON: JSONValue {
        .object(JSONObject([(key: "profile", value: .string(profile.rawValue)), (key: "count", value: .int(documents.count)),
                            (key: "errors", value: .int(errorCount))]))
    }

    /// One hash per line, or `ERROR <message>` for a line that isn't valid JSON.
    public var text: String {
        documents.map { $0.sha256 ?? "ERROR \($0.error ?? "")" }.joined(separator: "\n")
    }
}

/// Canonicalizes and hashes documents, reusing its buffers across documents.
public struct CanonicalHasher {
    public let profile: CanonicalProfile
    private var stream: CanonicalStream

    public init(profile: CanonicalProfile) {
        self.profile = profile
        stream = CanonicalStream(profile: profile)
    }

    /// The canonical bytes of the JSON text in `bytes`.
    public mutating func canonicalize(_ bytes: UnsafeBufferPointer<UInt8>) throws(DocumentError) -> [UInt8] {
        if stream.canonicalize(bytes) { return stream.output }
        return try Self.canonicalizeExplaining(bytes, profile: profile)
    }

    /// The SHA-256 of the canonical form of the JSON text in `bytes`.
    public mutating func hash(_ bytes: UnsafeBufferPointer<UInt8>) throws(DocumentError) -> SHA256Digest {
        if stream.canonicalize(bytes) {
            return stream.output.withUnsafeBytes { SHA256.hash($0) }
        }
        return SHA256.hash(try Self.canonicalizeExplaining(bytes, profile: profile))
    }

    /// The slow path for text the one-pass writer refused: parse with `JSONParser`, whose error
    /// says what and where, and write from the tree.
    static func canonicalizeExplaining(_ bytes: UnsafeBufferPointer<UInt8>, profile: CanonicalProfile)
        throws(DocumentError) -> [UInt8]
    {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw DocumentError(line: error.location.line, column: error.location.column, message: error.message)
        }
        do {
            return try CanonicalJSON.bytes(of: value, profile: profile)
        } catch {
            throw DocumentError(locating: error, in: bytes)
        }
    }

    /// Why one document failed; the line and column are relative to the document's own text.
    public struct DocumentError: Error, Sendable {
        public let line: Int?
        public let column: Int?
        public let message: String

        init(line: Int?, column: Int?, message: String) {
            self.line = line
            self.column = column
            self.message = message
        }

        /// Points at the value that could not be canonicalized (parsing again, with locations,
        /// only on this error path).
        init(locating error: CanonicalizationError, in bytes: UnsafeBufferPointer<UInt8>) {
            let text = String(decoding: bytes, as: UTF8.self)
            if let document = try? JSONParser.parseDocument(text) {
                let location = document.location(of: error.pointer)
                self.init(line: location.line, column: location.column, message: error.message)
            } else {
                self.init(line: nil, column: nil, message: error.description)
            }
        }

        /// `name:line:column: message`, shifting the line by `lineOffset` (for JSON Lines).
        func rendered(source: String, lineOffset: Int = 0) -> String {
            guard let line, let column else { return "\(source): \(message)" }
            return "\(source):\(line + lineOffset):\(column): \(message)"
        }
    }
}

/// The input bytes, read (never written) by the hashing threads.
/// @unchecked Sendable: the bytes are only read, and outlive the workers (concurrentPerform returns when all are done).
private struct SharedBytes: @unchecked Sendable {
    let bytes: UnsafeBufferPointer<UInt8>
}

/// The result slots; each thread initializes only the slots of its own chunk.
/// @unchecked Sendable: no two workers write the same slot, and the caller reads them after concurrentPerform returns.
private struct SharedResults: @unchecked Sendable {
    let base: UnsafeMutablePointer<HashResult.Line>?
}

public enum CanonicalCommands {
    static let processorCount = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    public static func canonicalize(_ request: CanonicalizeRequest) throws(PracticeError) -> CanonicalizeResult {
        var hasher = CanonicalHasher(profile: request.profile)
        let result = request.input.withUnsafeBufferPointer { bytes in
            Result { () throws(CanonicalHasher.DocumentError) in try hasher.canonicalize(bytes) }
        }
        switch result {
        case .success(let canonical):
            return CanonicalizeResult(profile: request.profile, canonical: String(decoding: canonical, as: UTF8.self),
                                      sha256: SHA256.hash(canonical).hex)
        case .failure(let error):
            throw .invalidInput(error.rendered(source: request.sourceName))
        }
    }

    public static func hash(_ request: HashRequest) throws(PracticeError) -> HashResult {
        var hasher = CanonicalHasher(profile: request.profile)
        if !request.jsonLines {
            let result = request.input.withUnsafeBufferPointer { bytes in
                Result { () throws(CanonicalHasher.DocumentError) in try hasher.hash(bytes) }
            }
            switch result {
            case .success(let digest):
                return HashResult(profile: request.profile, documents: [.init(line: 1, sha256: digest.hex, error: nil)])
            case .failure(let error):
                throw .invalidInput(error.rendered(source: request.sourceName))
            }
        }
        let profile = request.profile, source = request.sourceName
        let documents: [HashResult.Line] = request.input.withUnsafeBufferPointer { bytes in
            let lines = JSONLines.split(bytes)
            // Lines are independent: big files are hashed in chunks on every core, each chunk with
            // its own hasher, results in file order.
            let workers = request.threads ?? Self.processorCount
            let chunks = workers > 1 && lines.count >= 2048 ? workers * 4 : 1
            let input = SharedBytes(bytes: bytes)
            return [HashResult.Line](unsafeUninitializedCapacity: lines.count) { out, initialized in
                let results = SharedResults(base: out.baseAddress)
                Parallel.perform(iterations: chunks) { chunk in
                    var hasher = CanonicalHasher(profile: profile)
                    let range = (lines.count * chunk / chunks)..<(lines.count * (chunk + 1) / chunks)
                    for i in range {
                        let line = lines[i]
                        let result: HashResult.Line
                        do throws(CanonicalHasher.DocumentError) {
                            let digest = try hasher.hash(UnsafeBufferPointer(rebasing: input.bytes[line.range]))
                            result = .init(line: line.number, sha256: digest.hex, error: nil)
                        } catch {
                            result = .init(line: line.number, sha256: nil,
                                           error: error.rendered(source: source, lineOffset: line.number - 1))
                        }
                        results.base?.advanced(by: i).initialize(to: result)
                    }
                }
                initialized = lines.count
            }
        }
        return HashResult(profile: request.profile, documents: documents)
    }
}

// SHA-256 (FIPS 180-4) with a streaming API. Two compression engines compute the same function:
// the x86 SHA extensions when the CPU has them (checked once at run time) and a portable
// unrolled Swift version everywhere else. Neither allocates per block.

/// A SHA-256 digest: 32 bytes, printed as 64 lowercase hex digits.
public struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The digest bytes, most significant first.
    public let bytes: [UInt8]

    init(state: SHA256.State) {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [state.h0, state.h1, state.h2, state.h3, state.h4, state.h5, state.h6, state.h7] {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        bytes = out
    }

    /// Lowercase hex, 64 characters.
    public var hex: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: 0, count: 64)
        for (i, b) in bytes.enumerated() {
            out[2 * i] = digits[Int(b >> 4)]
            out[2 * i + 1] = digits[Int(b & 0x0F)]
        }
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { hex }
}

/// Incremental SHA-256: `update` with any number of chunks, then `finalize`.
public struct SHA256: Sendable {
    /// How the 64-byte blocks are compressed.
    public enum Engine: String, Sendable, CaseIterable {
        /// The x86 SHA extensions (SHA-NI).
        case hardware
        /// Portable Swift.
        case portable

        /// The fastest engine this process can use.
        public static let preferred: Engine = hardwareAvailable ? .hardware : .portable

        /// True when this build includes the hardware engine and the CPU supports it.
        public static var hardwareAvailable: Bool { SHA256.cpuHasSHAExtensions }
    }

    struct State: Sendable {
        var h0: UInt32 = 0x6a09_e667, h1: UInt32 = 0xbb67_ae85, h2: UInt32 = 0x3c6e_f372, h3: UInt32 = 0xa54f_f53a
        var h4: UInt32 = 0x510e_527f, h5: UInt32 = 0x9b05_688c, h6: UInt32 = 0x1f83_d9ab, h7: UInt32 = 0x5be0_cd19
    }

    /// A 64-byte block held inline (no heap storage).
    private typealias Block = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    private static let emptyBlock: Block = (0, 0, 0, 0, 0, 0, 0, 0)

    private var state = State()
    private var buffer = SHA2Buffer(empty: SHA256.emptyBlock)
    public let engine: Engine

    /// A fresh hash. `engine` defaults to the fastest available; asking for `.hardware` where it is
    /// unavailable falls back to `.portable`.
    public init(engine: Engine = .preferred) {
        self.engine = engine == .hardware && !Engine.hardwareAvailable ? .portable : engine
    }

    @inline(__always)
    private static func compress(_ engine: Engine, _ state: inout State, _ blocks: UnsafeRawPointer, count: Int) {
        switch engine {
        case .hardware: SHA256.compressHardware(&state, blocks, count: count)
        case .portable: SHA256.compressPortable(&state, blocks, count: count)
        }
    }

    /// Feeds more message bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let engine = self.engine
        var state = self.state
        buffer.update(bytes) { SHA256.compress(engine, &state, $0, count: $1) }
        self.state = state
    }

    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    public mutating func update(_ string: String) {
        var s = string
        s.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Pads, compresses the last block(s) and returns the digest. The hash can't be updated afterwards.
    public consuming func finalize() -> SHA256Digest {
        let engine = self.engine
        var state = self.state
        buffer.finish(lengthBytes: 8, empty: SHA256.emptyBlock) { SHA256.compress(engine, &state, $0, count: $1) }
        return SHA256Digest(state: state)
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: UnsafeRawBufferPointer, engine: Engine = .preferred) -> SHA256Digest {
        var h = SHA256(engine: engine)
        h.update(bytes)
        return h.finalize()
    }

    public static func hash(_ bytes: [UInt8], engine: Engine = .preferred) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0, engine: engine) }
    }

    public static func hash(_ string: String, engine: Engine = .preferred) -> SHA256Digest {
        var s = string
        return s.withUTF8 { hash(UnsafeRawBufferPointer($0), engine: engine) }
    }
}

extension SHA256 {
    /// The digest as 64 lowercase hex digits.
    public consuming func finalizeHex() -> String { finalize().hex }

    /// The hex digest of a string's UTF-8 bytes.
    public static func hex(_ string: String) -> String { hash(string).hex }

    /// The hex digest of bytes.
    public static func hex(_ bytes: [UInt8]) -> String { hash(bytes).hex }
}

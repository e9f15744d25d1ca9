// Protocol v0.3 of the ball machine: 10-byte commands, 5-byte replies, and their check byte.
//   command: 5A A5 83 UW LW PITCH YAW FEED CTRL CK
//   reply:   5A A5 82 CODE CK

import Glibc

/// How the last byte of a frame is computed from the bytes before it.
public enum Checksum: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// XOR of the preceding bytes (the protocol document).
    case xor
    /// Low byte of CRC-16/Modbus (init 0xFFFF, reflected polynomial 0xA001), the later firmware.
    case modbus

    public init(parsing text: String) throws(FrameError) {
        guard let c = Checksum(rawValue: text.lowercased()) else { throw .unknownChecksum(text) }
        self = c
    }

    public func compute(_ bytes: some Sequence<UInt8>) -> UInt8 {
        switch self {
        case .xor:
            return bytes.reduce(0, ^)
        case .modbus:
            var crc: UInt16 = 0xFFFF
            for b in bytes { crc = (crc >> 8) ^ Checksum.crcTable[Int(UInt8(truncatingIfNeeded: crc) ^ b)] }
            return UInt8(truncatingIfNeeded: crc)
        }
    }

    /// The check byte of `bytes[0..<count]` (the hot path of encode and decode: no generics, no copies).
    @inline(__always)
    func compute(_ bytes: UnsafeRawBufferPointer, count: Int) -> UInt8 {
        switch self {
        case .xor:
            var x: UInt8 = 0
            for i in 0..<count { x ^= bytes[i] }
            return x
        case .modbus:
            return Checksum.crcTable.withUnsafeBufferPointer { table in
                var crc: UInt16 = 0xFFFF
                for i in 0..<count { crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ bytes[i])] }
                return UInt8(truncatingIfNeeded: crc)
            }
        }
    }

    public var description: String { rawValue }

    /// CRC-16/Modbus register after the command header `5A A5 83` (tested against the table).
    static let modbusStateAfterCommandHeader: UInt16 = 0x226B

    /// The command fast path's constants in one value (one lazy-initialization check per use).
    struct CommandCRC: Sendable {
        /// Low byte of the CRC of `5A A5 83` followed by six zero bytes.
        let constant: UInt8
        /// For body position k (bytes 3…8 of a command) and byte value b, entry `256·k + b` is the low
        /// byte of the CRC contribution of b at that position (register starting at zero, zeros elsewhere).
        let tables: [UInt8]
    }

    static let commandCRC: CommandCRC = {
        func run(_ start: UInt16, _ body: [UInt8]) -> UInt8 {
            var crc = start
            for b in body { crc = (crc >> 8) ^ crcTable[Int(UInt8(truncatingIfNeeded: crc) ^ b)] }
            return UInt8(truncatingIfNeeded: crc)
        }
        let tables = (0..<6).flatMap { k in
            (0..<256).map { b in run(0, (0..<6).map { $0 == k ? UInt8(b) : 0 }) }
        }
        return CommandCRC(constant: run(modbusStateAfterCommandHeader, [0, 0, 0, 0, 0, 0]), tables: tables)
    }()

    /// CRC-16/Modbus byte table (reflected polynomial 0xA001).
    static let crcTable: [UInt16] = (0..<256).map { n in
        var c = UInt16(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xA001 : c >> 1 }
        return c
    }
}

/// A frame's bytes without a heap allocation (10 for a command, 5 for a reply).
public struct FrameBytes: Sendable, Equatable, RandomAccessCollection, CustomStringConvertible {
    private var storage: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)
    public let count: Int

    init(count: Int) {
        storage = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        self.count = count
    }

    init(bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8), count: Int) {
        storage = bytes
        self.count = count
    }

    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count <= 10 else { return nil }
        self.init(count: bytes.count)
        for (i, b) in bytes.enumerated() { self[i] = b }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(i: Int) -> UInt8 {
        get {
            precondition(i >= 0 && i < count, "frame byte index out of range")
            return withUnsafeBytes(of: storage) { $0[i] }
        }
        set {
            precondition(i >= 0 && i < count, "frame byte index out of range")
            withUnsafeMutableBytes(of: &storage) { $0[i] = newValue }
        }
    }

    /// The check byte the first `count - 1` bytes call for.
    @inline(__always)
    func expectedCheckByte(_ checksum: Checksum) -> UInt8 {
        withUnsafeBytes(of: storage) { bytes in
            // A command's CRC starts from the constant state after its fixed header 5A A5 83.
            if checksum == .modbus, count == CommandFrame.length, bytes[0] == 0x5A, bytes[1] == 0xA5, bytes[2] == CommandFrame.type {
                // CRC is linear over GF(2): the check byte is a constant XOR one lookup per body byte,
                // six independent loads instead of a six-step dependency chain.
                let crc = Checksum.commandCRC
                return crc.tables.withUnsafeBufferPointer { t in
                    crc.constant ^ t[Int(bytes[3])] ^ t[256 + Int(bytes[4])] ^ t[512 + Int(bytes[5])]
                        ^ t[768 + Int(bytes[6])] ^ t[1024 + Int(bytes[7])] ^ t[1280 + Int(bytes[8])]
                }
            }
            return checksum.compute(bytes, count: count - 1)
        }
    }

    public var array: [UInt8] { Array(self) }
    /// Uppercase hex, bytes separated by spaces (`5A A5 83 …`).
    public var hex: String { Format.hex(self) }
    public var description: String { hex }

    public static func == (a: FrameBytes, b: FrameBytes) -> Bool { a.count == b.count && a.elementsEqual(b) }
}

/// A machine command: one setting and start (CTRL 1) or stop (CTRL 0).
public struct CommandFrame: Sendable, Equatable, Codable {
    public static let length = 10
    public static let type: UInt8 = 0x83

    public var settings: MachineSettings
    public var start: Bool

    public init(settings: MachineSettings, start: Bool = true) {
        self.settings = settings
        self.start = start
    }

    /// All fields zero, CTRL 0: what a session sends when it ends.
    public static let stop = CommandFrame(settings: .stop, start: false)

    /// The 10 bytes with the check byte. Fields were range-checked when `settings` was made.
    public func encode(checksum: Checksum) -> FrameBytes {
        var f = FrameBytes(bytes: (0x5A, 0xA5, CommandFrame.type, settings.upperWheel, settings.lowerWheel, settings.pitch,
                                   settings.yaw, settings.feed, start ? 1 : 0, 0), count: 10)
        f[9] = f.expectedCheckByte(checksum)
        return f
    }

    /// Decodes and validates a command frame: length, header, type, check byte, field ranges.
    public static func decode(_ bytes: some Collection<UInt8>, checksum: Checksum) throws(FrameError) -> CommandFrame {
        guard bytes.count == length, let b = FrameBytes(bytes) else { throw .badLength(bytes.count, expected: "a command is 10 bytes") }
        return try decode(b, checksum: checksum)
    }

    /// Decodes a command from its bytes (no allocation).
    public static func decode(_ b: FrameBytes, checksum: Checksum) throws(FrameError) -> CommandFrame {
        guard b.count == length else { throw .badLength(b.count, expected: "a command is 10 bytes") }
        try FrameError.checkHeader(b, type: type)
        let expected = b.expectedCheckByte(checksum)
        guard b[9] == expected else { throw .badCheckByte(found: b[9], expected: expected, checksum: checksum) }
        return try fields(b)
    }

    @inline(__always)
    static func fields(_ b: FrameBytes) throws(FrameError) -> CommandFrame {
        let upper = b[3], lower = b[4], pitch = b[5], yaw = b[6], feed = b[7], control = b[8]
        // Compare first; build the names and ranges only for the message.
        if upper > 100 || lower > 100 || pitch > 90 || yaw > 90 || feed > 100 {
            let names = ["upper wheel", "lower wheel", "pitch", "yaw", "feed"]
            let ranges = [MachineSettings.percentRange, MachineSettings.percentRange, MachineSettings.angleRange,
                          MachineSettings.angleRange, MachineSettings.percentRange]
            for k in 0..<5 where !ranges[k].contains(Int(b[3 + k])) {
                throw .fieldOutOfRange(field: names[k], value: Int(b[3 + k]), range: ranges[k])
            }
        }
        guard control <= 1 else { throw .badControl(control) }
        return CommandFrame(settings: MachineSettings(unchecked: upper, lower, pitch, yaw, feed), start: control == 1)
    }
}

/// What the machine answers.
public enum ReplyCode: UInt8, Sendable, Codable, CustomStringConvertible {
    case rejected = 0, accepted = 1, completed = 2

    /// Encoded by name ("accepted"), which reads better in logs than the byte.
    public init(from decoder: any Decoder) throws {
        let name = try String(from: decoder)
        guard let code = [ReplyCode.rejected, .accepted, .completed].first(where: { $0.description == name }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown reply code \(name)"))
        }
        self = code
    }

    public func encode(to encoder: any Encoder) throws { try description.encode(to: encoder) }

    public var description: String {
        switch self {
        case .rejected: return "rejected"
        case .accepted: return "accepted"
        case .completed: return "completed"
        }
    }
}

/// A 5-byte reply frame.
public struct ReplyFrame: Sendable, Equatable, Codable {
    public static let length = 5
    public static let type: UInt8 = 0x82

    public var code: ReplyCode

    public init(code: ReplyCode) { self.code = code }

    public func encode(checksum: Checksum) -> FrameBytes {
        var f = FrameBytes(count: 5)
        f[0] = 0x5A; f[1] = 0xA5; f[2] = ReplyFrame.type; f[3] = code.rawValue
        f[4] = f.expectedCheckByte(checksum)
        return f
    }

    /// Decodes and validates a reply; a bad header or check byte is refused, never trusted.
    public static func decode(_ bytes: some Collection<UInt8>, checksum: Checksum) throws(FrameError) -> ReplyFrame {
        guard bytes.count == length, let b = FrameBytes(bytes) else { throw .badLength(bytes.count, expected: "a reply is 5 bytes") }
        try FrameError.checkHeader(b, type: type)
        let expected = b.expectedCheckByte(checksum)
        guard b[4] == expected else { throw .badCheckByte(found: b[4], expected: expected, checksum: checksum) }
        guard let code = ReplyCode(rawValue: b[3]) else { throw .badReplyCode(b[3]) }
        return ReplyFrame(code: code)
    }
}

/// A frame of either kind, as `tennis decode` reports it.
public enum DecodedFrame: Sendable, Equatable {
    case command(CommandFrame)
    case reply(ReplyFrame)
}

/// Decoding frames written as hex text.
public enum FrameText {
    /// Parses hex bytes: pairs of hex digits, optionally separated by spaces, ':' or '-', with an
    /// optional `0x` before each byte or the whole string.
    public static func bytes(fromHex text: String) throws(FrameError) -> [UInt8] {
        var out: [UInt8] = []
        var pending: UInt8? = nil
        var pendingColumn = 0
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            let column = i + 1
            if c == " " || c == ":" || c == "-" || c == "\t" || c == "," {
                if pending != nil { throw .badHex("a lone hex digit at column \(pendingColumn); write each byte as two digits") }
                i += 1
                continue
            }
            if pending == nil, c == "0", i + 1 < scalars.count, scalars[i + 1] == "x" || scalars[i + 1] == "X" {
                i += 2
                continue
            }
            guard let v = hexValue(c) else { throw .badHex("'\(c)' at column \(column) is not a hex digit") }
            if let high = pending {
                out.append(high << 4 | v)
                pending = nil
            } else {
                pending = v
                pendingColumn = column
            }
            i += 1
        }
        if pending != nil { throw .badHex("a lone hex digit at column \(pendingColumn); write each byte as two digits") }
        guard !out.isEmpty else { throw .badHex("no bytes given") }
        return out
    }

    private static func hexValue(_ c: Unicode.Scalar) -> UInt8? {
        switch c.value {
        case 0x30...0x39: return UInt8(c.value - 0x30)
        case 0x41...0x46: return UInt8(c.value - 0x41 + 10)
        case 0x61...0x66: return UInt8(c.value - 0x61 + 10)
        default: return nil
        }
    }

    /// Decodes a command (10 bytes) or a reply (5 bytes). With `checksum` nil, the check byte may be
    /// either kind and the one that matches is returned (XOR first when both match).
    public static func decode(_ bytes: [UInt8], checksum: Checksum?) throws(FrameError) -> (frame: DecodedFrame, checksum: Checksum) {
        guard bytes.count == CommandFrame.length || bytes.count == ReplyFrame.length, let frame = FrameBytes(bytes) else {
            throw .badLength(bytes.count, expected: "a command is 10 bytes and a reply 5")
        }
        let type = bytes.count == CommandFrame.length ? CommandFrame.type : ReplyFrame.type
        try FrameError.checkHeader(frame, type: type)
        let body = bytes.dropLast()
        let found = bytes[bytes.count - 1]
        let chosen: Checksum
        if let checksum {
            let expected = checksum.compute(body)
            guard found == expected else { throw .badCheckByte(found: found, expected: expected, checksum: checksum) }
            chosen = checksum
        } else if found == Checksum.xor.compute(body) {
            chosen = .xor
        } else if found == Checksum.modbus.compute(body) {
            chosen = .modbus
        } else {
            throw .badCheckByteEither(found: found, xor: Checksum.xor.compute(body), modbus: Checksum.modbus.compute(body))
        }
        if bytes.count == CommandFrame.length {
            return (.command(try CommandFrame.fields(frame)), chosen)
        }
        guard let code = ReplyCode(rawValue: bytes[3]) else { throw .badReplyCode(bytes[3]) }
        return (.reply(ReplyFrame(code: code)), chosen)
    }

    public static func decode(hex: String, checksum: Checksum?) throws(FrameError) -> (frame: DecodedFrame, checksum: Checksum) {
        try decode(try bytes(fromHex: hex), checksum: checksum)
    }
}

public enum FrameError: Error, Sendable, Equatable, CustomStringConvertible {
    case badHex(String)
    case badLength(Int, expected: String)
    case badHeader(UInt8, UInt8)
    case unknownType(UInt8, expected: UInt8)
    case badCheckByte(found: UInt8, expected: UInt8, checksum: Checksum)
    case badCheckByteEither(found: UInt8, xor: UInt8, modbus: UInt8)
    case fieldOutOfRange(field: String, value: Int, range: ClosedRange<Int>)
    case badControl(UInt8)
    case badReplyCode(UInt8)
    case unknownChecksum(String)

    @inline(__always)
    static func checkHeader(_ b: FrameBytes, type: UInt8) throws(FrameError) {
        guard b[0] == 0x5A, b[1] == 0xA5 else { throw .badHeader(b[0], b[1]) }
        guard b[2] == type else { throw .unknownType(b[2], expected: type) }
    }

    public var description: String {
        let h = Format.hexByte
        switch self {
        case .badHex(let why):
            return "not hex bytes: \(why)"
        case .badLength(let n, let expected):
            return "frame has \(n) bytes; \(expected)"
        case .badHeader(let a, let b):
            return "frame header is \(h(a)) \(h(b)), expected 5A A5; not a protocol v0.3 frame"
        case .unknownType(let t, let expected):
            return "frame type byte is \(h(t)), expected \(h(expected)) (83 command, 82 reply)"
        case .badCheckByte(let found, let expected, let checksum):
            return "check byte \(h(found)) is wrong: \(checksum.rawValue) gives \(h(expected)); the frame is corrupt or the device uses the other checksum"
        case .badCheckByteEither(let found, let xor, let modbus):
            return "check byte \(h(found)) matches neither checksum (xor gives \(h(xor)), modbus gives \(h(modbus))); the frame is corrupt"
        case .fieldOutOfRange(let field, let value, let range):
            return "\(field) \(value) is out of range \(range.lowerBound)–\(range.upperBound)"
        case .badControl(let c):
            return "control byte \(h(c)) is neither 00 (stop) nor 01 (start)"
        case .badReplyCode(let c):
            return "reply code \(h(c)) is not 00 (rejected), 01 (accepted) or 02 (completed)"
        case .unknownChecksum(let text):
            return "checksum \"\(text)\" is not xor or modbus"
        }
    }

}

// Fuzzes protocol v0.3 decoding in the tennis plugin: the hex text reader (FrameText), the
// either-checksum decoder, and the byte-level CommandFrame/ReplyFrame decoders. Properties:
// a decoded command re-encodes to the same bytes; the hex path and the byte path agree.

import TennisCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrame(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))

    // Hex text, as `tennis decode HEX` gets it.
    let text = String(decoding: bytes, as: UTF8.self)
    for checksum in [nil, Checksum.xor, .modbus] {
        do {
            let decoded = try FrameText.decode(hex: text, checksum: checksum)
            let raw = try FrameText.bytes(fromHex: text)
            check(try FrameText.decode(raw, checksum: checksum).frame == decoded.frame, "hex and byte paths disagree")
            verify(decoded.frame, raw, decoded.checksum)
        } catch {
            _ = error.description
        }
    }

    // Raw bytes, as a device answers (any length) and as the decoders see them.
    for checksum in [Checksum.xor, .modbus] {
        if let command = try? CommandFrame.decode(bytes, checksum: checksum) {
            check(command.encode(checksum: checksum).array == bytes, "command does not re-encode to its bytes")
        }
        if let reply = try? ReplyFrame.decode(bytes, checksum: checksum) {
            check(reply.encode(checksum: checksum).array == bytes, "reply does not re-encode to its bytes")
        }
        if let frame = FrameBytes(bytes) {
            if let command = try? CommandFrame.decode(frame, checksum: checksum) {
                check(command.encode(checksum: checksum) == frame, "command (FrameBytes) does not re-encode")
            }
        }
        _ = checksum.compute(bytes)
    }
    if let decoded = try? FrameText.decode(bytes, checksum: nil) { verify(decoded.frame, bytes, decoded.checksum) }
    return 0
}

func verify(_ frame: DecodedFrame, _ raw: [UInt8], _ checksum: Checksum) {
    switch frame {
    case .command(let c): check(c.encode(checksum: checksum).array == raw, "decoded command re-encodes differently")
    case .reply(let r): check(r.encode(checksum: checksum).array == raw, "decoded reply re-encodes differently")
    }
}

func check(_ condition: @autoclosure () throws -> Bool, _ message: String) {
    guard (try? condition()) == true else { fatalError("fuzz-frame: \(message)") }
}

// Fuzzes the ball-machine simulator's machine (TennisCore's MachineSimulation.receive): the first
// bytes choose the options and how the stream is cut into reads, the rest is the stream.
// Properties: every byte is accounted for (garbage + 10 per command + what is still pending
// is the total), every reply is a valid 5-byte reply, accepted commands get accepted+completed.

import TennisCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBallMachine(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard input.count >= 2 else { return 0 }
    let options = SimulationOptions(checksum: input[0] & 1 == 0 ? .xor : .modbus,
                                    rejectRate: Double(input[0] >> 1) / 127, latencyMilliseconds: 0,
                                    seed: UInt64(input[1]))
    let chunk = Int(input[1] % 17) + 1
    let stream = Array(input[2...])
    var machine = MachineSimulation(options: options)
    var consumed = 0
    var start = 0
    while start < stream.count {
        let end = min(stream.count, start + chunk)
        for (event, replies) in machine.receive(Array(stream[start..<end])) {
            switch event {
            case .garbage(let count):
                check(count > 0 && replies.isEmpty, "garbage event with \(count) bytes and \(replies.count) replies")
                consumed += count
            case .command(let fields, let accepted, let reason):
                consumed += 10
                check(fields.count == 6, "command with \(fields.count) fields")
                check(accepted == (reason == nil), "accepted=\(accepted) but reason=\(reason ?? "nil")")
                check(replies.count == (accepted ? 2 : 1), "\(replies.count) replies for accepted=\(accepted)")
                for reply in replies {
                    check(reply.count == 5 && reply[0] == 0x5A && reply[1] == 0xA5 && reply[2] == 0x82, "bad reply \(reply)")
                    check(reply[4] == options.checksum.compute(reply[0..<4]), "reply check byte")
                }
            }
        }
        start = end
    }
    check(consumed <= stream.count && stream.count - consumed < 10, "consumed \(consumed) of \(stream.count) bytes")
    return 0
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-ballmachine: \(message())") }
}

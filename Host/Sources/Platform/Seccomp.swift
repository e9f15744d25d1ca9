// seccomp: a BPF filter the kernel runs on every system call of the process (all its threads, and
// every child, for good). The sandboxed runner installs one as the last step of its confinement,
// before it loads its plugin. The filter is an allow list (SeccompPolicy.swift: every allowed call
// with its reason and the arguments it may take); any other call fails with EPERM — the plugin
// sees an error, nothing is killed — except a foreign architecture or the x32 ABI, which kill.
//
// The program: check the architecture, refuse x32's numbers, then a binary search over the call
// number (jge on range bounds, `ja` to reach far branches: a conditional jump reaches only 255
// instructions), whose leaves return at once or jump to the argument checks of that call. The
// kernel's action cache recognizes calls allowed whatever their arguments and skips the program
// for them, so `read`, `write`, `poll` and `futex` cost nothing after the first time.

#if canImport(Glibc)
import Glibc
#endif

public enum Seccomp {
    #if arch(x86_64)
    static let architecture: UInt32 = 0xC000_003E  // AUDIT_ARCH_X86_64
    public static let isSupported = true
    #else
    static let architecture: UInt32 = 0
    public static let isSupported = false
    #endif

    // linux/filter.h, linux/seccomp.h
    static let loadWord: UInt16 = 0x20       // BPF_LD | BPF_W | BPF_ABS
    static let jumpAlways: UInt16 = 0x05     // BPF_JMP | BPF_JA
    static let jumpEqual: UInt16 = 0x15      // BPF_JMP | BPF_JEQ | BPF_K
    static let jumpGreaterEqual: UInt16 = 0x35
    static let jumpSet: UInt16 = 0x45
    static let andConstant: UInt16 = 0x54    // BPF_ALU | BPF_AND | BPF_K
    static let returnConstant: UInt16 = 0x06 // BPF_RET | BPF_K
    static let allow: UInt32 = 0x7FFF_0000
    static let killProcess: UInt32 = 0x8000_0000
    static func error(_ code: Int32) -> UInt32 { 0x0005_0000 | UInt32(code) }

    /// The filter as BPF instructions (code, jt, jf, k), 8 bytes each.
    static func program(allowTCP: Bool, refuseTruncate: Bool, processID: Int32 = getpid()) -> [UInt8] {
        program(SeccompPolicy.rules(processID: processID, allowTCP: allowTCP, refuseTruncate: refuseTruncate))
    }

    /// What a leaf of the search does with a range of call numbers.
    private enum Leaf: Equatable {
        case allow, refuse, absent
        case check(Int) // the argument check of rule n
    }

    static func program(_ rules: [SeccompPolicy.Rule]) -> [UInt8] {
        var assembler = Assembler()
        assembler.op(loadWord, 4)                          // seccomp_data.arch
        assembler.jump(jumpEqual, architecture, skipOnTrue: 1, skipOnFalse: 0)
        assembler.op(returnConstant, killProcess)
        assembler.op(loadWord, 0)                          // seccomp_data.nr
        assembler.jump(jumpGreaterEqual, 0x4000_0000, skipOnTrue: 0, skipOnFalse: 1) // the x32 ABI's numbers
        assembler.op(returnConstant, error(EPERM))

        // One leaf per call number up to the highest listed; the ranges of equal leaves merge (a
        // check never merges: it is one call's), and the last range, refused, runs to the end.
        var byNumber: [UInt32: Leaf] = [:]
        for (index, rule) in rules.enumerated() {
            precondition(byNumber[rule.number] == nil, "seccomp policy lists \(rule.name) twice")
            switch rule.decision {
            case .allow: byNumber[rule.number] = .allow
            case .refuse: byNumber[rule.number] = .refuse
            case .absent: byNumber[rule.number] = .absent
            case .when: byNumber[rule.number] = .check(index)
            }
        }
        var merged: [(low: UInt32, leaf: Leaf)] = []
        for number in 0...((byNumber.keys.max() ?? 0) + 1) {
            let leaf = byNumber[number] ?? .refuse
            if merged.last?.leaf != leaf { merged.append((number, leaf)) }
        }

        func search(_ slice: ArraySlice<(low: UInt32, leaf: Leaf)>) {
            if slice.count == 1, let only = slice.first {
                switch only.leaf {
                case .allow: assembler.op(returnConstant, allow)
                case .refuse: assembler.op(returnConstant, error(EPERM))
                case .absent: assembler.op(returnConstant, error(ENOSYS))
                case .check(let index): assembler.always("check\(index)")
                }
                return
            }
            let middle = slice.startIndex + slice.count / 2
            let right = "range\(slice[middle].low)"
            // nr ≥ the middle range's low bound: the right half (reached by a long jump); else the left.
            assembler.jump(jumpGreaterEqual, slice[middle].low, skipOnTrue: 0, skipOnFalse: 1)
            assembler.always(right)
            search(slice[slice.startIndex..<middle])
            assembler.label(right)
            search(slice[middle...])
        }
        search(merged[...])

        for (index, rule) in rules.enumerated() {
            guard case .when(let condition) = rule.decision else { continue }
            assembler.label("check\(index)")
            assembler.condition(condition, onTrue: "allow\(index)", onFalse: "deny\(index)", scope: "c\(index)")
            assembler.label("allow\(index)")
            assembler.op(returnConstant, allow)
            assembler.label("deny\(index)")
            assembler.op(returnConstant, error(EPERM))
        }
        return assembler.bytes()
    }

    /// A BPF assembler with labels: conditional jumps reach 255 instructions ahead, `ja` any distance.
    private struct Assembler {
        private struct Instruction {
            var code: UInt16
            var k: UInt32
            var onTrue: String?
            var onFalse: String?
            var skipTrue: UInt8 = 0
            var skipFalse: UInt8 = 0
            var always: String?
        }
        private var code: [Instruction] = []
        private var labels: [String: Int] = [:]

        mutating func op(_ c: UInt16, _ k: UInt32) { code.append(Instruction(code: c, k: k)) }
        mutating func label(_ name: String) {
            precondition(labels[name] == nil, "seccomp label \(name) twice")
            labels[name] = code.count
        }
        /// A conditional jump; nil falls through to the next instruction.
        mutating func jump(_ c: UInt16, _ k: UInt32, onTrue: String?, onFalse: String?) {
            code.append(Instruction(code: c, k: k, onTrue: onTrue, onFalse: onFalse))
        }
        /// A conditional jump over a fixed number of instructions either way.
        mutating func jump(_ c: UInt16, _ k: UInt32, skipOnTrue: UInt8, skipOnFalse: UInt8) {
            code.append(Instruction(code: c, k: k, onTrue: nil, onFalse: nil, skipTrue: skipOnTrue, skipFalse: skipOnFalse))
        }
        mutating func always(_ target: String) { code.append(Instruction(code: jumpAlways, k: 0, always: target)) }

        func argument(_ index: Int, high: Bool = false) -> UInt32 { UInt32(16 + 8 * index + (high ? 4 : 0)) } // little-endian halves

        /// Code for `condition` that jumps to `onTrue` or `onFalse` (labels after it, within reach).
        mutating func condition(_ condition: SeccompPolicy.Condition, onTrue: String, onFalse: String, scope: String) {
            switch condition {
            case .oneOf(let index, let values, let mask):
                op(loadWord, argument(index))
                if mask != 0xFFFF_FFFF { op(andConstant, mask) }
                for (i, value) in values.enumerated() {
                    jump(jumpEqual, value, onTrue: onTrue, onFalse: i == values.count - 1 ? onFalse : nil)
                }
                if values.isEmpty { always(onFalse) }
            case .clear(let index, let mask):
                op(loadWord, argument(index))
                jump(jumpSet, mask, onTrue: onFalse, onFalse: onTrue)
            case .set(let index, let mask):
                op(loadWord, argument(index))
                op(andConstant, mask)
                jump(jumpEqual, mask, onTrue: onTrue, onFalse: onFalse)
            case .null(let index):
                op(loadWord, argument(index))
                jump(jumpEqual, 0, onTrue: nil, onFalse: onFalse)
                op(loadWord, argument(index, high: true))
                jump(jumpEqual, 0, onTrue: onTrue, onFalse: onFalse)
            case .all(let conditions):
                for (i, part) in conditions.enumerated() {
                    let last = i == conditions.count - 1
                    let next = "\(scope).\(i)"
                    self.condition(part, onTrue: last ? onTrue : next, onFalse: onFalse, scope: "\(scope).\(i)s")
                    if !last { label(next) }
                }
                if conditions.isEmpty { always(onTrue) }
            case .cases(let index, let cases):
                op(loadWord, argument(index))
                for (i, item) in cases.enumerated() {
                    jump(jumpEqual, item.value, onTrue: item.condition == nil ? onTrue : "\(scope).case\(i)", onFalse: nil)
                }
                always(onFalse)
                for (i, item) in cases.enumerated() {
                    guard let inner = item.condition else { continue }
                    label("\(scope).case\(i)")
                    self.condition(inner, onTrue: onTrue, onFalse: onFalse, scope: "\(scope).case\(i)s")
                }
            }
        }

        func bytes() -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(code.count * 8)
            for (index, instruction) in code.enumerated() {
                func offset(_ target: String?) -> UInt8 {
                    guard let target else { return 0 }
                    guard let position = labels[target] else { preconditionFailure("seccomp label \(target) missing") }
                    let distance = position - (index + 1)
                    precondition(distance >= 0 && distance < 256, "seccomp jump to \(target) out of range (\(distance))")
                    return UInt8(distance)
                }
                var k = instruction.k
                if let target = instruction.always {
                    guard let position = labels[target] else { preconditionFailure("seccomp label \(target) missing") }
                    precondition(position > index, "seccomp jumps only forward")
                    k = UInt32(position - (index + 1))
                }
                withUnsafeBytes(of: instruction.code.littleEndian) { bytes += $0 }
                bytes.append(instruction.onTrue == nil ? instruction.skipTrue : offset(instruction.onTrue))
                bytes.append(instruction.onFalse == nil ? instruction.skipFalse : offset(instruction.onFalse))
                withUnsafeBytes(of: k.littleEndian) { bytes += $0 }
            }
            return bytes
        }
    }

    /// Sets no_new_privs and installs the filter on every thread of the process. Returns what
    /// failed, or nil.
    public static func install(allowTCP: Bool, refuseTruncate: Bool) -> String? {
        guard isSupported else { return "the sandbox's seccomp filter is written for x86_64 only" }
        return load(program(allowTCP: allowTCP, refuseTruncate: refuseTruncate))
    }

    /// A `process` runner's filter: the calls of SeccompPolicy.processRefusals fail with EPERM
    /// (also under the x32 ABI's numbers); every other call, and any other architecture, passes.
    static func refusingProgram(_ rules: [SeccompPolicy.Rule]) -> [UInt8] {
        var assembler = Assembler()
        assembler.op(loadWord, 4)                          // seccomp_data.arch
        assembler.jump(jumpEqual, architecture, onTrue: "native", onFalse: "allow")
        assembler.label("native")
        assembler.op(loadWord, 0)                          // seccomp_data.nr
        for rule in rules {
            assembler.jump(jumpEqual, rule.number, onTrue: "refuse", onFalse: nil)
            assembler.jump(jumpEqual, rule.number | 0x4000_0000, onTrue: "refuse", onFalse: nil)
        }
        assembler.label("allow")
        assembler.op(returnConstant, allow)
        assembler.label("refuse")
        assembler.op(returnConstant, error(EPERM))
        return assembler.bytes()
    }

    /// Sets no_new_privs and installs the `process` runner's filter (SeccompPolicy.processRefusals)
    /// on every thread. Returns what failed, or nil; nothing to do on other architectures.
    public static func installProcessRefusals() -> String? {
        guard isSupported else { return nil }
        return load(refusingProgram(SeccompPolicy.processRefusals))
    }

    /// Sets no_new_privs (seccomp needs it) and loads `filter` on every thread of the process.
    private static func load(_ filter: [UInt8]) -> String? {
        guard Kernel.prctl(38, 1) == 0 else { // PR_SET_NO_NEW_PRIVS
            return "prctl(PR_SET_NO_NEW_PRIVS): \(String(cString: strerror(errno)))"
        }
        return filter.withUnsafeBytes { instructions -> String? in
            // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
            var header = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt16(filter.count / 8).littleEndian) { header.replaceSubrange(0..<2, with: $0) }
            withUnsafeBytes(of: UInt(bitPattern: instructions.baseAddress).littleEndian) { header.replaceSubrange(8..<16, with: $0) }
            let rc = header.withUnsafeMutableBytes {
                // seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program)
                Kernel.syscall(317, 1, 1, Int(bitPattern: $0.baseAddress))
            }
            if rc == 0 { return nil }
            if rc > 0 { return "seccomp: thread \(rc) could not be synchronized" }
            return "seccomp: \(String(cString: strerror(errno)))"
        }
    }

    /// Drops every capability of the process (a runner started by root keeps uid 0 but no
    /// privilege: no CAP_DAC_OVERRIDE, CAP_KILL, CAP_NET_RAW…). Returns what failed, or nil.
    public static func dropCapabilities() -> String? {
        // capset(&{_LINUX_CAPABILITY_VERSION_3, pid 0}, &{effective, permitted, inheritable} × 2)
        var header: [UInt32] = [0x2008_0522, 0]
        var data = [UInt32](repeating: 0, count: 6)
        let rc = header.withUnsafeMutableBytes { h in
            data.withUnsafeMutableBytes { d in
                Kernel.syscall(126, Int(bitPattern: h.baseAddress), Int(bitPattern: d.baseAddress), 0)
            }
        }
        return rc == 0 ? nil : "capset: \(String(cString: strerror(errno)))"
    }
}

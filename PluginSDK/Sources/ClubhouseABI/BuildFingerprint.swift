// The build fingerprint a Swift plugin puts in its descriptor and the host compares with its own:
// a Swift plugin runs on the host's Swift runtime, so both must come from the same toolchain.

import CClubhouse

public enum BuildFingerprint {
    /// The Swift compiler that compiled this module, eg: "6.3.1".
    public static let swiftCompiler: String = {
        #if compiler(>=6.5)
        return "6.5+"
        #elseif compiler(>=6.4.1)
        return "6.4.1"
        #elseif compiler(>=6.4)
        return "6.4"
        #elseif compiler(>=6.3.2)
        return "6.3.2"
        #elseif compiler(>=6.3.1)
        return "6.3.1"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2.3)
        return "6.2.3"
        #elseif compiler(>=6.2.1)
        return "6.2.1"
        #elseif compiler(>=6.2)
        return "6.2"
        #elseif compiler(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }()

    /// The target triple, eg: "x86_64-unknown-linux-gnu".
    public static let target: String = {
        #if arch(x86_64)
        let arch = "x86_64"
        #elseif arch(arm64)
        let arch = "aarch64"
        #else
        let arch = "unknown"
        #endif
        #if os(Linux)
        return arch + "-unknown-linux-gnu"
        #else
        return arch + "-unknown-unknown"
        #endif
    }()

    /// The ABI this module was compiled against, eg: "1.2".
    public static let abi = "\(CLUBHOUSE_ABI_MAJOR).\(CLUBHOUSE_ABI_MINOR)"

    /// The fingerprint of a Swift component built here, eg:
    /// "abi=1.2;lang=swift;swift=6.3.1;target=x86_64-unknown-linux-gnu".
    public static let swift = "abi=\(abi);lang=swift;swift=\(swiftCompiler);target=\(target)"

    /// Parses `key=value;key=value` into a dictionary (unknown keys kept, malformed parts skipped).
    public static func parse(_ fingerprint: String) -> [String: String] {
        var fields: [String: String] = [:]
        for part in fingerprint.split(separator: ";") {
            guard let eq = part.firstIndex(of: "=") else { continue }
            let key = part[..<eq].trimmingSpaces()
            let value = part[part.index(after: eq)...].trimmingSpaces()
            if !key.isEmpty { fields[key] = value }
        }
        return fields
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}

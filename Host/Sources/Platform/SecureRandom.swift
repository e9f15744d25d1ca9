// Random bytes for secrets (device tokens, browser sessions, pairing codes): the kernel's
// getrandom(2), reached through glibc (Swift's Glibc module does not import <sys/random.h>),
// else /dev/urandom opened close-on-exec. Never a seeded generator.

#if canImport(Glibc)
import Glibc
#endif

public enum SecureRandom {
    private typealias GetRandom = @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int

    nonisolated(unsafe) private static let getrandomFunction: GetRandom? =
        dlsym(dlopen(nil, RTLD_NOW), "getrandom").map { unsafeBitCast($0, to: GetRandom.self) }

    /// `count` bytes from the kernel's CSPRNG; the reason when neither source answers.
    public static func bytes(_ count: Int) -> Result<[UInt8], RandomError> {
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return .success(out) }
        if let getrandom = getrandomFunction {
            var filled = 0
            var failed = false
            while filled < count {
                let n = out.withUnsafeMutableBytes { getrandom($0.baseAddress! + filled, count - filled, 0) }
                if n > 0 { filled += n; continue }
                if n < 0 && errno == EINTR { continue }
                failed = true
                break
            }
            if !failed { return .success(out) }
        }
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(RandomError(reason: "getrandom failed and /dev/urandom cannot be opened: \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var filled = 0
        while filled < count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
            if n > 0 { filled += n; continue }
            if n < 0 && errno == EINTR { continue }
            return .failure(RandomError(reason: "/dev/urandom: \(n == 0 ? "end of file" : String(cString: strerror(errno)))"))
        }
        return .success(out)
    }

    public struct RandomError: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "no random bytes: \(reason)" }
    }
}

// accept4(2) and pipe2(2), which Glibc's Swift module leaves out (they are _GNU_SOURCE): looked up once
// with dlsym, so a descriptor is close-on-exec (and non-blocking) from the moment it exists — no window in
// which a fork elsewhere in the process inherits it.

#if canImport(Glibc)
import Glibc

public enum SocketCalls {
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32

    nonisolated(unsafe) private static let library = dlopen(nil, RTLD_NOW)
    nonisolated(unsafe) private static let accept4Function: Accept4? = dlsym(library, "accept4").map { unsafeBitCast($0, to: Accept4.self) }
    nonisolated(unsafe) private static let pipe2Function: Pipe2? = dlsym(library, "pipe2").map { unsafeBitCast($0, to: Pipe2.self) }

    /// accept4(listener, …, SOCK_CLOEXEC | SOCK_NONBLOCK): the client and its address (when `address` is
    /// given). -1 with errno set on failure.
    public static func acceptNonBlocking(_ listener: Int32, address: UnsafeMutablePointer<sockaddr_storage>? = nil) -> Int32 {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard let call = accept4Function else {
            errno = ENOSYS
            return -1
        }
        guard let address else { return call(listener, nil, nil, flags) }
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return address.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(listener, $0, &length, flags) }
    }

    /// pipe2(ends, O_CLOEXEC | extra): 0, or -1 with errno set.
    public static func pipe(_ ends: inout [Int32], flags extra: Int32 = 0) -> Int32 {
        guard let call = pipe2Function else {
            errno = ENOSYS
            return -1
        }
        if ends.count < 2 { ends = [-1, -1] }
        return ends.withUnsafeMutableBufferPointer { call($0.baseAddress, O_CLOEXEC | extra) }
    }
}
#endif

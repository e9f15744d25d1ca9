// Passing open file descriptors over a Unix socket (SCM_RIGHTS), for the files service: the host
// opens a path argument and the runner receives the descriptor with the reply that names it.
// The control-message layout is written out by hand (the CMSG_* macros do not reach Swift):
// struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; } then the data, 8-aligned.

#if canImport(Glibc)
import Glibc
#endif

extension Descriptor {
    private static let headerSize = MemoryLayout<Int>.size + 8
    private static let socketLevel: Int32 = 1 // SOL_SOCKET
    private static let rightsType: Int32 = 1  // SCM_RIGHTS

    /// A connected pair of Unix stream sockets, both close-on-exec.
    public static func socketPair() -> (Int32, Int32)? {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { return nil }
        return (fds[0], fds[1])
    }

    /// Writes every byte of `bytes` to socket `fd`, the first piece carrying `passing` as SCM_RIGHTS,
    /// waiting `timeoutMilliseconds` in all while the socket is full (-1 = forever). Returns nil, or
    /// what went wrong (`writeTimedOut` when the time ran out).
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], passing descriptor: Int32, timeoutMilliseconds: Int32 = -1) -> String? {
        let deadline = timeoutMilliseconds < 0 ? Int64.max : Subprocess.monotonicMilliseconds() + Int64(timeoutMilliseconds)
        let space = headerSize + 8
        let control = UnsafeMutableRawPointer.allocate(byteCount: space, alignment: 8)
        defer { control.deallocate() }
        control.initializeMemory(as: UInt8.self, repeating: 0, count: space)
        control.storeBytes(of: headerSize + 4, as: Int.self)
        control.storeBytes(of: socketLevel, toByteOffset: MemoryLayout<Int>.size, as: Int32.self)
        control.storeBytes(of: rightsType, toByteOffset: MemoryLayout<Int>.size + 4, as: Int32.self)
        control.storeBytes(of: descriptor, toByteOffset: headerSize, as: Int32.self)
        var sent = 0
        while true {
            let n: Int = bytes.withUnsafeBytes { raw in
                var vector = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress), iov_len: raw.count)
                return withUnsafeMutablePointer(to: &vector) { v in
                    var message = msghdr(msg_name: nil, msg_namelen: 0, msg_iov: v, msg_iovlen: 1,
                                         msg_control: control, msg_controllen: space, msg_flags: 0)
                    return sendmsg(fd, &message, Int32(MSG_NOSIGNAL) | (timeoutMilliseconds < 0 ? 0 : Int32(MSG_DONTWAIT)))
                }
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && timeoutMilliseconds >= 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard waitWritable(fd, until: deadline) else { return writeTimedOut }
                continue
            }
            if n < 0 { return String(cString: strerror(errno)) }
            sent = n
            break
        }
        if sent >= bytes.count { return nil }
        let left = deadline == Int64.max ? Int32(-1) : Int32(clamping: max(0, deadline - Subprocess.monotonicMilliseconds()))
        return bytes.withUnsafeBytes { raw in writeAll(fd, UnsafeRawBufferPointer(rebasing: raw[sent...]), timeoutMilliseconds: left) }
    }

    /// The room `read(_:into:descriptors:control:)` needs for control messages (8-aligned).
    public static let controlSpace = 256

    /// One read from socket `fd` into `buffer`; descriptors that came with it (close-on-exec) are
    /// appended to `descriptors`. `control` is scratch room of `controlSpace` bytes, 8-aligned (kept
    /// by the caller: one read per frame must not allocate). Returns what read(2) would.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, descriptors: inout [Int32],
                            control: UnsafeMutableRawPointer) -> Int {
        let space = controlSpace
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        var length = 0
        let n: Int = withUnsafeMutablePointer(to: &vector) { v in
            var message = msghdr(msg_name: nil, msg_namelen: 0, msg_iov: v, msg_iovlen: 1,
                                 msg_control: control, msg_controllen: space, msg_flags: 0)
            let n = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
            length = Int(message.msg_controllen)
            return n
        }
        guard n >= 0 else { return n }
        var offset = 0
        while offset + headerSize <= length {
            let itemLength = control.load(fromByteOffset: offset, as: Int.self)
            guard itemLength >= headerSize, offset + itemLength <= length else { break }
            let level = control.load(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = control.load(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            if level == socketLevel && type == rightsType {
                let count = (itemLength - headerSize) / 4
                for i in 0..<count {
                    descriptors.append(control.load(fromByteOffset: offset + headerSize + 4 * i, as: Int32.self))
                }
            }
            offset += (itemLength + 7) & ~7
        }
        return n
    }
}

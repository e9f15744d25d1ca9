// Files broker: "clubhouse.files/1" (services/files.h), the running call's path arguments as
// open descriptors. One implementation (`CallFiles`, Runtime/CallFiles.swift), reached two ways:
// the C table an in-process plugin gets (the descriptor number is returned as is), and the wire
// face that answers a runner's `fileOpen` service call (the descriptor travels back over the
// runner's socket with SCM_RIGHTS and the host closes its copy).

import CClubhouse
import ClubhouseABI
import ClubhouseWire
#if canImport(Glibc)
import Glibc
#endif

enum FilesBroker {
    /// The C face.
    static func makeServiceTable() -> clubhouse_files_service {
        clubhouse_files_service(
            struct_size: UInt32(MemoryLayout<clubhouse_files_service>.size),
            open_argument: { call, name, access, fd, reply in
                guard let name, let fd else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return FilesBroker.answer(FilesBroker.open(CallContext.from(call), name: String(cString: name), relative: nil,
                                                           access: access), fd, reply)
            },
            open_beneath: { call, name, relative, fd, reply in
                guard let name, let relative, let fd else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                return FilesBroker.answer(FilesBroker.open(CallContext.from(call), name: String(cString: name),
                                                           relative: String(cString: relative), access: UInt32(CLUBHOUSE_FILE_READ)),
                                          fd, reply)
            })
    }

    private static func answer(_ result: Result<Int32, FileRefusal>, _ fd: UnsafeMutablePointer<Int32>,
                               _ reply: UnsafePointer<clubhouse_reply>?) -> Int32 {
        switch result {
        case .success(let opened):
            fd.pointee = opened
            return Int32(CLUBHOUSE_OK)
        case .failure(let refusal):
            fd.pointee = -1
            reply?.write(refusal.message)
            return refusal.status.rawValue
        }
    }

    /// The one implementation both faces call.
    static func open(_ call: CallContext?, name: String, relative: String?, access: UInt32) -> Result<Int32, FileRefusal> {
        guard let call else {
            return .failure(FileRefusal(status: .invalidArgument, message: "the files service needs the running call"))
        }
        if let (status, message) = ServiceGate.refusal(.openFile, call: call) {
            return .failure(FileRefusal(status: Status(rawValue: status) ?? .cancelled, message: "\(name): \(message)"))
        }
        guard access == UInt32(CLUBHOUSE_FILE_READ) || access == UInt32(CLUBHOUSE_FILE_WRITE) else {
            return .failure(FileRefusal(status: .invalidArgument, message: "access \(access) is neither read (1) nor write (2)"))
        }
        guard let files = call.files else {
            return .failure(FileRefusal(status: .notFound, message: "this call has no path argument '\(name)' (it was given none)"))
        }
        if let relative {
            return files.open(beneath: name, relative: relative)
        }
        return files.open(argument: name, write: access == UInt32(CLUBHOUSE_FILE_WRITE))
    }

    /// The wire face: `fileOpen` (FileOpenRequest) → status, a message (MessageReply); on success
    /// the descriptor rides along with the reply. The runner's call id is not trusted: the open is
    /// for the call the runner is serving.
    static func serve(_ request: FileOpenRequest, call: CallContext) -> (Int32, [UInt8], Int32) {
        switch open(call, name: request.name, relative: request.relative, access: request.access) {
        case .success(let fd):
            return (Int32(CLUBHOUSE_OK), MessageReply(message: "").encode(), fd)
        case .failure(let refusal):
            return (refusal.status.rawValue, MessageReply(message: refusal.message).encode(), -1)
        }
    }
}

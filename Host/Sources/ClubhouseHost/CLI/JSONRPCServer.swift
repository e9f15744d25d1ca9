// `clubhouse serve`: JSON-RPC 2.0, one JSON object per line, over stdio.
// Methods: clubhouse.plugins, clubhouse.commands, clubhouse.call.

import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

enum JSONRPCServer {
    static func run(_ words: [String], session: Session) throws(CLIError) -> Int32 {
        guard words.isEmpty else {
            throw CLIError(status: .invalidArgument, message: "usage: clubhouse serve")
        }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, 65536) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending.append(contentsOf: buffer[0..<n])
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D || $0 == 0x09 }) { continue }
                if let reply = handle(line, session: session) {
                    StandardStreams.writeOutput(JSONWriter.compact(reply) + "\n")
                }
            }
        }
        return 0
    }

    static func error(_ id: JSONValue, _ code: Int, _ message: String, data: JSONValue? = nil) -> JSONValue {
        var e: JSONObject = ["code": .int(code), "message": .string(message)]
        if let data { e["data"] = data }
        return ["jsonrpc": "2.0", "id": id, "error": .object(e)]
    }

    static func handle(_ line: [UInt8], session: Session) -> JSONValue? {
        let request: JSONValue
        do {
            request = try JSONParser.parse(bytes: line)
        } catch {
            return JSONRPCServer.error(.null, -32700, "parse error: \(error)")
        }
        guard let o = request.objectValue, o["jsonrpc"]?.stringValue == "2.0", let method = o["method"]?.stringValue else {
            return JSONRPCServer.error(request["id"] ?? .null, -32600, "invalid request: need {\"jsonrpc\":\"2.0\",\"method\":…}")
        }
        let id = o["id"]
        let params = o["params"]?.objectValue ?? JSONObject()
        guard let id else {
            _ = try? dispatch(method, params, session: session)
            return nil
        }
        do {
            return ["jsonrpc": "2.0", "id": id, "result": try dispatch(method, params, session: session)]
        } catch {
            return JSONRPCServer.error(id, error.code, error.message, data: error.data)
        }
    }

    struct Failure: Error {
        var code: Int
        var message: String
        var data: JSONValue?
        init(_ code: Int, _ message: String, _ data: JSONValue? = nil) {
            self.code = code
            self.message = message
            self.data = data
        }
    }

    static func dispatch(_ method: String, _ params: JSONObject, session: Session) throws(Failure) -> JSONValue {
        switch method {
        case "clubhouse.plugins":
            var list: [JSONValue] = []
            for entry in session.site.plugins where entry.enabled {
                if case .success(let p) = session.runtime.resolve(entry.alias) {
                    list.append(["plugin": .string(entry.alias), "id": .string(p.library.info.id),
                                 "version": .string(p.library.info.version), "summary": .string(p.library.info.summary)])
                }
            }
            return .array(list)
        case "clubhouse.commands":
            guard let alias = params["plugin"]?.stringValue else { throw Failure(-32602, "params.plugin is required") }
            switch session.runtime.resolve(alias) {
            case .success(let p):
                return .array(p.catalogue.commands.map { c -> JSONValue in
                    let arguments: [JSONValue] = c.arguments.map { a -> JSONValue in
                        ["name": .string(a.name), "type": .string(a.kind.rawValue), "required": .bool(a.required)]
                    }
                    return ["name": .string(c.name), "summary": .string(c.summary), "long_running": .bool(c.longRunning),
                            "arguments": .array(arguments)]
                })
            case .failure(let e): throw Failure(-32001, e.message)
            }
        case "clubhouse.call":
            guard let alias = params["plugin"]?.stringValue, let command = params["command"]?.stringValue else {
                throw Failure(-32602, "params.plugin and params.command are required")
            }
            let plugin: ResolvedPlugin
            switch session.runtime.resolve(alias) {
            case .success(let p): plugin = p
            case .failure(let e): throw Failure(-32001, e.message)
            }
            guard let spec = plugin.catalogue.command(named: command) else {
                throw Failure(-32601, "plugin '\(alias)' has no command '\(command)'")
            }
            let arguments: JSONObject
            do {
                arguments = try ArgumentParser.validate(params["arguments"]?.objectValue ?? JSONObject(), for: spec, plugin: alias)
            } catch {
                throw Failure(-32602, error.message)
            }
            let outcome = session.runtime.call(alias: alias, command: command, arguments: arguments, flags: 1)
            if outcome.status == .ok { return outcome.data }
            throw Failure(-32000, outcome.message, ["status": .string(outcome.status.name)])
        default:
            throw Failure(-32601, "method not found: \(method)")
        }
    }
}

// Fuzzes `serve --http`'s request reading: the bytes of a connection (several pipelined requests) go
// through HTTPRequestParser.parseHead exactly as the event loop feeds it — in the chunks the input
// chooses, resuming at `scanned` — then the target's decoding, the site's route table and the binding of
// path, query and JSON body to a command's arguments. A crash, a trap, a hang, or two feeds of the same
// bytes that disagree is a bug: these bytes come from the network.

import ClubhouseFrontEnds
import ClubhouseHost
import ClubhouseJSON

/// A small site: one plugin with routes of every kind (path, query, JSON body, mount).
let table: SiteRoutes = {
    let catalogue = #"""
    {"commands": [
      {"name": "get", "summary": "s", "access": "read", "arguments": [{"name": "course", "type": "string", "required": true},
        {"name": "hole", "type": "integer"}, {"name": "at", "type": "point"}, {"name": "tags", "type": "list"}, {"name": "on", "type": "flag"}],
       "http": [{"method": "GET", "path": "/courses/{course}/holes/{hole}"}, {"method": "GET", "path": "/c/{course}", "mount": true}]},
      {"name": "put", "summary": "s", "arguments": [{"name": "course", "type": "string", "required": true}, {"name": "n", "type": "number"},
        {"name": "doc", "type": "json"}], "http": {"method": "POST", "path": "/courses/{course}"}}
    ]}
    """#
    guard case .success(let parsed) = CommandCatalog.parse(Array(catalogue.utf8), plugin: "p") else { fatalError("fuzz-http: the catalogue is invalid") }
    let config = #"{"sites": {"s": {"http": {"mount": {"p": "/"}}, "plugins": {"p": {"path": "/x"}}}}}"#
    guard let site = (try? ConfigurationParser.parse(config, source: "fuzz", baseDirectory: nil))?.sites["s"] else {
        fatalError("fuzz-http: the site is invalid")
    }
    return SiteRoutes.build(site: site) { _ in .success(parsed) }
}()

let limits: HTTPLimits = {
    var l = HTTPLimits()
    l.requestLineBytes = 512
    l.headerBytes = 2048
    l.headerCount = 20
    return l
}()

/// Reads requests off `bytes` the way the loop does, `chunk` bytes arriving at a time; the outcomes.
func serve(_ bytes: [UInt8], chunk: Int) -> [String] {
    var outcomes: [String] = []
    var start = 0
    var available = min(bytes.count, chunk)
    var scanned = 0
    while start < bytes.count && outcomes.count < 64 {
        let result = bytes[start..<available].withUnsafeBufferPointer { HTTPRequestParser.parseHead($0, scanned: scanned, limits: limits) }
        switch result {
        case .incomplete(let s):
            guard available < bytes.count else { return outcomes + ["incomplete"] }
            if s < 0 || s > available - start { fatalError("fuzz-http: scanned \(s) beyond the \(available - start) bytes given") }
            scanned = s
            available = min(bytes.count, available + chunk)
        case .refused(let refusal):
            if !(400...599).contains(refusal.status) || refusal.message.isEmpty { fatalError("fuzz-http: refusal \(refusal)") }
            return outcomes + ["refused \(refusal.status)"]
        case .complete(let head):
            if head.headBytes <= 0 || head.headBytes > available - start { fatalError("fuzz-http: a head of \(head.headBytes) bytes in \(available - start)") }
            start += head.headBytes
            scanned = 0
            var outcome = "\(head.method) \(head.target) \(head.contentLength) \(head.keepAlive)"
            switch HTTPTarget.decode(head.target) {
            case .failure(let refusal): outcome += " target \(refusal.status)"
            case .success(let target):
                let body = Array(bytes[start..<min(bytes.count, start + head.contentLength)])
                start = min(bytes.count, start + head.contentLength)
                if case .route(let route, let values) = table.match(method: head.method, segments: target.segments) {
                    let json = (try? JSONParser.parse(bytes: body))?.objectValue
                    do {
                        let arguments = try route.route.bind(pathValues: values, query: target.query, json: json, files: [:],
                                                             prefix: "/", command: route.command, plugin: "p")
                        outcome += " " + JSONWriter.compact(.object(arguments))
                    } catch {
                        if error.message.isEmpty { fatalError("fuzz-http: an empty usage error") }
                        outcome += " 400"
                    }
                } else {
                    outcome += " no route"
                }
            }
            outcomes.append(outcome)
            available = min(bytes.count, max(available, start + chunk))
        }
    }
    return outcomes
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard !bytes.isEmpty else { return 0 }
    // The first byte picks how the rest arrives; the whole at once must read the same.
    let chunk = Int(bytes[0] % 16) + 1
    let stream = Array(bytes.dropFirst())
    let whole = serve(stream, chunk: max(1, stream.count))
    let pieces = serve(stream, chunk: chunk)
    if whole != pieces { fatalError("fuzz-http: \(whole) read whole, \(pieces) in chunks of \(chunk)") }
    return 0
}

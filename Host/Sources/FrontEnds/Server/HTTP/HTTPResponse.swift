// Responses of `clubhouse serve --http`: status line, headers, body, serialized once into the bytes the
// connection writes. Every response carries X-Request-Id, Date, Content-Length (or, for a stream, none),
// `X-Content-Type-Options: nosniff` and a Content-Security-Policy; errors are one line of JSON,
// `{"error": {"status": NAME, "message": "…"}}`.

import ClubhouseABI
import ClubhousePlatform
import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

struct HTTPResponse {
    var status: Int
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// Content-Length says the body's length, but none is sent (HEAD).
    var omitBody = false
    /// The connection closes after this response.
    var close = false
    /// A stream (Server-Sent Events): no Content-Length; the body is what follows until the connection closes.
    var stream = false

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The policy of API responses: nothing to load, nowhere to be framed.
    static let apiPolicy = "default-src 'none'; frame-ancestors 'none'"
    /// The policy of the host's pages and the plugins' panels: everything from the host itself, no inline
    /// script, no plugins, not framed elsewhere.
    static let pagePolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// A JSON body (compact, one line). `raw`: bytes that already are one JSON value.
    static func json(_ status: Int, raw: consuming [UInt8]) -> HTTPResponse {
        var bytes = raw
        bytes.append(0x0A)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")],
                            body: bytes)
    }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(value, to: &bytes)
        return json(status, raw: bytes)
    }

    /// `{"error": {"status": NAME, "message": …}}`; `name` defaults to the HTTP status's (statusName).
    static func error(_ status: Int, _ message: String, name: String? = nil) -> HTTPResponse {
        json(status, ["error": ["status": .string(name ?? statusName(status)), "message": .string(oneLine(message))]])
    }

    static func refusal(_ refusal: HTTPRefusal) -> HTTPResponse { error(refusal.status, refusal.message) }

    static func oneLine(_ message: String) -> String {
        guard message.contains(where: { $0 == "\n" || $0 == "\r" }) else { return message }
        return message.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    /// The `status` an error body names for an HTTP status the host itself sets (a plugin's own status
    /// keeps its name: Status.name). Host/HTTP.md lists them.
    static func statusName(_ status: Int) -> String {
        switch status {
        case 400, 417: return "invalid-argument"
        case 401: return "unauthenticated"
        case 403: return "denied"
        case 404: return "not-found"
        case 405: return "method-not-allowed"
        case 406: return "not-acceptable"
        case 408: return "timeout"
        case 409: return "needs-confirmation"
        case 411: return "length-required"
        case 413, 414, 431: return "too-large"
        case 415: return "unsupported-media-type"
        case 421: return "misdirected"
        case 429: return "too-many-requests"
        case 499: return "cancelled"
        case 501, 505: return "unsupported"
        case 502: return "plugin-failed"
        case 503: return "busy"
        case 504: return "timeout"
        default: return status >= 500 ? "error" : "invalid-argument"
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 200: return "OK"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 304: return "Not Modified"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 411: return "Length Required"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 499: return "Client Closed Request"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status \(status)"
        }
    }

    func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The bytes on the wire. `requestID` and `date` go in every response; a body-less status (1xx, 204,
    /// 304) has no Content-Length.
    func serialized(requestID: String, date: String) -> [UInt8] {
        var out = head(requestID: requestID, date: date, reserving: omitBody ? 0 : body.count)
        if !omitBody { out.append(contentsOf: body) }
        return out
    }

    /// The status line and headers (through the blank line) of `serialized`; `reserving`: room kept after them.
    func head(requestID: String, date: String, reserving: Int = 0) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256 + reserving)
        func append(_ s: String) { out.append(contentsOf: s.utf8) }
        append("HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n")
        append("Date: \(date)\r\nX-Request-Id: \(requestID)\r\n")
        var hasPolicy = false
        for h in headers {
            if h.name == "Content-Security-Policy" { hasPolicy = true }
            append(h.name)
            append(": ")
            append(h.value)
            append("\r\n")
        }
        if !hasPolicy { append("Content-Security-Policy: \(HTTPResponse.apiPolicy)\r\n") }
        append("X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n")
        if !stream && !(status < 200 || status == 204 || status == 304) { append("Content-Length: \(body.count)\r\n") }
        if close { append("Connection: close\r\n") }
        append("\r\n")
        return out
    }
}

/// The Date header's text (IMF-fixdate), made once a second.
/// @unchecked Sendable: `second` and `text` are read and written under `lock`.
final class HTTPDate: @unchecked Sendable {
    // Safe: `lock` guards the cached second and text.
    private let lock = Lock()
    private var second = 0
    private var text = ""

    var now: String {
        let t = Int(time(nil))
        return lock.withLock {
            if t != second {
                second = t
                text = HTTPDate.format(t)
            }
            return text
        }
    }

    static func format(_ seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon) % 12]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}

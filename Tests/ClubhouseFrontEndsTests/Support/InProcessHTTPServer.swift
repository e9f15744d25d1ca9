// `serve --http` run inside the test process, with the real plugins of the build and a small access
// layer of the tests' own (TestAccess), until the host's access layer is wired in: the same HTTPFrontEnd,
// ServeLoop, worker pool and router the binary runs, with a configuration each test writes.

import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform
import Foundation
import TestSupport
import XCTest
@testable import ClubhouseFrontEnds

/// A token, pairing and cookie store small enough to read: bearer tokens (or `apikey`) with scopes
/// `alias:read|write|*`; one-time pairing codes for a cookie; state-changing cookie requests must come from
/// an allowed Origin; five failures from one address answer 429 until the test forgives them.
final class TestAccess: AccessControlling, @unchecked Sendable {
    // Safe: every member is guarded by `lock`.
    private let lock = NSLock()
    private var tokens: [String: Principal] = [:]
    private var codes: [String: String] = [:]
    private var cookies: [String: Principal] = [:]
    private var failures: [String: Int] = [:]
    private(set) var audit: [AuditEntry] = []
    var allowedOrigins: [String] = []

    func addToken(_ token: String, name: String, scopes: [String]) {
        lock.withLock { tokens[token] = Principal(kind: .token, name: name, scopes: scopes) }
    }

    func revoke(_ token: String) { lock.withLock { _ = tokens.removeValue(forKey: token) } }

    func addPairingCode(_ code: String, name: String) { lock.withLock { codes[code] = name } }

    var entries: [AuditEntry] { lock.withLock { audit } }

    func authorize(_ request: AccessRequest) -> AccessDecision {
        lock.withLock {
            if (failures[request.clientAddress] ?? 0) >= 5 {
                return .deny(status: 429, message: "too many failed attempts from \(request.clientAddress); wait", retryAfterSeconds: 7)
            }
            var principal: Principal?
            if let auth = request.authorization, auth.hasPrefix("Bearer ") {
                principal = tokens[String(auth.dropFirst(7))]
                if principal == nil { failures[request.clientAddress, default: 0] += 1 }
            } else if let key = request.apiKey {
                principal = tokens[key]
                if principal == nil { failures[request.clientAddress, default: 0] += 1 }
            } else if let cookie = request.cookie, let value = cookie.split(separator: "=").last.map(String.init) {
                principal = cookies[value]
                if let p = principal, request.method != "GET" && request.method != "HEAD" {
                    guard let origin = request.origin, allowedOrigins.contains(origin) || origin == "http://\(request.host ?? "")" else {
                        return .deny(status: 403, message: "a cross-origin \(request.method) with a cookie is refused", retryAfterSeconds: nil)
                    }
                    _ = p
                }
            }
            if request.isPublic { return .allow(principal ?? Principal(kind: .anonymous, name: "anonymous", scopes: [])) }
            guard let principal else { return .deny(status: 401, message: "a token is needed (Authorization: Bearer …)", retryAfterSeconds: nil) }
            let alias = request.alias ?? "_"
            let granted = principal.scopes.contains { scope in
                scope == "\(alias):*" || scope == "\(alias):write" || (request.access == .read && scope == "\(alias):read")
            }
            guard granted else {
                return .deny(status: 403, message: "\(principal.name) may not \(request.access.rawValue) \(alias)", retryAfterSeconds: nil)
            }
            return .allow(principal)
        }
    }

    func exchangePairingCode(_ code: String, request: AccessRequest) -> PairingResult {
        lock.withLock {
            guard let name = codes.removeValue(forKey: code) else {
                return PairingResult(status: 401, message: "that pairing code is unknown or used", setCookie: nil, principal: nil)
            }
            let value = "c\(cookies.count + 1)x"
            let principal = Principal(kind: .browser, name: name, scopes: ["scorecard:*", "globe:*"])
            cookies[value] = principal
            return PairingResult(status: 200, message: "paired", principal: principal,
                                 setCookie: "clubhouse=\(value); HttpOnly; SameSite=Strict; Path=/" + (request.secure ? "; Secure" : ""))
        }
    }

    func corsHeaders(for request: AccessRequest) -> [(name: String, value: String)] {
        guard let origin = request.origin, lock.withLock({ allowedOrigins.contains(origin) }) else { return [] }
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]
    }

    func record(_ entry: AuditEntry) { lock.withLock { audit.append(entry) } }
}

extension PairingResult {
    init(status: Int, message: String, principal: Principal?, setCookie: String?) {
        self.init(status: status, message: message, setCookie: setCookie, principal: principal)
    }
}

/// The build's products folder (the plugins' libraries and the clubhouse executable).
enum Products {
    static let directory: URL = {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func library(_ name: String) -> String { directory.appendingPathComponent("lib\(name).so").path }

    static func sharedData(_ relative: String) throws -> String {
        let url = repository.deletingLastPathComponent().appendingPathComponent("shared/data").appendingPathComponent(relative)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw XCTSkip("../shared/data/\(relative) is absent (the shared data lives beside the repository); skipping")
        }
        return url.path
    }
}

final class InProcessHTTPServer {
    let scratch: URL
    let session: Session
    let front: HTTPFrontEnd
    let loop: ServeLoop
    /// JSON-RPC on a Unix socket on the same loop, pool and hub (`rpc: true`), as `serve --socket … --http …` runs.
    private(set) var rpc: JSONRPCServer?
    private var unix: UnixSocketListener?
    var socketPath: String { scratch.appendingPathComponent("rpc.sock").path }
    private let done = DispatchSemaphore(value: 0)
    var port: UInt16 { front.port }

    /// `plugins`: alias → library name (eg: "putting": "PuttingPlugin"); `siteHTTP`: the site's "http" object.
    /// `devices`: the site's "devices" object; a plugin named "tennis" is granted "device:ballmachine" and configured for it.
    init(plugins: [String: String], siteHTTP: String = "{}", devices: String = "{}", access: any AccessControlling,
         rpc wantsRPC: Bool = false, configure: (inout HTTPOptions) -> Void = { _ in },
         configureRPC: (inout ServeLimits) -> Void = { _ in }) throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("clubhouse-http-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let entries = plugins.sorted { $0.key < $1.key }.map { alias, library in
            alias == "tennis"
                ? #""tennis": {"path": "\#(Products.library(library))", "grants": ["storage", "device:ballmachine"], "isolation": "in-process", "config": {"device": "ballmachine"}}"#
                : #""\#(alias)": {"path": "\#(Products.library(library))", "grants": ["storage"], "isolation": "in-process"}"#
        }
        let config = #"{"sites": {"club": {"http": \#(siteHTTP), "devices": \#(devices), "plugins": {\#(entries.joined(separator: ", "))}}}}"#
        let configPath = scratch.appendingPathComponent("plugins.json").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let options = try GlobalOptions.parse(["--config", configPath, "--data-dir", scratch.appendingPathComponent("data").path, "--site", "club"])
        session = try Session(options: options)
        var http = HTTPOptions()
        http.port = 0
        configure(&http)
        let pool = WorkerPool(maxThreads: 8)
        front = try HTTPFrontEnd(session: session, options: http, access: access, pool: pool)
        var limits = ServeLimits()
        configureRPC(&limits)
        loop = ServeLoop(limits: limits) { _ in }
        loop.add(listener: front.listenerFD, front.protocolHandler(loop: loop), recordsPeers: true)
        if wantsRPC {
            let server = JSONRPCServer(session: session, limits: limits, pool: pool)
            let listener = try UnixSocketListener.open(scratch.appendingPathComponent("rpc.sock").path)
            loop.add(listener: listener.fd, server.lineProtocol())
            loop.tick = { [server] in server.tick() }
            rpc = server
            unix = listener
        }
        let loop = self.loop
        let done = self.done
        Thread.detachNewThread {
            loop.run()
            done.signal()
        }
    }

    /// Runs a command the way the CLI does (to set up data).
    @discardableResult
    func run(_ alias: String, _ words: [String]) -> CallOutcome {
        session.runtime.router.route(alias: alias, .words(words), origin: .commandLine)
    }

    func stop() {
        loop.requestStop()
        _ = done.wait(timeout: .now() + 20)
        front.group.wait()
        unix?.close()
        try? FileManager.default.removeItem(at: scratch)
    }

    deinit { session.runtime.shutdown() }
}

extension RawHTTPResponse {
    /// The body as JSON (a failure names the body).
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> JSONValue {
        do {
            return try JSONParser.parse(bytes: body)
        } catch {
            XCTFail("not JSON (\(error)): \(text)", file: file, line: line)
            throw error
        }
    }
}

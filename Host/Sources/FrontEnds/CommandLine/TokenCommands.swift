// `clubhouse token create|list|revoke|pair`: who may call the site over HTTP (Access/ in the host).
// Each works on the site's access database, `<data dir>/<site>/_host/access.sqlite`; a running
// `serve --http` reads the same file on every request, so a revocation holds from the next request.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON

enum TokenCommands {
    /// The default address in a pairing URL (`--url` names the real one).
    static let defaultURL = "http://127.0.0.1:8080"
    /// Said under a pairing URL made without --url (the third outside attack: it named port 8080 whatever
    /// port `serve` used).
    static let defaultURLHint = "(This URL assumes `serve --http 127.0.0.1:8080`; for another address or port, or for a phone, give --url with the address the browser opens, eg: --url http://192.168.1.20:8181.)"

    /// The site the command is about (--site, else the configuration's default) and where its
    /// access database is; nothing is opened yet, so a wrong request leaves no file behind.
    static func locate(_ options: GlobalOptions) throws(CLIError) -> (site: Site, path: String) {
        let configuration = try options.loadConfiguration()
        let name = options.site ?? configuration.defaultSite
        guard let site = configuration.sites[name] else {
            throw CLIError(status: .invalidArgument, message: "no site '\(name)' in \(configuration.source); sites are: \(configuration.siteOrder.joined(separator: ", ")); choose one with --site")
        }
        return (site, AccessStore.path(dataDirectory: options.resolveDataDirectory(configuration), site: name))
    }

    static func store(_ path: String) throws(CLIError) -> AccessStore {
        do { return try AccessStore(path: path) } catch { throw failure(error) }
    }

    static func failure(_ error: AccessError) -> CLIError { CLIError(status: error.status, message: error.message) }

    static func scopes(_ text: String, _ site: Site) throws(CLIError) -> [Scope] {
        switch Scopes.parse(text, aliases: site.plugins.map(\.alias), site: site.name) {
        case .success(let s): return s
        case .failure(let e): throw failure(e)
        }
    }

    static func now() -> Int { Int(AccessTime.now()) }

    // MARK: create

    static func create(name: String, scope: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        do { try AccessNames.validate(name) } catch { throw failure(error) }
        let (target, path) = try locate(options)
        let granted = try scopes(scope, target)
        let access = try store(path)
        let (record, secret): (CredentialRecord, String)
        do { (record, secret) = try access.createToken(name: name, scopes: granted, now: now()) } catch { throw failure(error) }
        let site = target.name
        let json: JSONValue = ["site": .string(site), "id": .string(record.id), "name": .string(record.name), "kind": "token",
                               "scopes": .array(record.scopes.map { .string($0) }), "created": .string(AccessTime.iso(record.created)),
                               "token": .string(secret)]
        let text = """
        Token '\(record.name)' for site '\(site)' (\(record.scopes.joined(separator: ", "))):

          \(secret)

        It is shown only this once: store it now. Send it as "Authorization: Bearer <token>" (or an "apikey" header).
        Revoke it with: clubhouse --site \(shellQuoted(site)) token revoke \(shellQuoted(record.name))

        """
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    // MARK: list

    static func list(_ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (target, path) = try locate(options)
        let access = try store(path)
        let time = now()
        let credentials: [CredentialRecord]
        let pairings: [PairingRecord]
        do {
            credentials = try access.credentials()
            pairings = try access.pendingPairings(now: time)
        } catch { throw failure(error) }
        let site = target.name
        var table: [[String]] = [["NAME", "KIND", "ID", "SCOPES", "CREATED", "LAST USED"]]
        for c in credentials {
            table.append([c.name, c.kind == .token ? "token" : "browser session", c.id, c.scopes.joined(separator: ","),
                          AccessTime.iso(c.created), c.lastUsed.map(AccessTime.iso) ?? "never"])
        }
        for p in pairings {
            table.append([p.name ?? "browser-\(p.id)", "pairing code", p.id, p.scopes.joined(separator: ","), AccessTime.iso(p.created),
                          "unused; expires \(AccessTime.iso(p.expires))"])
        }
        let text = table.count == 1
            ? "No tokens, browser sessions or pairing codes at site '\(site)' (clubhouse --site \(shellQuoted(site)) token create --name NAME --scope ALIAS:read)\n"
            : "Site '\(site)':\n" + BuiltinCommands.formatTable(table, styled: options.stylesOutput())
        let json: JSONValue = [
            "site": .string(site),
            "credentials": .array(credentials.map { c in
                ["id": .string(c.id), "kind": .string(c.kind.rawValue), "name": .string(c.name), "scopes": .array(c.scopes.map { .string($0) }),
                 "created": .string(AccessTime.iso(c.created)), "last_used": c.lastUsed.map { .string(AccessTime.iso($0)) } ?? .null]
            }),
            "pairing_codes": .array(pairings.map { p in
                ["id": .string(p.id), "name": p.name.map { .string($0) } ?? .null, "scopes": .array(p.scopes.map { .string($0) }),
                 "created": .string(AccessTime.iso(p.created)), "expires": .string(AccessTime.iso(p.expires))]
            }),
        ]
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    // MARK: revoke

    static func revoke(_ nameOrID: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (target, path) = try locate(options)
        let site = target.name
        let access = try store(path)
        let revoked: RevokedCredential
        do { revoked = try access.revoke(nameOrID, site: site, now: now()) } catch { throw failure(error) }
        let json: JSONValue
        let text: String
        switch revoked {
        case .credential(let c):
            let kind = c.kind == .token ? "token" : "browser session"
            json = ["site": .string(site), "revoked": ["id": .string(c.id), "kind": .string(c.kind.rawValue), "name": .string(c.name)]]
            text = "Revoked \(kind) '\(c.name)' (id \(c.id)) at site '\(site)'; a running server refuses it from its next request.\n"
        case .pairing(let p):
            json = ["site": .string(site), "revoked": ["id": .string(p.id), "kind": "pairing", "name": p.name.map { .string($0) } ?? .null]]
            text = "Revoked pairing code \(p.id)\(p.name.map { " for '\($0)'" } ?? "") at site '\(site)'; it can no longer pair a browser.\n"
        }
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    // MARK: pair

    static func pair(scope: String, name: String?, url given: String?, svg: String?, minutes: Int, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        guard (1...60).contains(minutes) else {
            throw CLIError(status: .invalidArgument, message: "--minutes must be 1 to 60 (a pairing code is short-lived), got \(minutes)")
        }
        if let name { do { try AccessNames.validate(name) } catch { throw failure(error) } }
        var base = given ?? defaultURL
        let lower = base.lowercased()
        let scheme = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
        guard scheme > 0, base.dropFirst(scheme).contains(where: { $0 != "/" }),
              !base.contains(where: { $0 == "#" || $0 == "?" || $0 == " " || $0.asciiValue.map { $0 < 0x20 } == true }) else {
            throw CLIError(status: .invalidArgument, message: "--url must be the http:// or https:// address a browser opens to reach the host, eg: http://192.168.1.20:8080, got '\(base)'")
        }
        while base.hasSuffix("/") { base.removeLast() }
        let (target, path) = try locate(options)
        let granted = try scopes(scope, target)
        let site = target.name
        let access = try store(path)
        let (record, code): (PairingRecord, String)
        do { (record, code) = try access.createPairing(name: name, scopes: granted, now: now(), minutes: minutes) } catch { throw failure(error) }
        let pairingURL = "\(base)/pair#code=\(code)"
        var written: String?
        if let svg {
            let path = FileSystem.absolute(svg)
            do {
                let picture = try QRCode.encode(pairingURL).svg(title: "Pair with \(site): \(pairingURL)")
                try FileSystem.writeAtomically(path, Array(picture.utf8))
                written = path
            } catch {
                // Nothing half done: the code that cannot be shown is withdrawn.
                _ = try? access.revoke(record.id, site: site, now: now())
                throw CLIError(status: .io, message: "\(svg): cannot write the QR code (\(error)); no pairing code was made")
            }
        }
        let shown = "\(code.prefix(4))-\(code.dropFirst(4))"
        let sessionName = record.name ?? "browser-\(record.id)"
        let json: JSONValue = ["site": .string(site), "id": .string(record.id), "name": .string(sessionName),
                               "scopes": .array(record.scopes.map { .string($0) }), "code": .string(shown), "url": .string(pairingURL),
                               "expires": .string(AccessTime.iso(record.expires)), "svg": written.map { .string($0) } ?? .null]
        let text = """
        Pairing code for site '\(site)' (\(record.scopes.joined(separator: ", "))), for one browser, until \(AccessTime.iso(record.expires)) (\(minutes) min):

          \(shown)

        Open \(pairingURL) on the phone or computer\(written.map { " (or scan the QR code in \($0))" } ?? ""),
        or type the code on the host's /pair page. The browser is then '\(sessionName)' in clubhouse token list until it is revoked.\(given == nil ? "\n" + TokenCommands.defaultURLHint : "")

        """
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }

    /// `text` as one shell word (single-quoted unless it is plain).
    static func shellQuoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.:/@".unicodeScalars.contains($0) }
        if plain { return text }
        var out = "'"
        for c in text { if c == "'" { out += "'\\''" } else { out.append(c) } }
        return out + "'"
    }
}

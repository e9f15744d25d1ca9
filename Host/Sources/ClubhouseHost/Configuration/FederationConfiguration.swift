// A site's "federation" block in plugins.json: where its records go (a PostgreSQL service name from
// pg_service.conf, or a connection URL), the site's id there, and the outbox's bound. Credentials
// never live here: psql reads them from ~/.pgpass, PGPASSFILE or the service file, and plugins never
// see any of it.
//
//     "federation": {"service": "clubfed", "site_id": "club-a", "outbox_max_records": 1000000}
//     "federation": {"url": "postgresql://club_a@db.example.org/federation?sslmode=verify-full", "site_id": "club-a"}
//     "federation": {"service": "clubfed", "site_id": "club-a", "connect_timeout_seconds": 5, "step_timeout_seconds": 120}

import ClubhouseJSON

/// A site's federation settings.
public struct SiteFederation: Sendable, Equatable {
    /// A service name of pg_service.conf (PGSERVICE), or nil when `url` is set.
    public var service: String?
    /// A libpq connection URL (postgresql://…), or nil when `service` is set.
    public var url: String?
    /// The site's id in the federation (its records carry it; its role is clubhouse_site_<id>).
    public var siteID: String
    /// Records one plugin's outbox may hold unshipped before publishing is refused.
    public var outboxMaxRecords = Outbox.maxRecords
    /// Records per COPY batch of a push.
    public var batchRecords = 10_000
    /// `serve` pushes what waits this often, besides soon after each commit that published records.
    public var pushEverySeconds = 60
    /// The longest wait between `serve`'s background pushes while the federation is away.
    public var retryMaxSeconds = 300
    /// How long psql waits for the server to accept and answer its connection (libpq's connect_timeout,
    /// given to psql as PGCONNECT_TIMEOUT: one in the URL or the service file wins).
    public var connectTimeoutSeconds = 10
    /// How long one step of a push or pull (a batch, a query) may wait for the server before psql is stopped.
    public var stepTimeoutSeconds = 60

    public init(service: String? = nil, url: String? = nil, siteID: String) {
        self.service = service
        self.url = url
        self.siteID = siteID
    }

    /// Why `id` is not a federation site id, or nil: 1–48 lowercase letters, digits and '_' ('-' too),
    /// starting with a letter (it becomes part of a PostgreSQL role name).
    public static func siteIDProblem(_ id: String) -> String? {
        let bytes = Array(id.utf8)
        guard let first = bytes.first, (0x61...0x7A).contains(first), bytes.count <= 48,
              bytes.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D })
        else {
            return "federation site id '\(id)' must be 1–48 lowercase letters, digits, '-' and '_', starting with a letter, eg: \"club-a\""
        }
        return nil
    }

    /// Why a connection URL may not stand in plugins.json, or nil (a password in it).
    public static func urlProblem(_ url: String) -> String? {
        guard url.hasPrefix("postgresql://") || url.hasPrefix("postgres://") else {
            // Not repeated in the message: a keyword form (`host=… password=…`) may hold a password.
            return "federation url must start with postgresql:// (a keyword form such as host=… dbname=… is not taken, and its value is not repeated here: it may hold a password), eg: postgresql://club_a@db.example.org/federation?sslmode=verify-full, or use \"service\""
        }
        let afterScheme = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        let authority = afterScheme.count > 2 ? afterScheme[2] : ""
        if let at = authority.lastIndex(of: "@"), authority[..<at].contains(":") {
            return "federation url carries a password; credentials never go in plugins.json: put it in ~/.pgpass (or the file PGPASSFILE names) and leave it out of the URL"
        }
        // libpq percent-decodes a URL's parameter names and values (`?pass%77ord=…` is a password), and
        // `password`/`sslpassword` are not the only spellings one could try: any parameter whose decoded
        // name or value says "password" is refused (the fourth outside attack, b27).
        if let query = url.firstIndex(of: "?") {
            let decoded = percentDecoded(String(url[url.index(after: query)...])).lowercased()
            if decoded.contains("password") {
                return "federation url carries a password parameter; credentials never go in plugins.json: put it in ~/.pgpass (or the file PGPASSFILE names)"
            }
        }
        return nil
    }

    /// `text` with each `%XX` replaced by its byte (as libpq reads a URL); an invalid escape stays as it is.
    static func percentDecoded(_ text: String) -> String {
        String(decoding: PercentDecoding.bytes(ArraySlice(text.utf8), strict: false) ?? [], as: UTF8.self)
    }
}

extension Reader {
    static let federationKeys = ["service", "url", "site_id", "outbox_max_records", "batch_records", "push_every_seconds", "retry_max_seconds",
                                   "connect_timeout_seconds", "step_timeout_seconds"]

    mutating func readFederation(_ o: JSONObject, at path: String, site: String) -> SiteFederation? {
        checkKeys(o, at: path, known: Reader.federationKeys, what: "\"federation\" of site '\(site)'")
        let service = string(o["service"], at: pointer(path, "service"), what: "\"service\"")
        let url = string(o["url"], at: pointer(path, "url"), what: "\"url\"")
        if (service == nil) == (url == nil) {
            error(path, "\"federation\" of site '\(site)' needs exactly one of \"service\" (a pg_service.conf name) and \"url\" (postgresql://…)")
        }
        if let url, let problem = SiteFederation.urlProblem(url) { error(pointer(path, "url"), problem) }
        if let service, service.isEmpty || service.contains(where: { $0.isWhitespace || $0 == "=" }) {
            error(pointer(path, "service"), "federation service '\(service)' must be a pg_service.conf section name, eg: \"clubfed\"")
        }
        guard let id = string(o["site_id"], at: pointer(path, "site_id"), what: "\"site_id\"") else {
            if o["site_id"] == nil { error(path, "\"federation\" of site '\(site)' has no \"site_id\" (the site's id in the federation, eg: \"club-a\")") }
            return nil
        }
        if let problem = SiteFederation.siteIDProblem(id) { error(pointer(path, "site_id"), problem) }
        var federation = SiteFederation(service: service, url: url, siteID: id)
        federation.outboxMaxRecords = int(o["outbox_max_records"], at: pointer(path, "outbox_max_records"), what: "\"outbox_max_records\"",
                                          range: 1...Outbox.maxRecords) ?? federation.outboxMaxRecords
        federation.batchRecords = int(o["batch_records"], at: pointer(path, "batch_records"), what: "\"batch_records\"",
                                      range: 1...100_000) ?? federation.batchRecords
        federation.pushEverySeconds = int(o["push_every_seconds"], at: pointer(path, "push_every_seconds"), what: "\"push_every_seconds\"",
                                          range: 1...86_400) ?? federation.pushEverySeconds
        federation.retryMaxSeconds = int(o["retry_max_seconds"], at: pointer(path, "retry_max_seconds"), what: "\"retry_max_seconds\"",
                                         range: 1...3_600) ?? federation.retryMaxSeconds
        federation.connectTimeoutSeconds = int(o["connect_timeout_seconds"], at: pointer(path, "connect_timeout_seconds"),
                                               what: "\"connect_timeout_seconds\"", range: 2...3_600) ?? federation.connectTimeoutSeconds
        federation.stepTimeoutSeconds = int(o["step_timeout_seconds"], at: pointer(path, "step_timeout_seconds"), what: "\"step_timeout_seconds\"",
                                            range: 1...86_400) ?? federation.stepTimeoutSeconds
        return federation
    }
}

// `clubhouse outbox --site S`: the records a site's plugins published (services/publish.h, ABI 1.4)
// that wait to be shipped to its federation, oldest first, per plugin database. Read with the host's
// own connection (Publish/Outbox.swift); nothing is loaded, nothing changes.

import ClubhouseHost
import ClubhousePlatform
import ClubhouseJSON

enum FederationOutbox {
    /// The site (--site, else the default) and its data folder, `<data>/<site>`.
    static func locate(_ options: GlobalOptions) throws(CLIError) -> (site: Site, folder: String) {
        let configuration = try options.loadConfiguration()
        let name = options.site ?? configuration.defaultSite
        guard let site = configuration.sites[name] else {
            throw CLIError(status: .invalidArgument, message: "no site '\(name)' in \(configuration.source); sites are: \(configuration.siteOrder.joined(separator: ", ")); choose one with --site")
        }
        return (site, options.resolveDataDirectory(configuration) + "/" + name)
    }

    /// Every plugin database of the site folder (`<plugin id>.sqlite`), by file name.
    static func databases(in folder: String) -> [String] {
        FileSystem.files(in: folder, suffix: ".sqlite").sorted()
    }

    static func run(limit: Int, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        guard (1...100_000).contains(limit) else {
            throw CLIError(status: .invalidArgument, message: "--limit \(limit): show 1–100000 records")
        }
        let (site, folder) = try locate(options)
        var plugins: [JSONValue] = []
        var records: [OutboxRecord] = []
        var total = 0
        for file in databases(in: folder) {
            let path = file.hasPrefix("/") ? file : folder + "/" + file
            let counts: OutboxFile.Counts
            do {
                guard let outbox = try OutboxFile(path: path, writable: false) else { continue }
                counts = try outbox.counts()
                if counts.waiting > 0 && records.count < limit {
                    records += try outbox.waiting(limit: limit - records.count)
                }
            } catch {
                throw CLIError(status: .error, message: "\(error.message); the outbox of \(path) cannot be read")
            }
            guard counts.lastSeq > 0 else { continue }
            total += counts.waiting
            let plugin = String(FileSystem.baseName(path).dropLast(".sqlite".count))
            plugins.append(["plugin": .string(plugin), "waiting": .int(counts.waiting), "lastSeq": .int(Int(counts.lastSeq)),
                            "shippedSeq": .int(Int(counts.shippedSeq))])
        }
        let json: JSONValue = [
            "site": .string(site.name), "federation": site.federation.map { .string($0.siteID) } ?? .null, "waiting": .int(total),
            "plugins": .array(plugins),
            "records": .array(records.map { r in
                ["seq": .int(Int(r.seq)), "plugin": .string(r.plugin), "version": .string(r.pluginVersion), "topic": .string(r.topic),
                 "key": .string(r.key), "sha256": .string(r.sha256), "bytes": .int(r.body.count), "publishedAt": .string(r.publishedAt)]
            }),
        ]
        var text = total == 0 ? "Nothing waits in the outbox of site '\(site.name)'.\n"
            : "\(total) record\(total == 1 ? "" : "s") wait\(total == 1 ? "s" : "") in the outbox of site '\(site.name)'"
                + (site.federation.map { " (federation site id '\($0.siteID)')" } ?? " (no \"federation\" configured: nothing ships them)") + ":\n"
        if total > 0 {
            let rows = records.map { r in
                [r.plugin, String(r.seq), r.topic, r.key, String(r.body.count), String(r.sha256.prefix(12)), r.publishedAt]
            }
            text += BuiltinCommands.formatTable([["PLUGIN", "SEQ", "TOPIC", "KEY", "BYTES", "SHA-256", "PUBLISHED"]] + rows,
                                                styled: options.stylesOutput())
            if records.count < total { text += "(the oldest \(records.count) of \(total); --limit N shows more)\n" }
        }
        BuiltinCommands.output(options, json: json, text: text)
        return 0
    }
}

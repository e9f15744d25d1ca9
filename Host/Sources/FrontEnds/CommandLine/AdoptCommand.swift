// `clubhouse plugin adopt ID --site S`: binds the site's data of a plugin id to the library the site
// loads for it now. A plugin database belongs to the origin of the library that created it (bundled,
// a listed publisher's package, another package's folder, a path: DataOrigin.swift), and the storage
// service refuses a library of any other origin; adopting is how an administrator says that the
// new library is meant to have that data. The library it belonged to is refused from then on, by a
// host already running too (the binding is checked again when the file changes). A bundled plugin's id
// with no data yet is adopted by creating its database bound to the new library.

import ClubhouseHost
import ClubhouseJSON
import ClubhousePlatform

enum AdoptCommand {
    static func adopt(_ name: String, _ options: GlobalOptions) throws(CLIError) -> Int32 {
        let (configuration, dataDirectory, _) = try LockCommand.lockPath(options)
        let (site, named) = try RollbackCommand.siteAndEntry(name, configuration, options)
        let runtime = SiteRuntime(configuration: configuration, site: site, dataDirectory: dataDirectory,
                                  log: LogBroker(verbosity: options.verbosity, color: false))
        defer { runtime.shutdown() }
        // By alias or declared id, else by the id a library loaded from a path declares (what the refusal names).
        var found = named
        if found == nil {
            found = site.plugins.first { entry in
                guard entry.enabled, entry.id == nil, case .success(let p) = runtime.resolve(entry.alias) else { return false }
                return p.info.id == name
            }
        }
        guard let entry = found, entry.enabled else {
            throw CLIError(status: .notFound, message: "site '\(site.name)' has no enabled plugin '\(name)' (\(configuration.commandPrefix) --site \(site.name) plugins list shows its plugins); adopt binds data to a library the site loads")
        }
        let plugin: ResolvedPlugin
        switch runtime.resolve(entry.alias) {
        case .success(let p): plugin = p
        case .failure(let e):
            throw CLIError(status: .error, message: "\(e.message); nothing was adopted: adopt binds the data to the library the site loads, so the plugin must load first")
        }
        let id = plugin.info.id
        let database = runtime.storage.databasePath(site: site.name, pluginID: id)
        let origin = runtime.dataOrigin(of: plugin.path)
        let to: JSONValue = ["origin": .string(origin.key), "described": .string(origin.described), "library": .string(origin.library)]
        var json: JSONObject = ["site": .string(site.name), "plugin": .string(entry.alias), "id": .string(id),
                                "database": .string(database), "to": to]
        // No data yet: the first library to open it will own it, except that a bundled plugin's id is that
        // plugin's (DataOrigin.swift), so adopting it for another library creates the data bound to that library.
        let existed = FileSystem.exists(database)
        let bundledOwner = existed || origin.key == "bundled" ? nil : runtime.bundledLibrary(declaring: id)
        guard existed || bundledOwner != nil else {
            json["from"] = .null
            json["changed"] = false
            BuiltinCommands.output(options, json: .object(json),
                                   text: "\(id) has no data at site '\(site.name)' yet (\(database)); nothing to adopt: the first library to open it, \(origin.library) (\(origin.described)), will own it\n")
            return 0
        }
        let db: PluginDatabase
        do { db = try runtime.storage.open(site: site.name, pluginID: id, owner: entry.alias) } catch {
            throw CLIError(status: .error, message: "\(error.message); nothing was adopted")
        }
        defer { db.close() }
        // What it belonged to is what the adopt's own write transaction found (another adopt may write
        // at the same time: a read before it could name what the other one replaced).
        let replaced: DataOrigin?
        do { replaced = try db.adopt(origin) } catch {
            throw CLIError(status: .error, message: "\(error.message)")
        }
        json["from"] = replaced.map { ["origin": .string($0.key), "described": .string($0.described), "library": .string($0.library)] } ?? .null
        if let replaced, replaced.key == origin.key {
            json["changed"] = false
            BuiltinCommands.output(options, json: .object(json),
                                   text: "The data of \(id) at site '\(site.name)' (\(database)) already belongs to \(origin.described) (\(replaced.library)), which plugin '\(entry.alias)' loads (\(origin.library)); nothing changed\n")
            return 0
        }
        let before = replaced.map { "\($0.described) (\($0.library))" }
            ?? bundledOwner.map { "no one yet (it had no data; its id is that of the plugin bundled with the host, \($0))" }
            ?? "no library yet (a database made before data was bound)"
        json["changed"] = true
        let refused = replaced.map { " From now on \($0.library) (\($0.described)) is refused this data unless it is adopted back." } ?? ""
        BuiltinCommands.output(options, json: .object(json),
                               text: "Adopted the data of \(id) at site '\(site.name)' (\(database)): it belonged to \(before); it now belongs to \(origin.described) (\(origin.library)), which plugin '\(entry.alias)' loads.\(refused)\n")
        return 0
    }
}

// A plugin's declaration of its `config` (the `"config_schema"` of its catalogue): a subset of
// JSON Schema the host checks a site's config against — when the site loads the plugin and in
// `clubhouse config validate` — so a bad value is refused with its place in plugins.json
// (file:line:column) before the plugin ever reads it.
//
// The subset (PluginSDK/README.md, "Your configuration"): type, properties, required,
// additionalProperties (false or a schema), enum, minimum, maximum, items, default, and the
// annotations description and title. Any other keyword is refused when the catalogue is read, so
// nothing an author writes goes silently unchecked.

import ClubhouseJSON
import ClubhousePlatform

public final class ConfigSchema: Sendable {
    /// The keywords the host understands.
    public static let keywords = ["type", "properties", "required", "additionalProperties", "enum", "minimum", "maximum",
                                  "items", "default", "description", "title"]
    public static let typeNames = ["object", "array", "string", "number", "integer", "boolean", "null"]

    public enum Additional: Sendable {
        case allowed
        case forbidden
        case schema(ConfigSchema)
    }

    /// The allowed types (nil: any).
    public let types: [String]?
    /// Declared members, in declaration order.
    public let properties: [(name: String, schema: ConfigSchema)]
    public let required: [String]
    public let additional: Additional
    public let enumValues: [JSONValue]?
    public let minimum: Double?
    public let maximum: Double?
    public let items: ConfigSchema?
    public let defaultValue: JSONValue?
    /// The schema as the plugin wrote it (for `plugins info --json`).
    public let source: JSONValue

    init(types: [String]?, properties: [(name: String, schema: ConfigSchema)], required: [String], additional: Additional,
         enumValues: [JSONValue]?, minimum: Double?, maximum: Double?, items: ConfigSchema?, defaultValue: JSONValue?,
         source: JSONValue) {
        self.types = types
        self.properties = properties
        self.required = required
        self.additional = additional
        self.enumValues = enumValues
        self.minimum = minimum
        self.maximum = maximum
        self.items = items
        self.defaultValue = defaultValue
        self.source = source
    }

    // MARK: reading a schema

    /// Reads a schema; every problem is listed, each starting with where it is ("config_schema.properties.stimp").
    public static func parse(_ value: JSONValue) -> Result<ConfigSchema, CatalogError> {
        var problems: [String] = []
        let schema = read(value, at: "config_schema", problems: &problems)
        if let schema, problems.isEmpty { return .success(schema) }
        return .failure(CatalogError(problems: problems))
    }

    private static func read(_ value: JSONValue, at place: String, problems: inout [String]) -> ConfigSchema? {
        guard let o = value.objectValue else {
            problems.append("\(place) must be a JSON Schema object, not \(value.kindName)")
            return nil
        }
        for key in o.keys where !keywords.contains(key) {
            problems.append("\(place): keyword '\(key)' is not in the subset the host checks (\(keywords.joined(separator: ", "))); leave it out or check it in create")
        }
        var types: [String]?
        if let t = o["type"] {
            let names = t.stringValue.map { [$0] } ?? t.arrayValue?.compactMap(\.stringValue)
            if let names, !names.isEmpty, names.count == (t.arrayValue?.count ?? 1), names.allSatisfy(typeNames.contains) {
                types = names
            } else {
                problems.append("\(place).type must be one of \(typeNames.joined(separator: ", ")) or a list of them, not \(JSONWriter.compact(t))")
            }
        }
        var properties: [(name: String, schema: ConfigSchema)] = []
        if let p = o["properties"] {
            if let members = p.objectValue {
                for (name, member) in members {
                    if let s = read(member, at: "\(place).properties.\(name)", problems: &problems) { properties.append((name, s)) }
                }
            } else {
                problems.append("\(place).properties must be an object of schemas, not \(p.kindName)")
            }
        }
        var required: [String] = []
        if let r = o["required"] {
            if let names = r.arrayValue?.compactMap(\.stringValue), names.count == r.arrayValue?.count {
                required = names
            } else {
                problems.append("\(place).required must be an array of member names")
            }
        }
        var additional = Additional.allowed
        if let a = o["additionalProperties"] {
            if let b = a.boolValue { additional = b ? .allowed : .forbidden }
            else if let s = read(a, at: "\(place).additionalProperties", problems: &problems) { additional = .schema(s) }
        }
        var enumValues: [JSONValue]?
        if let e = o["enum"] {
            if let list = e.arrayValue, !list.isEmpty { enumValues = list }
            else { problems.append("\(place).enum must be a non-empty array of the allowed values") }
        }
        func bound(_ key: String) -> Double? {
            guard let v = o[key] else { return nil }
            guard let n = v.doubleValue, n.isFinite else {
                problems.append("\(place).\(key) must be a number, not \(v.kindName)")
                return nil
            }
            return n
        }
        let minimum = bound("minimum"), maximum = bound("maximum")
        var items: ConfigSchema?
        if let i = o["items"] { items = read(i, at: "\(place).items", problems: &problems) }
        for key in ["description", "title"] where o[key] != nil && o[key]?.stringValue == nil {
            problems.append("\(place).\(key) must be a string")
        }
        let schema = ConfigSchema(types: types, properties: properties, required: required, additional: additional,
                                  enumValues: enumValues, minimum: minimum, maximum: maximum, items: items,
                                  defaultValue: o["default"], source: value)
        // A default that its own schema refuses would mislead the site's administrator.
        if let d = o["default"], let problem = schema.validate(d, at: "").first {
            problems.append("\(place).default \(JSONWriter.compact(d)) does not fit its own schema: \(problem.message)")
        }
        return schema
    }

    // MARK: checking a value

    /// One value that does not fit: where (a JSON Pointer into the config, "" for the whole) and why.
    public struct Problem: Sendable, Equatable {
        public var pointer: String
        public var message: String
    }

    /// Every problem of `value` against this schema, in document order (empty: it fits).
    public func validate(_ value: JSONValue, at pointer: String = "") -> [Problem] {
        var problems: [Problem] = []
        check(value, at: pointer, into: &problems)
        return problems
    }

    /// `config "physics.past_hole_in"` (or `config` for the whole object) for messages.
    public static func describe(_ pointer: String) -> String {
        guard !pointer.isEmpty else { return "config" }
        var key = ""
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let name = token.replacing("~1", with: "/").replacing("~0", with: "~")
            if let index = Int(name), !key.isEmpty { key += "[\(index)]" } else { key += key.isEmpty ? name : ".\(name)" }
        }
        return "config \"\(key)\""
    }

    private func check(_ value: JSONValue, at pointer: String, into problems: inout [Problem]) {
        let what = ConfigSchema.describe(pointer)
        if let types, !types.contains(where: { ConfigSchema.matches(value, type: $0) }) {
            let expected = types.map { ConfigSchema.article($0) }.joined(separator: " or ")
            problems.append(Problem(pointer: pointer, message: "\(what) must be \(expected), not \(value.kindName) (\(ConfigSchema.show(value)))"))
            return
        }
        if let enumValues, !enumValues.contains(where: { ConfigSchema.same($0, value) }) {
            problems.append(Problem(pointer: pointer, message: "\(what) must be one of \(enumValues.map(JSONWriter.compact).joined(separator: ", ")), not \(ConfigSchema.show(value))"))
        }
        if let n = value.doubleValue {
            if let minimum, n < minimum {
                problems.append(Problem(pointer: pointer, message: "\(what) must be at least \(ConfigSchema.format(minimum)), not \(ConfigSchema.show(value))"))
            }
            if let maximum, n > maximum {
                problems.append(Problem(pointer: pointer, message: "\(what) must be at most \(ConfigSchema.format(maximum)), not \(ConfigSchema.show(value))"))
            }
        }
        if let object = value.objectValue {
            for name in required where object[name] == nil {
                problems.append(Problem(pointer: pointer, message: "\(what) lacks \"\(name)\", which the plugin requires"))
            }
            for (name, member) in object {
                let at = pointer + "/" + JSONDocument.escapePointerToken(name)
                if let declared = properties.first(where: { $0.name == name }) {
                    declared.schema.check(member, at: at, into: &problems)
                    continue
                }
                switch additional {
                case .allowed: break
                case .schema(let s): s.check(member, at: at, into: &problems)
                case .forbidden:
                    let known = properties.map(\.name)
                    var message = "\(ConfigSchema.describe(at)) is not a setting of this plugin"
                    if let suggestion = closest(name, among: known) { message += "; did you mean \"\(suggestion)\"?" }
                    else { message += known.isEmpty ? " (it takes none)" : " (it takes \(known.joined(separator: ", ")))" }
                    problems.append(Problem(pointer: at, message: message))
                }
            }
        }
        if let array = value.arrayValue, let items {
            for (i, element) in array.enumerated() { items.check(element, at: pointer + "/\(i)", into: &problems) }
        }
    }

    static func matches(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null), ("number", .number): return true
        case ("integer", .number(let n)): return n.isInteger || n.int != nil
        default: return false
        }
    }

    /// Equal as JSON values (numbers by value: 1 and 1.0 are the same).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        if let x = a.numberValue, let y = b.numberValue { return x.double == y.double }
        return a == b
    }

    static func article(_ type: String) -> String {
        switch type {
        case "object", "array", "integer": return "an \(type)"
        case "null": return "null"
        default: return "a \(type)"
        }
    }

    static func format(_ n: Double) -> String {
        n.rounded() == n && abs(n) < 1e15 ? String(Int(n)) : String(n)
    }

    /// A value for a message, cut short when long.
    static func show(_ value: JSONValue) -> String {
        let text = JSONWriter.compact(value)
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }
}

/// Where a site's config value is in its file, for messages: `file:line:column` of the value at
/// `pointer` inside the plugin's `config` (the file is read again, only when there is a problem).
public enum ConfigSchemaLocation {
    /// The one-line refusal of a site's config that does not fit the plugin's schema, or nil:
    /// "plugins.json:14:31: site 'club': plugin 'putting': config "stimp" must be at most 14, not 20 …".
    public static func refusal(_ schema: ConfigSchema?, configuration: SiteConfiguration, site: String, entry: PluginEntry) -> String? {
        guard let schema else { return nil }
        let problems = schema.validate(entry.config)
        guard let first = problems.first else { return nil }
        let place = describe(configuration: configuration, site: site, entry: entry, pointer: first.pointer)
        let more = problems.count > 1 ? " (and \(problems.count - 1) more: clubhouse config validate lists them)" : ""
        return "\(place): site '\(site)': plugin '\(entry.alias)': \(first.message), as the plugin's config schema says\(more); fix it in \(configuration.source)"
    }

    /// Every problem, one line each with its own place (config validate).
    public static func refusals(_ schema: ConfigSchema?, configuration: SiteConfiguration, site: String, entry: PluginEntry) -> [String] {
        guard let schema else { return [] }
        return schema.validate(entry.config).map { problem in
            "\(describe(configuration: configuration, site: site, entry: entry, pointer: problem.pointer)): site '\(site)': plugin '\(entry.alias)': \(problem.message), as the plugin's config schema says"
        }
    }

    public static func describe(configuration: SiteConfiguration, site: String, entry: PluginEntry, pointer: String) -> String {
        let fallback = "\(configuration.source):\(entry.location.line):\(entry.location.column)"
        let text: String
        if configuration.source == "<embedded plugins.json>" {
            text = EmbeddedDefaults.pluginsJSON
        } else if let base = configuration.baseDirectory,
                  let bytes = try? FileSystem.read(base + "/" + FileSystem.baseName(configuration.source)) {
            text = String(decoding: bytes, as: UTF8.self)
        } else {
            return fallback
        }
        guard let document = try? JSONParser.parseDocument(text) else { return fallback }
        let base = "/sites/\(JSONDocument.escapePointerToken(site))/plugins/\(JSONDocument.escapePointerToken(entry.alias))/config"
        // A value the file does not have (a required member) points at the config object itself.
        let location = document.exactLocation(of: base + pointer) ?? document.location(of: base + pointer)
        return "\(configuration.source):\(location.line):\(location.column)"
    }

}

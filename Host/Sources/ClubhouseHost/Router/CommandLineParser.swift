// Turns command-line words (or a JSON arguments object from JSON-RPC / invoke) into the typed
// arguments a command declares, with a usage error naming the argument when something is off.

import ClubhousePlatform
import ClubhouseJSON

/// A usage mistake: the CLI prints it and exits with 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The host's parser of a command's arguments (named for what it parses, not after swift-argument-parser,
/// which the host does not use): command-line words, or a JSON arguments object checked the same way.
public enum CommandLineParser {
    /// Which command the words name: the longest declared name matching the leading words.
    /// Returns the command and the words after its name.
    public static func selectCommand(_ words: [String], in catalogue: CommandCatalog, plugin: String)
        -> Result<(CommandSpec, [String]), UsageError>
    {
        var best: CommandSpec?
        for command in catalogue.commands where command.words.count <= words.count {
            if Array(words.prefix(command.words.count)) == command.words, command.words.count > (best?.words.count ?? 0) {
                best = command
            }
        }
        if let best { return .success((best, Array(words.dropFirst(best.words.count)))) }
        let typed = words.prefix { !$0.hasPrefix("-") }.joined(separator: " ")
        if typed.isEmpty {
            return .failure(UsageError("'\(plugin)' needs a command; see clubhouse \(plugin) --help"))
        }
        let group = catalogue.commands.filter { $0.name.hasPrefix(typed + " ") }
        if !group.isEmpty {
            return .failure(UsageError("'\(plugin) \(typed)' needs one of: \(group.map { $0.words.dropFirst(typed.split(separator: " ").count).joined(separator: " ") }.joined(separator: ", ")); see clubhouse \(plugin) --help"))
        }
        var message = "unknown command '\(typed)' for plugin '\(plugin)'"
        if let suggestion = closest(typed, among: catalogue.commands.map(\.name)) { message += "; did you mean '\(suggestion)'?" }
        message += " (clubhouse \(plugin) --help lists its commands)"
        return .failure(UsageError(message))
    }

    /// Parses the words after the command name.
    public static func parse(_ words: [String], for command: CommandSpec, plugin: String) throws(UsageError) -> JSONObject {
        var values = JSONObject()
        var positionals: [String] = []
        let usage = "\(helpCommand(plugin, command.name))"
        var i = 0
        var onlyPositionals = false
        while i < words.count {
            let word = words[i]
            i += 1
            if onlyPositionals || !word.hasPrefix("--") || word == "-" {
                if word.hasPrefix("-") && word != "-" && !onlyPositionals && !looksNumeric(word) {
                    throw UsageError("unknown option '\(word)' for '\(plugin) \(command.name)'; options start with '--' (\(usage))")
                }
                positionals.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            guard let spec = command.arguments.first(where: { $0.name == name }) else {
                var message = "unknown option '--\(name)' for '\(plugin) \(command.name)'"
                if let s = closest(name, among: command.arguments.map(\.name)) { message += "; did you mean '--\(s)'?" }
                throw UsageError(message + " (\(usage))")
            }
            if spec.kind == .flag {
                if let inline {
                    guard let b = ["true": true, "false": false, "1": true, "0": false][inline] else {
                        throw UsageError("flag --\(name) takes no value (or =true/=false), got '\(inline)'")
                    }
                    values[name] = .bool(b)
                } else {
                    values[name] = .bool(true)
                }
                continue
            }
            let raw: String
            if let inline { raw = inline } else {
                guard i < words.count else { throw UsageError("option --\(name) needs a value (\(usage))") }
                raw = words[i]
                i += 1
            }
            let value = try convert(raw, spec, plugin: plugin, command: command.name)
            if spec.kind == .list, let existing = values[name]?.arrayValue, let more = value.arrayValue {
                values[name] = .array(existing + more)
            } else if values[name] != nil {
                throw UsageError("option --\(name) is given twice")
            } else {
                values[name] = value
            }
        }
        var slots = command.positionals.filter { values[$0.name] == nil }
        for word in positionals {
            guard !slots.isEmpty else {
                throw UsageError("unexpected argument '\(word)' for '\(plugin) \(command.name)' (\(usage))")
            }
            let spec = slots.removeFirst()
            values[spec.name] = try convert(word, spec, plugin: plugin, command: command.name)
        }
        return try finish(values, for: command, plugin: plugin)
    }

    /// `clubhouse PLUGIN COMMAND --help`, or `clubhouse COMMAND --help` for a built-in command.
    static func helpCommand(_ plugin: String, _ command: String) -> String {
        plugin == "clubhouse" ? "clubhouse \(command) --help" : "clubhouse \(plugin) \(command) --help"
    }

    /// "-1", "-0.5", "-3,4": a negative number or point, not an option.
    static func looksNumeric(_ word: String) -> Bool {
        guard word.count > 1 else { return false }
        let second = word[word.index(after: word.startIndex)]
        return second.isNumber || second == "."
    }

    /// Checks and types a JSON arguments object (JSON-RPC, invoke) like the command line.
    public static func validate(_ given: JSONObject, for command: CommandSpec, plugin: String) throws(UsageError) -> JSONObject {
        var values = JSONObject()
        for (name, value) in given {
            guard let spec = command.arguments.first(where: { $0.name == name }) else {
                throw UsageError("unknown argument '\(name)' for '\(plugin) \(command.name)'")
            }
            if value.isNull { continue }
            values[name] = try check(value, spec, plugin: plugin, command: command.name)
        }
        return try finish(values, for: command, plugin: plugin)
    }

    static func finish(_ given: JSONObject, for command: CommandSpec, plugin: String) throws(UsageError) -> JSONObject {
        var values = given
        for spec in command.arguments where values[spec.name] == nil {
            if let d = spec.defaultValue {
                values[spec.name] = d
            } else if spec.required {
                let form = spec.positional ? spec.name.uppercased() : "--\(spec.name)"
                throw UsageError("'\(plugin) \(command.name)' needs \(form)\(spec.help.isEmpty ? "" : " (\(spec.help))"); see \(helpCommand(plugin, command.name))")
            }
        }
        return values
    }

    static func convert(_ raw: String, _ spec: ArgumentSpec, plugin: String, command: String) throws(UsageError) -> JSONValue {
        let label = spec.positional ? spec.name.uppercased() : "--\(spec.name)"
        switch spec.kind {
        case .string:
            return .string(raw)
        case .integer:
            guard let i = Int(raw) else { throw UsageError("\(label) must be an integer, got '\(raw)'") }
            return .int(i)
        case .number:
            guard let d = Double(raw), d.isFinite else {
                let parts = raw.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters() }
                throw UsageError("\(label) must be a number, got '\(raw)'\(numberHint(parts, spec))")
            }
            return .number(JSONNumber(lexeme: canonicalNumberLexeme(raw, d), isInteger: Int(raw) != nil))
        case .flag:
            return .bool(true)
        case .path:
            if raw.isEmpty { throw UsageError("\(label) must be a path, got an empty string") }
            return .string(raw == "-" ? "-" : FileSystem.absolute(raw))
        case .choice:
            guard spec.choices.contains(raw) else {
                throw UsageError("\(label) must be one of \(spec.choices.joined(separator: ", ")), got '\(raw)'")
            }
            return .string(raw)
        case .list:
            let items = raw.split(separator: ",").map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
            if items.isEmpty { throw UsageError("\(label) needs at least one value (comma-separated)") }
            return .array(items.map { .string($0) })
        case .point:
            let parts = raw.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters() }
            guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else {
                throw UsageError("\(label) must be a point X,Y (two numbers), got '\(raw)'\(numberHint(parts, spec))")
            }
            return .array([.double(x), .double(y)])
        case .json:
            do {
                return try JSONParser.parse(raw)
            } catch {
                throw UsageError("\(label) must be JSON: \(error)")
            }
        }
    }

    /// What a number typed the way people write it elsewhere needs: a decimal comma ("0,5" or, for a
    /// point, "0,5,-5,9") or a unit ("2m", "6.5ft"). Empty when neither is seen.
    static func numberHint(_ parts: [String], _ spec: ArgumentSpec) -> String {
        func digits(_ s: String) -> Bool { !s.isEmpty && s.allSatisfy { $0.isASCII && $0.isNumber } }
        // "0,5" for a number, "0,5,-5,9" for a point: every other part is a fraction's digits.
        let expected = spec.kind == .point ? 2 : 1
        if parts.count == 2 * expected,
           stride(from: 0, to: parts.count, by: 2).allSatisfy({ Double(parts[$0]) != nil && !parts[$0].contains(".") && digits(parts[$0 + 1]) }) {
            let fixed = stride(from: 0, to: parts.count, by: 2).map { parts[$0] + "." + parts[$0 + 1] }.joined(separator: ",")
            return "; numbers take a decimal point, not a comma: did you mean '\(fixed)'?"
        }
        // A unit after the number.
        let units: [(suffix: String, feet: Double?)] = [("cm", 0.0328084), ("mm", 0.00328084), ("ft", 1), ("m", 3.28084), ("'", 1), ("\"", nil)]
        var plain: [Double] = []
        var metres = false
        for part in parts {
            let text = part.lowercased()
            guard let unit = units.first(where: { text.hasSuffix($0.suffix) }),
                  let value = Double(text.dropLast(unit.suffix.count).trimmingCharacters()) else { return "" }
            plain.append(value * (spec.help.contains("feet") ? (unit.feet ?? 1.0 / 12) : 1))
            if unit.feet != 1 { metres = true }
        }
        guard !plain.isEmpty, plain.count == expected else { return "" }
        let numbers = plain.map { v in v == v.rounded() ? String(Int(v)) : String((v * 1000).rounded() / 1000) }.joined(separator: ",")
        if metres && spec.help.contains("feet") {
            return "; give plain numbers in feet, without a unit: that is '\(numbers)' in feet"
        }
        return "; give plain numbers, without a unit: '\(numbers)'\(spec.help.isEmpty ? "" : " (\(spec.help))")"
    }

    /// A number lexeme that is valid JSON (the command line accepts "5.", "+3", ".5").
    static func canonicalNumberLexeme(_ raw: String, _ value: Double) -> String {
        if let parsed = try? JSONParser.parse(raw), parsed.numberValue != nil { return raw }
        if let i = Int(raw) { return String(i) }
        return value.description
    }

    static func check(_ value: JSONValue, _ spec: ArgumentSpec, plugin: String, command: String) throws(UsageError) -> JSONValue {
        let label = "argument '\(spec.name)' of '\(plugin) \(command)'"
        switch spec.kind {
        case .string:
            guard value.stringValue != nil else { throw UsageError("\(label) must be a string, got \(value.kindName)") }
        case .integer:
            guard let n = value.numberValue else { throw UsageError("\(label) must be an integer, got \(value.kindName)") }
            guard let i = n.int else {
                throw UsageError("\(label) must be a whole number from \(Int.min) to \(Int.max), got \(n.description)")
            }
            return .int(i)
        case .number:
            guard let d = value.doubleValue, d.isFinite else { throw UsageError("\(label) must be a number, got \(value.kindName)") }
        case .flag:
            guard value.boolValue != nil else { throw UsageError("\(label) must be true or false, got \(value.kindName)") }
        case .path:
            guard let s = value.stringValue, !s.isEmpty else { throw UsageError("\(label) must be a path string") }
            return .string(s == "-" ? "-" : FileSystem.absolute(s))
        case .choice:
            guard let s = value.stringValue, spec.choices.contains(s) else {
                throw UsageError("\(label) must be one of \(spec.choices.joined(separator: ", "))")
            }
        case .list:
            if let s = value.stringValue { return try convert(s, spec, plugin: plugin, command: command) }
            guard let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                throw UsageError("\(label) must be an array of strings")
            }
        case .point:
            if let s = value.stringValue { return try convert(s, spec, plugin: plugin, command: command) }
            guard let a = value.arrayValue, a.count == 2, a.allSatisfy({ $0.doubleValue?.isFinite ?? false }) else {
                throw UsageError("\(label) must be [x, y]")
            }
        case .json:
            break
        }
        return value
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}

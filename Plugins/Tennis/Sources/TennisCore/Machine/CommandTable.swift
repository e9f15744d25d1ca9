// Zone × speed × spin → machine settings: the default table (a formula) or a site's calibrated table.

import ClubhouseJSON

/// A complete command table: one setting for every zone (16) × speed (7) × spin it offers.
public struct CommandTable: Sendable, Equatable {
    public static let format = "clubhouse.tennis.table/1"

    /// "default" or the name a site gave its table.
    public let name: String
    /// The spins this table covers, in `Spin.allCases` order.
    public let spins: [Spin]
    /// Settings indexed by `(zone · 7 + level) · 5 + spin.index`; nil where the table has no entry.
    private let settings: [MachineSettings?]
    /// Why an entry is missing (only the formula table can miss entries, see `formula(includeBackspin:)`).
    private let missing: [Int: String]

    public var isDefault: Bool { name == "default" }
    public var entryCount: Int { settings.lazy.compactMap { $0 }.count }

    private static func index(zone: Int, level: Int, spin: Spin) -> Int { (zone * 7 + level) * 5 + spin.index }

    /// The original table as a formula: upper = 50 + 10·(zone mod 4), lower = 50 + 10·(zone div 4),
    /// pitch = 30 + 5·level, yaw = 45 + 15·spin, feed 50 — 16 × 7 × 3 = 336 entries. With backspin
    /// (newer firmware) the formula gives yaw 90 for backspin but 105 for extreme backspin, which
    /// is out of range: those 112 entries are left out and must come from a calibrated table.
    public static func formula(includeBackspin: Bool = false) -> CommandTable {
        let spins = includeBackspin ? Spin.allCases : Spin.original
        var settings = [MachineSettings?](repeating: nil, count: 16 * 7 * 5)
        var missing: [Int: String] = [:]
        for zone in 0..<16 {
            for speed in BallSpeed.all {
                for spin in spins {
                    let i = index(zone: zone, level: speed.level, spin: spin)
                    let yaw = 45 + 15 * spin.index
                    do {
                        settings[i] = try MachineSettings(upperWheel: 50 + 10 * (zone % 4), lowerWheel: 50 + 10 * (zone / 4),
                                                          pitch: 30 + 5 * speed.level, yaw: yaw, feed: 50)
                    } catch {
                        missing[i] = "the default formula gives \(error.description.prefix { $0 != ";" }); a site's calibrated table must supply it"
                    }
                }
            }
        }
        return CommandTable(name: "default", spins: spins, settings: settings, missing: missing)
    }

    /// The setting for a zone, speed and spin.
    public func settings(zone: Int, speed: BallSpeed, spin: Spin) throws(CommandError) -> MachineSettings {
        guard (0..<CourtZones.count).contains(zone) else { throw .invalidZone(String(zone)) }
        guard spins.contains(spin) else { throw .spinNotInTable(spin, table: isDefault ? "default table" : "table \"\(name)\"") }
        let i = CommandTable.index(zone: zone, level: speed.level, spin: spin)
        guard let s = settings[i] else {
            throw .missingEntry(zone: zone, speed: speed.mph, spin: spin, reason: missing[i] ?? "the table has no entry")
        }
        return s
    }

    /// Every entry in zone, speed, spin order.
    public var entries: [TableEntry] {
        var out: [TableEntry] = []
        for zone in 0..<16 {
            for speed in BallSpeed.all {
                for spin in spins {
                    if let s = settings[CommandTable.index(zone: zone, level: speed.level, spin: spin)] {
                        out.append(TableEntry(zone: zone, speed: speed, spin: spin, settings: s))
                    }
                }
            }
        }
        return out
    }

    /// Entries the table cannot supply, with the reason.
    public var omissions: [String] {
        missing.keys.sorted().compactMap { i in
            let spin = Spin.allCases[i % 5], level = (i / 5) % 7, zone = i / 35
            return missing[i].map { "zone \(zone), \(20 + 10 * level) mph, \(spin.rawValue): \($0)" }
        }
    }

    /// The table as JSON in the calibrated-table format (a starting point for a site's own table).
    public var json: JSONValue {
        let rows: [JSONValue] = entries.map { e in
            ["zone": .int(e.zone), "speed": .int(e.speed.mph), "spin": .string(e.spin.rawValue),
             "upper": .int(Int(e.settings.upperWheel)), "lower": .int(Int(e.settings.lowerWheel)),
             "pitch": .int(Int(e.settings.pitch)), "yaw": .int(Int(e.settings.yaw)), "feed": .int(Int(e.settings.feed))]
        }
        return ["format": .string(CommandTable.format), "name": .string(name),
                "spins": .array(spins.map { .string($0.rawValue) }), "entries": .array(rows)]
    }

    // MARK: - Calibrated tables

    /// Parses and validates a site's table from JSON text. `file` names the source in error messages.
    public static func parse(_ text: String, file: String) throws(InputError) -> CommandTable {
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(text)
        } catch {
            throw InputError(file: file, location: error.location, message: error.message)
        }
        return try parse(JSONInput(document: document, file: file))
    }

    /// Validates a table already parsed (e.g. from a site's plugin configuration). `pointer` is where
    /// the table sits in `input`'s document.
    public static func parse(_ input: JSONInput, at pointer: String = "") throws(InputError) -> CommandTable {
        let root = try input.object(at: pointer)
        try input.rejectUnknownKeys(root, allowed: ["format", "name", "spins", "entries"], at: pointer)
        if let format = root["format"] {
            guard format.stringValue == CommandTable.format else {
                throw input.error(at: pointer + "/format", "format must be \"\(CommandTable.format)\"")
            }
        }
        let name = try input.string(at: pointer + "/name", in: root["name"], default: "calibrated")
        guard !name.isEmpty, name != "default" else {
            throw input.error(at: pointer + "/name", "name must be a non-empty name other than \"default\"")
        }
        var spins = Spin.original
        if let list = root["spins"] {
            guard let array = list.arrayValue else { throw input.error(at: pointer + "/spins", "spins must be an array of spin names") }
            var seen: [Spin] = []
            for (i, element) in array.enumerated() {
                let at = pointer + "/spins/\(i)"
                guard let text = element.stringValue, let spin = Spin(rawValue: text) else {
                    throw input.error(at: at, "\(element) is not a spin (flat, topspin, extreme-topspin, backspin, extreme-backspin)")
                }
                guard !seen.contains(spin) else { throw input.error(at: at, "spin \(spin.rawValue) is listed twice") }
                seen.append(spin)
            }
            for spin in Spin.original where !seen.contains(spin) {
                throw input.error(at: pointer + "/spins", "spins must include \(spin.rawValue) (a table covers at least flat, topspin and extreme-topspin)")
            }
            spins = Spin.allCases.filter { seen.contains($0) }
        }
        guard let entries = root["entries"] else { throw input.error(at: pointer, "missing \"entries\" (an array of table entries)") }
        guard let rows = entries.arrayValue else { throw input.error(at: pointer + "/entries", "entries must be an array") }
        var settings = [MachineSettings?](repeating: nil, count: 16 * 7 * 5)
        var origin: [Int: Int] = [:]
        let fields = ["zone", "speed", "spin", "upper", "lower", "pitch", "yaw", "feed"]
        for (i, row) in rows.enumerated() {
            let at = pointer + "/entries/\(i)"
            guard let object = row.objectValue else { throw input.error(at: at, "an entry must be an object with \(fields.joined(separator: ", "))") }
            try input.rejectUnknownKeys(object, allowed: fields, at: at)
            for key in fields where object[key] == nil { throw input.error(at: at, "entry is missing \"\(key)\"") }
            let zone = try input.integer(at: at + "/zone", in: 0...15, what: "zone")
            let mph = try input.integer(at: at + "/speed", in: 20...80, what: "speed (mph)")
            guard let speed = try? BallSpeed(mph: mph) else {
                throw input.error(at: at + "/speed", "speed \(mph) is not one of 20, 30, 40, 50, 60, 70, 80")
            }
            guard let spinName = object["spin"]?.stringValue, let spin = Spin(rawValue: spinName) else {
                throw input.error(at: at + "/spin", "spin must be one of flat, topspin, extreme-topspin, backspin, extreme-backspin")
            }
            guard spins.contains(spin) else {
                throw input.error(at: at + "/spin", "spin \(spin.rawValue) is not in the table's \"spins\"; add it there or remove the entry")
            }
            let upper = try input.integer(at: at + "/upper", in: MachineSettings.percentRange, what: "upper wheel (%)")
            let lower = try input.integer(at: at + "/lower", in: MachineSettings.percentRange, what: "lower wheel (%)")
            let pitch = try input.integer(at: at + "/pitch", in: MachineSettings.angleRange, what: "pitch (degrees)")
            let yaw = try input.integer(at: at + "/yaw", in: MachineSettings.angleRange, what: "yaw (degrees)")
            let feed = try input.integer(at: at + "/feed", in: MachineSettings.percentRange, what: "feed (%)")
            let index = CommandTable.index(zone: zone, level: speed.level, spin: spin)
            if let first = origin[index] {
                throw input.error(at: at, "duplicate entry for zone \(zone), \(mph) mph, \(spin.rawValue) (first at \(input.location(of: pointer + "/entries/\(first)")))")
            }
            origin[index] = i
            settings[index] = MachineSettings(unchecked: UInt8(upper), UInt8(lower), UInt8(pitch), UInt8(yaw), UInt8(feed))
        }
        var absent: [String] = []
        for zone in 0..<16 {
            for speed in BallSpeed.all {
                for spin in spins where settings[index(zone: zone, level: speed.level, spin: spin)] == nil {
                    absent.append("zone \(zone) \(speed.mph) mph \(spin.rawValue)")
                }
            }
        }
        if !absent.isEmpty {
            let shown = absent.prefix(3).joined(separator: "; ")
            let more = absent.count > 3 ? " and \(absent.count - 3) more" : ""
            throw input.error(at: pointer + "/entries",
                              "table is incomplete: \(absent.count) of \(16 * 7 * spins.count) zone × speed × spin entries missing (\(shown)\(more))")
        }
        return CommandTable(name: name, spins: spins, settings: settings, missing: [:])
    }
}

/// One row of a command table.
public struct TableEntry: Sendable, Equatable, Codable {
    public var zone: Int
    public var speed: BallSpeed
    public var spin: Spin
    public var settings: MachineSettings
}

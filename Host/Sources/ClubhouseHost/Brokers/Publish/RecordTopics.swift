// The catalogue's "records" (services/publish.h, ABI 1.4): the topics of the records a plugin
// publishes to the outbox, `[{"name": "round", "summary": "a finished round"}]`. Names follow the
// live events' grammar (1–64 lowercase letters, digits, '-' and '.').

import ClubhouseJSON
import ClubhouseLoader

enum RecordTopics {
    static func parse(_ declared: JSONValue?, problems: inout [String]) -> [EventTopic] {
        guard let declared else { return [] }
        guard let list = declared.arrayValue else {
            problems.append("\"records\" is \(declared.kindName); declare record topics as [{\"name\": \"round\", \"summary\": \"…\"}]")
            return []
        }
        var topics: [EventTopic] = []
        for (i, value) in list.enumerated() {
            guard let name = value["name"]?.stringValue else {
                problems.append("record topic #\(i + 1) has no \"name\" (\"records\": [{\"name\": \"round\", \"summary\": \"…\"}])")
                continue
            }
            if !EventTopic.isValidName(name) {
                problems.append("record topic '\(TerminalText.plain(name))': a topic name is 1–64 lowercase letters, digits, '-' and '.'")
            } else if topics.contains(where: { $0.name == name }) {
                problems.append("record topic '\(name)' is declared twice")
            } else {
                topics.append(EventTopic(name: name, summary: TerminalText.plain(value["summary"]?.stringValue ?? "")))
            }
        }
        return topics
    }
}

/// What a plugin brings back from its federation (`"pulls"` in the catalogue, ABI 1.4):
/// `[{"view": "scorecard.index_of_record", "command": "federation receive"}]` — `clubhouse federation
/// pull` reads every row of the view (its plugin's central SQL made it) and hands them, as a JSON array
/// in the argument "rows", to the command, which keeps them in one transaction.
public struct FederationPull: Sendable, Equatable {
    /// schema.view: lowercase letters, digits and '_'.
    public var view: String
    public var command: String

    static func isValidView(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { part in
            guard let first = part.utf8.first, (0x61...0x7A).contains(first) || first == 0x5F, part.utf8.count <= 63 else { return false }
            return part.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F }
        }
    }

    static func parse(_ declared: JSONValue?, commands: [CommandSpec], problems: inout [String]) -> [FederationPull] {
        guard let declared else { return [] }
        guard let list = declared.arrayValue else {
            problems.append("\"pulls\" is \(declared.kindName); declare [{\"view\": \"schema.view\", \"command\": \"federation receive\"}]")
            return []
        }
        var pulls: [FederationPull] = []
        for (i, value) in list.enumerated() {
            guard let view = value["view"]?.stringValue, let command = value["command"]?.stringValue else {
                problems.append("pull #\(i + 1) needs \"view\" and \"command\" ({\"view\": \"schema.view\", \"command\": \"federation receive\"})")
                continue
            }
            if !isValidView(view) {
                problems.append("pull #\(i + 1): view '\(TerminalText.plain(view))' must be schema.view in lowercase letters, digits and '_'")
            } else if !commands.contains(where: { $0.name == command }) {
                problems.append("pull #\(i + 1): command '\(TerminalText.plain(command))' is not one of the plugin's commands")
            } else {
                pulls.append(FederationPull(view: view, command: command))
            }
        }
        return pulls
    }
}

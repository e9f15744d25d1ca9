// The storage service in Swift: `notes add TEXT` and `notes list`, with the table made by migrations.
// Compiled with PluginKitTests so the page PluginSDK/docs/services/storage.md cannot drift.

import ClubhouseJSON
import PluginKit

// BEGIN EXAMPLE
final class NotesExample: Plugin {
    static let info = PluginInfo(id: "org.example.notes", version: "1.0.0", name: "Notes",
                                 summary: "Short notes kept in the site's database", services: [.storage])

    static let migrations = [
        Migration(version: 1, name: "notes", sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)"),
        Migration(version: 2, name: "notes created_at",
                  sql: "ALTER TABLE notes ADD COLUMN created_at TEXT NOT NULL DEFAULT (datetime('now'))"),
    ]

    static let commands: [Command<NotesExample>] = [
        Command("notes add", summary: "Add a note",
                arguments: [.string("text", help: "The note", required: true, positional: true)]) { plugin, call in
            let text = try call.arguments.string("text")
            try plugin.storage.run("INSERT INTO notes (text) VALUES (?)", [.text(text)])
            let id = Int(plugin.storage.lastInsertRowID)
            return Reply(data: .object(["id": .number(JSONNumber(id))]), text: "added note \(id)\n")
        },
        Command("notes list", summary: "List the notes") { plugin, _ in
            let rows = try plugin.storage.query("SELECT id, text FROM notes ORDER BY id")
            let notes: [JSONValue] = rows.map { row in
                .object(["id": .number(JSONNumber(row["id"].int ?? 0)), "text": .string(row["text"].string ?? "")])
            }
            let text = rows.map { "\($0["id"].int ?? 0)  \($0["text"].string ?? "")\n" }.joined()
            return Reply(data: .object(["notes": .array(notes)]), text: text)
        },
    ]

    let storage: Storage

    /// Refuses to start without the "storage" grant, and brings the schema up to date (each
    /// migration once, atomically, in version order).
    init(context: PluginContext) throws {
        storage = try context.storage()
        try storage.migrate(Self.migrations)
    }
}
// END EXAMPLE

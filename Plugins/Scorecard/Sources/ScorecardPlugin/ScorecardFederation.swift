// The scorecard in a federation of clubs: member ids on players (`player add --member`), the
// federation's Handicap Index of record received through `federation receive` (what `clubhouse
// federation pull` hands over from scorecard.index_of_record, in one transaction), and `player list`
// showing it beside the club's own index.

import ClubhouseJSON
import PluginKit
import ScorecardCore
#if canImport(Glibc)
import Glibc
#endif

extension Scorecard {
    static let pulls = [Pull(view: "scorecard.index_of_record", command: "federation receive")]

    /// Player id → member id.
    func members() throws -> [Int: String] {
        var members: [Int: String] = [:]
        for row in try store.storage.query("SELECT player_id, member_id FROM federation_members") {
            if let id = row["player_id"].int, let member = row["member_id"].string { members[id] = member }
        }
        return members
    }

    /// `player add … --member ID`: the player and their member id in one transaction.
    func addPlayer(_ call: Invocation, _ request: AddPlayerRequest, member: String?) throws -> Reply {
        if let member, let problem = FederationMembers.memberIDProblem(member) { throw ScorecardError.invalidMemberID(problem) }
        let (result, data): (PlayerAdded, JSONValue) = try store.transaction {
            let added = try ScorecardCommands(store: store, allowances: allowances).addPlayer(request)
            if let member {
                if let holder = try store.storage.queryOne(
                    "SELECT p.name FROM federation_members m JOIN players p ON p.id = m.player_id WHERE m.member_id = ?", [.text(member)]) {
                    throw ScorecardError.duplicateMember(member: member, player: holder["name"].string ?? "?")
                }
                try store.storage.run("INSERT INTO federation_members(player_id, member_id) VALUES (?, ?)",
                                      [SQLValue(added.player.id), .text(member)])
            }
            return (added, ScorecardJSON.value(added))
        }
        var out = data.objectValue ?? [:]
        if var player = out["player"]?.objectValue {
            player["member"] = member.map { .string($0) } ?? .null
            out["player"] = .object(player)
        }
        let text = result.text + (member.map { " (federation member \($0))" } ?? "")
        return Reply(data: .object(out), text: call.wantsMachineOutput ? nil : text + "\n")
    }

    /// `player list` with each player's member id and the federation's index of record.
    func listPlayers(_ call: Invocation) throws -> Reply {
        let list = try ScorecardCommands(store: store, allowances: allowances).listPlayers()
        let members = try members()
        var received: [String: (index: Tenths, scores: Int, clubs: String, federation: String)] = [:]
        struct Received: Decodable {
            var member_id: String, index_tenths: Int, scores: Int, clubs: String, federation: String
        }
        for row in try store.storage.query(Received.self, "SELECT member_id, index_tenths, scores, clubs, federation FROM federation_indexes") {
            received[row.member_id] = (Tenths(raw: row.index_tenths), row.scores, row.clubs, row.federation)
        }
        var players: [JSONValue] = []
        for (summary, value) in zip(list.players, list.players.map(\.jsonValue)) {
            var o = value.objectValue ?? [:]
            let member = members[summary.id]
            o["member"] = member.map { .string($0) } ?? .null
            if let member, let of = received[member] {
                o["federationIndex"] = ScorecardJSON.value(of.index)
                o["federationScores"] = .int(of.scores)
                o["federationClubs"] = .string(of.clubs)
            } else {
                o["federationIndex"] = .null
            }
            players.append(.object(o))
        }
        guard !call.wantsMachineOutput else { return Reply(data: ["players": .array(players)]) }
        if list.players.isEmpty || members.isEmpty { return Reply(data: ["players": .array(players)], text: list.text + "\n") }
        let rows = list.players.map { p -> [String] in
            let member = members[p.id]
            let of = member.flatMap { received[$0] }
            return ["\(p.id)", p.name, (p.index?.handicapNotation ?? "—") + (p.indexIsGiven ? " (given)" : ""), "\(p.finishedRounds)",
                    member ?? "—", of.map { "\($0.index.handicapNotation) (\($0.scores) scores: \($0.clubs))" } ?? "—"]
        }
        let text = TextTable(["id", "name", "index", "rounds", "member", "index of record"], rows).text
        return Reply(data: ["players": .array(players)], text: text + "\n")
    }

    /// `federation receive`: the federation's index of record, replacing what was received before, in
    /// one transaction; rows of members this club does not have are kept too (a member added later
    /// shows theirs at once).
    func receive(_ call: Invocation, rows: String, federation: String) throws -> Reply {
        let indexes = try FederationIndex.parse(rows: rows)
        let now = isoNow()
        let members = Set(try members().values)
        try store.transaction {
            try store.storage.run("DELETE FROM federation_indexes")
            for i in indexes {
                try store.storage.run("INSERT INTO federation_indexes(member_id, index_tenths, scores, clubs, federation, received_at) VALUES (?, ?, ?, ?, ?, ?)",
                                      [.text(i.member), SQLValue(i.index.raw), SQLValue(i.scores), .text(i.clubs), .text(federation), .text(now)])
            }
        }
        let ours = indexes.filter { members.contains($0.member) }.count
        return Reply(data: ["received": .int(indexes.count), "members": .int(ours)],
                     text: call.wantsMachineOutput ? nil : "received \(indexes.count) indexes of record (\(ours) of this club's members)\n")
    }
}

/// Now in UTC, ISO 8601 to the second.
func isoNow() -> String {
    var t = time(nil)
    var parts = tm()
    gmtime_r(&t, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
}

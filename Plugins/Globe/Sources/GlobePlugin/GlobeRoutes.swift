// The globe plugin's HTTP routes (under /api/globe/ on `clubhouse serve --http`), and voyage's
// daily-challenge reads as a compatibility mount (`"http": {"mount": {"globe": "/"}}` in plugins.json):
// `GET /rest/v1/daily_challenges?select=…&date=eq.YYYY-MM-DD` answered in PostgREST's shape (an array of
// rows of the `daily_challenges` table) by `postgrest daily_challenges` from the same schedule the CLI's
// `challenge` commands use. Field by field: shared/domain/front-door.md, Host/HTTP.md.

import ClubhouseJSON
import GlobeCore
import PluginKit

extension GlobePlugin {
    static let routes: [Route] = [
        .get("/countries", command: "list"),
        .get("/countries/{country}/highlights", command: "highlights"),
        .get("/countries/{country}/silhouette.svg", command: "silhouette", output: .file("svg", type: "image/svg+xml")),
        .post("/visits", command: "visit"),
        .delete("/visits/{country}", command: "unvisit"),
        .post("/wishes", command: "wish"),
        .delete("/wishes/{country}", command: "unwish"),
        .get("/stats", command: "stats"),
        .get("/where", command: "where", isPublic: true),
        .get("/map.svg", command: "map", output: .file("svg", type: "image/svg+xml")),
        .get("/challenge", command: "challenge show"),
        .get("/challenge/calendar", command: "challenge calendar"),
        .post("/challenge/guesses", command: "challenge guess"),

        // voyage's PostgREST reads, where the site mounts it.
        .get("/rest/v1/daily_challenges", command: "postgrest daily_challenges", mount: true),
    ]

    static let postgrestCommands: [Command<GlobePlugin>] = [
        Command("postgrest daily_challenges",
                summary: "voyage's daily_challenges table as PostgREST answers it: rows [{id, date, is_guess_country, is_guess_capital, is_guess_flag, answer, created_at, updated_at}]",
                help: """
                    The filters voyage's app sends, in PostgREST's syntax: --select * or a list of columns (date,answer),
                    --date eq.YYYY-MM-DD (also neq, gt, gte, lt, lte), --order date.asc or date.desc, --limit, --offset.
                    Only days up to today are rows: a future day's challenge stays locked.
                    """,
                arguments: PostgRESTArguments.self,
                reply: "[{id, date, is_guess_country, is_guess_capital, is_guess_flag, answer, created_at, updated_at}] (the columns --select names)") { plugin, a, call in
            try plugin.run(call) { globe in
                let query = try PostgRESTQuery(select: a.select, date: a.date, id: a.id, order: a.order, limit: a.limit, offset: a.offset)
                let rows = PostgRESTQuery.rows(globe.schedule, epoch: plugin.configuration.scheduleEpoch,
                                               seed: plugin.configuration.scheduleSeed, today: CivilDate.today())
                return Reply(data: .array(query.apply(rows)))
            }
        },
    ]
}

/// A PostgREST read of `daily_challenges`: the columns, filters, order and window voyage's app uses.
struct PostgRESTQuery {
    static let columns = ["id", "date", "is_guess_country", "is_guess_capital", "is_guess_flag", "answer", "created_at", "updated_at"]

    enum Operator: String { case eq, neq, gt, gte, lt, lte }

    var columns: [String]
    var dateFilter: (Operator, CivilDate)?
    var idFilter: (Operator, String)?
    var descending = false
    var limit: Int?
    var offset = 0

    init(select: String, date: String?, id: String?, order: String?, limit: String?, offset: String?) throws {
        if select == "*" {
            columns = Self.columns
        } else {
            columns = select.split(separator: ",", omittingEmptySubsequences: false).map { String($0) }
            for c in columns where !Self.columns.contains(c) {
                throw PluginError.invalidArgument("select: column '\(c)' does not exist in daily_challenges (columns: \(Self.columns.joined(separator: ", ")))")
            }
        }
        func filter(_ text: String, _ column: String) throws -> (Operator, String) {
            guard let dot = text.firstIndex(of: "."), let op = Operator(rawValue: String(text[..<dot])) else {
                throw PluginError.invalidArgument("\(column)=\(text): write OPERATOR.VALUE with eq, neq, gt, gte, lt or lte (eg: \(column)=eq.…)")
            }
            return (op, String(text[text.index(after: dot)...]))
        }
        if let date {
            let (op, value) = try filter(date, "date")
            do {
                dateFilter = (op, try CivilDate(parsing: value))
            } catch {
                throw PluginError.invalidArgument("date=\(date): \(error.description)")
            }
        }
        if let id { idFilter = try filter(id, "id") }
        switch order {
        case nil, "date", "date.asc": descending = false
        case "date.desc": descending = true
        case let other?: throw PluginError.invalidArgument("order=\(other): daily_challenges orders by date.asc or date.desc")
        }
        func count(_ text: String?, _ name: String) throws -> Int? {
            guard let text else { return nil }
            guard let n = Int(text), n >= 0 else { throw PluginError.invalidArgument("\(name)=\(text) must be a whole number ≥ 0") }
            return n
        }
        self.limit = try count(limit, "limit")
        self.offset = try count(offset, "offset") ?? 0
    }

    /// Every row up to today: the listed schedule's days, or the generated one's from its epoch (at most
    /// ten years back).
    static func rows(_ schedule: ChallengeSchedule, epoch: CivilDate, seed: UInt64, today: CivilDate) -> [(CivilDate, JSONObject)] {
        let start = max(today.adding(days: -3650), min(epoch, today))
        return schedule.challenges(from: start, days: today.dayNumber - start.dayNumber + 1).map { c in
            var row = JSONObject()
            row["id"] = .string(uuid(c.date, seed: seed))
            row["date"] = .string(c.date.description)
            row["is_guess_country"] = .bool(c.type == .country)
            row["is_guess_capital"] = .bool(c.type == .capital)
            row["is_guess_flag"] = .bool(c.type == .flag)
            row["answer"] = .string(c.answer)
            // PostgREST prints timestamptz as ISO 8601 with the offset.
            row["created_at"] = .string("\(c.date)T00:00:00+00:00")
            row["updated_at"] = .string("\(c.date)T00:00:00+00:00")
            return (c.date, row)
        }
    }

    /// A stable UUID for a day (version 8, "custom": the day and the schedule's seed through SplitMix64).
    static func uuid(_ date: CivilDate, seed: UInt64) -> String {
        func mix(_ x: UInt64) -> UInt64 {
            var z = x &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let a = mix(UInt64(bitPattern: Int64(date.dayNumber)) ^ seed)
        let b = mix(a ^ 0x5555_5555_5555_5555)
        let high = (a & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000
        let low = (b & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        func hex(_ v: UInt64, _ digits: Int) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: max(0, digits - s.count)) + s
        }
        let h = hex(high, 16), l = hex(low, 16)
        return "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.suffix(4))-\(l.prefix(4))-\(l.suffix(12))"
    }

    func apply(_ rows: [(CivilDate, JSONObject)]) -> [JSONValue] {
        func keep(_ op: Operator, _ order: Int) -> Bool {
            switch op {
            case .eq: return order == 0
            case .neq: return order != 0
            case .gt: return order > 0
            case .gte: return order >= 0
            case .lt: return order < 0
            case .lte: return order <= 0
            }
        }
        var selected = rows.filter { date, row in
            if let (op, value) = dateFilter, !keep(op, date.dayNumber - value.dayNumber) { return false }
            if let (op, value) = idFilter, let id = row["id"]?.stringValue {
                let order = id == value ? 0 : (id < value ? -1 : 1)
                if !keep(op, order) { return false }
            }
            return true
        }
        if descending { selected.reverse() }
        let window = selected.dropFirst(offset).prefix(limit ?? Int.max)
        return window.map { _, row in
            .object(JSONObject(columns.map { (key: $0, value: row[$0] ?? .null) }))
        }
    }
}

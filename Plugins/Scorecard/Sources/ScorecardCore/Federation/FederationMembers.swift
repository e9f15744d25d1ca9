// A club's golfers in a federation of clubs: each may carry a federation member id (the same id at
// every club they play), and the federation sends back each member's Handicap Index of record — the
// index computed centrally from every club's rounds (federation/postgresql/001_scoring_record.sql,
// WHS Rule 5.2) — which `player list` shows beside the club's own.

import ClubhouseJSON

public enum FederationMembers {
    /// Why `id` is not a member id, or nil: 1–32 letters, digits, '-' and '_' (eg: M-1001).
    public static func memberIDProblem(_ id: String) -> String? {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 32,
              bytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F })
        else {
            return "member id '\(id)' must be 1–32 letters, digits, '-' and '_' (the id the federation knows the golfer by, eg: M-1001)"
        }
        return nil
    }
}

/// One row of the federation's index of record.
public struct FederationIndex: Sendable, Equatable, Codable {
    public var member: String
    public var index: Tenths
    /// Scores in the record (at most the 20 most recent count).
    public var scores: Int
    /// The federation site ids whose rounds the counted differentials come from, eg: "club-a,club-b".
    public var clubs: String

    public init(member: String, index: Tenths, scores: Int, clubs: String) {
        self.member = member
        self.index = index
        self.scores = scores
        self.clubs = clubs
    }

    /// The rows `federation pull` hands over: a JSON array of {member, handicap_index, scores, clubs}.
    /// A row that is not one is an error naming it (nothing of a bad batch is kept).
    public static func parse(rows text: String) throws(ScorecardError) -> [FederationIndex] {
        let value: JSONValue
        do { value = try JSONParser.parse(text) } catch { throw .invalidFederationRows("the rows are not JSON (\(error))") }
        guard let list = value.arrayValue else { throw .invalidFederationRows("the rows are \(value.kindName), not an array") }
        var indexes: [FederationIndex] = []
        for (i, row) in list.enumerated() {
            guard let member = row["member"]?.stringValue, FederationMembers.memberIDProblem(member) == nil else {
                throw .invalidFederationRows("row \(i + 1) has no valid \"member\"")
            }
            let lexeme = row["handicap_index"]?.numberValue?.lexeme ?? row["handicap_index"]?.stringValue
            guard let lexeme, let tenths = Tenths.parse(lexeme), (-100...540).contains(tenths.raw) else {
                throw .invalidFederationRows("row \(i + 1) (member \(member)) has no Handicap Index between +10.0 and 54.0")
            }
            indexes.append(FederationIndex(member: member, index: tenths, scores: row["scores"]?.intValue ?? 0,
                                           clubs: row["clubs"]?.stringValue ?? ""))
        }
        return indexes
    }
}

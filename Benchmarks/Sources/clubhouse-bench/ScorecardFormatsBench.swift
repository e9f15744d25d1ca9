// Scorecard 1.1 benchmark: the leaderboard of a 144-player Stableford field with all 18 holes entered
// (`StablefordWorkload`), through `ScorecardCommands.leaderboard` exactly as `scorecard leaderboard` runs
// it (load the round, its card and the course, strokes by stroke index, points, sort, positions), then the
// reply's JSON value and text. Target (issue 17): <= 20 ms. Single thread.
// Usage: clubhouse-bench scorecard-formats [--players N] [--runs K]

import ClubhouseJSON
import ScorecardCore

func scorecardFormatsBench(_ arguments: [String]) {
    func option(_ name: String, _ fallback: Int) -> Int {
        guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let value = Int(arguments[i + 1]), value > 0 else {
            return fallback
        }
        return value
    }
    let players = option("--players", 144)
    let runs = option("--runs", 201)
    let store = InMemoryScorecardStore()
    let commands = ScorecardCommands(store: store)
    let round: Int
    do {
        round = try StablefordWorkload.fill(store, players: players)
    } catch {
        print("scorecard-formats: could not build the field: \(error)")
        return
    }
    var board: Leaderboard?
    let leaderboard = Measure.medianSeconds(samples: runs, warmup: 3) {
        board = try? commands.leaderboard(round)
    }
    guard let board, let lines = board.stableford else {
        print("scorecard-formats: the leaderboard failed")
        return
    }
    var bytes = 0
    let reply = Measure.medianSeconds(samples: runs, warmup: 3) {
        if let b = try? commands.leaderboard(round) { bytes = JSONWriter.compact(ScorecardJSON.value(b)).utf8.count + b.text.utf8.count }
    }
    let checksum = lines.reduce(0) { $0 &* 31 &+ ($1.points ?? 0) &* 1000 &+ $1.playerID }
    print("scorecard-formats: \(players) players × 18 holes Stableford; leader \(lines.first?.name ?? "—") \(lines.first?.points ?? 0) points; "
        + "checksum \(checksum); reply \(bytes) bytes (JSON + text)")
    print("scorecard-formats: leaderboard median \(Measure.format(leaderboard)) (target <= 20 ms)")
    print("scorecard-formats: leaderboard + JSON value + text median \(Measure.format(reply))")
}

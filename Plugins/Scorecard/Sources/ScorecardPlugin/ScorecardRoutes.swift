// The scorecard plugin's HTTP routes (under /api/scorecard/ on `clubhouse serve --http`): players,
// courses, rounds, a score or a correction entered from a phone, the live leaderboard.

import PluginKit

extension Scorecard {
    static let routes: [Route] = [
        .get("/players", command: "player list"),
        .post("/players", command: "player add"),
        .get("/players/{player}/index", command: "index"),
        .get("/courses", command: "course list"),
        .post("/courses", command: "course add", body: .file("file", types: ["application/json"])),
        .get("/courses/{course}", command: "course show"),
        .get("/rounds", command: "rounds"),
        .post("/rounds", command: "round start"),
        .post("/rounds/{round}/scores", command: "score"),
        .post("/rounds/{round}/corrections", command: "correct"),
        .get("/rounds/{round}/entries", command: "entries"),
        .get("/rounds/{round}/leaderboard", command: "leaderboard"),
        .post("/rounds/{round}/finish", command: "round finish"),
        .delete("/rounds/{round}", command: "round delete"),
    ]
}

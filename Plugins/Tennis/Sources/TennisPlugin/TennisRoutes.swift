// The tennis plugin's HTTP routes (under /api/tennis/ on `clubhouse serve --http`): the court's zones,
// a shot sent at once, drills (saved, shown, run), the stored sessions and the command table in use.

import PluginKit

extension Tennis {
    static let routes: [Route] = [
        .get("/zone", command: "zone"),
        .post("/send", command: "send"),
        .get("/drills", command: "drill list"),
        .post("/drills", command: "drill save", body: .file("file", types: ["application/json"])),
        .get("/drills/{drill}", command: "drill show"),
        .post("/drills/{drill}/run", command: "drill run"),
        .get("/sessions", command: "sessions"),
        // A drill started anywhere shows on every panel, and any of them stops it (issue 29).
        .get("/running", command: "running"),
        .post("/stop", command: "stop"),
        // The panel's speeds and spins: the site's command table (issue 29).
        .get("/table", command: "table show"),
    ]
}

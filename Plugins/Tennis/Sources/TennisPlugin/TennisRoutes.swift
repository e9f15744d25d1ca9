// The tennis plugin's HTTP routes (under /api/tennis/ on `clubhouse serve --http`): the court's zones,
// a shot sent at once, drills (saved, shown, run) and the stored sessions.

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
    ]
}

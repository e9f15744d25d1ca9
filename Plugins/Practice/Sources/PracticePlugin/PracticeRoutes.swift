// The practice plugin's HTTP routes (under /api/practice/ on `clubhouse serve --http`): a launch
// monitor's CSV imported from the request body (the host hands it to the plugin as a file through the
// files service), sessions, trends and dispersion (JSON, or the chart as SVG), and KPI templates.

import PluginKit

extension Practice {
    static let routes: [Route] = [
        .post("/sessions", command: "import", query: ["date", "location", "skip-bad-rows"],
              body: .file("csv", types: ["text/csv", "text/plain", "application/octet-stream"]), maxBody: 64 << 20),
        .get("/sessions", command: "sessions"),
        .get("/sessions/{id}", command: "session"),
        .delete("/sessions/{id}", command: "session delete"),
        .get("/trends", command: "trends"),
        .get("/trends.svg", command: "trends", output: .file("svg", type: "image/svg+xml")),
        .get("/dispersion", command: "dispersion"),
        .get("/dispersion.svg", command: "dispersion", output: .file("svg", type: "image/svg+xml")),
        .get("/distances", command: "distances"),
        .get("/templates", command: "template list"),
        .post("/templates", command: "template add", body: .file("file", types: ["application/json"])),
        .get("/templates/{template}", command: "template show"),
        .post("/templates/{template}/activate", command: "template activate"),
        .post("/templates/{template}/hide", command: "template hide"),
        .post("/templates/{template}/rename", command: "template rename"),
        .post("/templates/{template}/duplicate", command: "template duplicate"),
    ]
}

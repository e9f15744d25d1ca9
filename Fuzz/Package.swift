// swift-tools-version:6.0
// libFuzzer targets for Clubhouse's parsers, kept out of the root package's build and tests.
// Build and run them with Fuzz/run.sh (it passes -Xswiftc -sanitize=fuzzer,address). Each target is
// an executable with LLVMFuzzerTestOneInput and a main.swift that hands it to libFuzzer's driver:
// SwiftPM aliases main to the module's own entry, so libFuzzer's main cannot be used as is.
import PackageDescription

let package = Package(
    name: "ClubhouseFuzz",
    dependencies: [.package(name: "Clubhouse", path: "..")],
    targets: [
        .target(name: "CFuzzDriver"),
        // ClubhouseJSON: strict parser, writer round trip, location table.
        .executableTarget(name: "fuzz-json", dependencies: ["CFuzzDriver", .product(name: "ClubhouseJSON", package: "Clubhouse")]),
        // plugins.json: ConfigurationParser.parse and every error message it builds.
        .executableTarget(name: "fuzz-config", dependencies: ["CFuzzDriver", .product(name: "ClubhouseHost", package: "Clubhouse"),
                                                              .product(name: "ClubhouseLoader", package: "Clubhouse")]),
        // GeoJSON: GeoJSONReader.read, the triangulation report and CountrySet(geojson:).
        .executableTarget(name: "fuzz-geojson", dependencies: ["CFuzzDriver", .product(name: "GlobeCore", package: "Clubhouse")]),
        // Protocol v0.3: hex text and byte-level decoders of the tennis plugin.
        .executableTarget(name: "fuzz-frame", dependencies: ["CFuzzDriver", .product(name: "TennisCore", package: "Clubhouse")]),
        // The ball-machine simulator's machine (TennisCore's MachineSimulation) fed arbitrary byte streams in arbitrary chunks.
        .executableTarget(name: "fuzz-ballmachine", dependencies: ["CFuzzDriver", .product(name: "TennisCore", package: "Clubhouse")]),
        // Practice: canonical JSON (one-pass writer against the tree writer, both profiles).
        .executableTarget(name: "fuzz-canonical", dependencies: ["CFuzzDriver", .product(name: "PracticeCore", package: "Clubhouse"),
                                                                 .product(name: "ClubhouseJSON", package: "Clubhouse"),
                                                                 .product(name: "ClubhouseHashing", package: "Clubhouse")]),
        // serve --http: the request parser fed a connection's bytes in arbitrary chunks, target decoding, routes, binding.
        .executableTarget(name: "fuzz-http", dependencies: ["CFuzzDriver", .product(name: "ClubhouseFrontEnds", package: "Clubhouse"),
                                                            .product(name: "ClubhouseHost", package: "Clubhouse"),
                                                            .product(name: "ClubhouseJSON", package: "Clubhouse")]),
        // Practice: Rapsodo MLM2PRO CSV reader and the whole import into an in-memory store.
        .executableTarget(name: "fuzz-rapsodo", dependencies: ["CFuzzDriver", .product(name: "PracticeCore", package: "Clubhouse")]),
        // Practice and scorecard: stored rows with extreme values (any REAL, any unconstrained INTEGER)
        // through the read paths of every read command (issue 30).
        .executableTarget(name: "fuzz-stored-rows", dependencies: ["CFuzzDriver", .product(name: "PracticeCore", package: "Clubhouse"),
                                                                   .product(name: "ScorecardCore", package: "Clubhouse"),
                                                                   .product(name: "ClubhouseJSON", package: "Clubhouse")]),
    ],
    swiftLanguageModes: [.v6]
)

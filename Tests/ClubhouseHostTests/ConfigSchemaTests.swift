// A plugin's config schema (Configuration/ConfigSchema.swift): the subset it reads, every message
// it gives for a value that does not fit, and the place in plugins.json it names.

import ClubhouseJSON
import XCTest
@testable import ClubhouseHost

final class ConfigSchemaTests: XCTestCase {
    func schema(_ json: String) throws -> ConfigSchema {
        switch ConfigSchema.parse(try JSONParser.parse(json)) {
        case .success(let s): return s
        case .failure(let e): XCTFail("\(e)"); throw e
        }
    }

    func messages(_ s: ConfigSchema, _ value: String) throws -> [String] {
        s.validate(try JSONParser.parse(value)).map(\.message)
    }

    let putting = """
        {"type": "object", "additionalProperties": false, "required": ["device"],
         "properties": {
           "device": {"type": "string"},
           "stimp": {"type": "number", "minimum": 4, "maximum": 16, "default": 10},
           "model": {"enum": ["physics", "compat"]},
           "attempts": {"type": "integer"},
           "seed": {"type": ["integer", "null"]},
           "zones": {"type": "array", "items": {"type": "integer", "minimum": 1}},
           "physics": {"type": "object", "additionalProperties": {"type": "number"}}
         }}
        """

    func testEveryMisfitIsSaidWithItsKey() throws {
        let s = try schema(putting)
        XCTAssertEqual(try messages(s, #"{"device": "m", "stimp": 11.5, "model": "compat", "attempts": 2.0, "seed": null, "zones": [1, 2], "physics": {"friction": 0.1}}"#), [])
        XCTAssertEqual(try messages(s, #"{"device": "m", "stimp": 20}"#), [#"config "stimp" must be at most 16, not 20"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "stimp": 3.5}"#), [#"config "stimp" must be at least 4, not 3.5"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "stimp": "fast"}"#), [#"config "stimp" must be a number, not a string ("fast")"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "model": "fast"}"#), [#"config "model" must be one of "physics", "compat", not "fast""#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "attempts": 2.5}"#), [#"config "attempts" must be an integer, not a number (2.5)"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "seed": "x"}"#), [#"config "seed" must be an integer or null, not a string ("x")"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "zones": [1, 0]}"#), [#"config "zones[1]" must be at least 1, not 0"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "physics": {"friction": "low"}}"#), [#"config "physics.friction" must be a number, not a string ("low")"#])
        XCTAssertEqual(try messages(s, #"{"stimp": 11}"#), [#"config lacks "device", which the plugin requires"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "stmp": 11}"#), [#"config "stmp" is not a setting of this plugin; did you mean "stimp"?"#])
        XCTAssertEqual(try messages(s, #"{"device": "m", "colour": "red"}"#),
                       [#"config "colour" is not a setting of this plugin (it takes device, stimp, model, attempts, seed, zones, physics)"#])
        XCTAssertEqual(try messages(s, #"[1]"#), ["config must be an object, not an array ([1])"])
        let none = try schema(#"{"type": "object", "additionalProperties": false, "properties": {}}"#)
        XCTAssertEqual(try messages(none, #"{"x": 1}"#), [#"config "x" is not a setting of this plugin (it takes none)"#])
        // Every problem, not only the first, with where each is.
        XCTAssertEqual(s.validate(try JSONParser.parse(#"{"stimp": 30, "model": 1}"#)).map(\.pointer), ["", "/stimp", "/model"])
        let long = String(repeating: "x", count: 80)
        XCTAssertEqual(try messages(s, #"{"device": "m", "model": "\#(long)"}"#),
                       [#"config "model" must be one of "physics", "compat", not ""# + String(long.prefix(56)) + "..."])
    }

    func testASchemaOutsideTheSubsetIsRefusedWhereItIsWrong() throws {
        func problems(_ json: String) throws -> [String] {
            switch ConfigSchema.parse(try JSONParser.parse(json)) {
            case .success: return []
            case .failure(let e): return e.problems
            }
        }
        XCTAssertEqual(try problems(#"{"type": "object", "properties": {"code": {"type": "string", "pattern": "^A"}}}"#),
                       ["config_schema.properties.code: keyword 'pattern' is not in the subset the host checks (type, properties, required, additionalProperties, enum, minimum, maximum, items, default, description, title); leave it out or check it in create"])
        XCTAssertEqual(try problems(#"{"type": "text"}"#),
                       [#"config_schema.type must be one of object, array, string, number, integer, boolean, null or a list of them, not "text""#])
        XCTAssertEqual(try problems(#"{"properties": []}"#), ["config_schema.properties must be an object of schemas, not an array"])
        XCTAssertEqual(try problems(#"{"required": "a"}"#), ["config_schema.required must be an array of member names"])
        XCTAssertEqual(try problems(#"{"enum": []}"#), ["config_schema.enum must be a non-empty array of the allowed values"])
        XCTAssertEqual(try problems(#"{"minimum": "1"}"#), ["config_schema.minimum must be a number, not a string"])
        XCTAssertEqual(try problems(#"{"description": 5}"#), ["config_schema.description must be a string"])
        XCTAssertEqual(try problems(#"{"items": 5}"#), ["config_schema.items must be a JSON Schema object, not an integer"])
        XCTAssertEqual(try problems(#"{"type": "integer", "maximum": 5, "default": 9}"#),
                       ["config_schema.default 9 does not fit its own schema: config must be at most 5, not 9"])
    }

    func testTheRefusalNamesTheValuesPlaceInTheFile() throws {
        let text = """
            {"sites": {"club": {"plugins": {
              "putting": {"id": "org.clubhouse.putting",
                          "config": {"device": "m", "stimp": 30}}
            }}}}
            """
        // The file is read again for the place (only when there is a problem).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-schema-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try text.write(to: folder.appendingPathComponent("club.json"), atomically: true, encoding: .utf8)
        let onDisk = try ConfigurationParser.parse(text, source: "club.json", baseDirectory: folder.path)
        let entry = try XCTUnwrap(onDisk.sites["club"]?.plugin(alias: "putting"))
        let refusal = ConfigSchemaLocation.refusal(try schema(putting), configuration: onDisk, site: "club", entry: entry)
        XCTAssertEqual(refusal, #"club.json:3:50: site 'club': plugin 'putting': config "stimp" must be at most 16, not 30, as the plugin's config schema says; fix it in club.json"#)
        XCTAssertNil(ConfigSchemaLocation.refusal(nil, configuration: onDisk, site: "club", entry: entry))
        XCTAssertEqual(ConfigSchema.describe("/a~1b/0/c~0d"), #"config "a/b[0].c~d""#)
    }
}

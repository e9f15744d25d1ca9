import ClubhouseJSON
import ClubhousePlatform
import XCTest
@testable import ClubhouseHost
@testable import ClubhouseWire

final class ConfigurationParserTests: XCTestCase {
    private func parse(_ text: String) throws -> SiteConfiguration {
        try ConfigurationParser.parse(text, source: "p.json", baseDirectory: "/etc/clubhouse")
    }

    private func problems(_ text: String) -> [String] {
        do {
            _ = try ConfigurationParser.parse(text, source: "p.json", baseDirectory: nil)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    /// The problems of `text`, in order, each beginning with its expected text.
    private func assertProblems(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        let found = problems(text)
        XCTAssertEqual(found.count, expected.count, found.joined(separator: "\n"), file: file, line: line)
        for (f, e) in zip(found, expected) { XCTAssertTrue(f.hasPrefix(e), "\(f)\n  expected prefix: \(e)", file: file, line: line) }
    }

    func testTheBundledFileParses() throws {
        let c = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "plugins.json", baseDirectory: nil)
        XCTAssertEqual(c.defaultSite, "default")
        XCTAssertEqual(c.siteOrder, ["default", "presidio-golf-club", "riverside-tennis-academy", "courtside"])
        let site = try c.site(named: "default")
        XCTAssertEqual(site.plugins.map(\.alias), ["putting", "globe", "tennis", "practice", "scorecard", "notes", "greeter"])
        XCTAssertTrue(site.plugin(alias: "tennis")?.isGranted(.device("ballmachine")) ?? false)
        XCTAssertEqual(site.devices["ballmachine"]?.transport, .simulator(kind: "ballmachine"))
        let academy = try c.site(named: "riverside-tennis-academy")
        XCTAssertEqual(academy.devices["ballmachine"]?.transport,
                       .serial(port: "/dev/ttyUSB0", baud: 115200, parity: .none, dataBits: 8, stopBits: 1))
        XCTAssertEqual(try c.site(named: "presidio-golf-club").plugin(alias: "tennis")?.enabled, false)
    }

    func testEmbeddedCopiesMatchTheFiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let plugins = try String(contentsOf: root.appendingPathComponent("plugins.json"), encoding: .utf8)
        let schema = try String(contentsOf: root.appendingPathComponent("PluginSDK/plugins.schema.json"), encoding: .utf8)
        XCTAssertEqual(EmbeddedDefaults.pluginsJSON + "\n", plugins, "plugins.json changed: run Host/Scripts/embed-defaults.sh")
        XCTAssertEqual(EmbeddedDefaults.schemaJSON + "\n", schema, "plugins.schema.json changed: run Host/Scripts/embed-defaults.sh")
        _ = try JSONParser.parse(schema)
    }

    /// A command on one site reads that site of the embedded copy alone: each site, and the default one, comes
    /// out as the whole read gives it (every field, its entries' locations), and the other sites are named only.
    func testOneSiteOfTheBundledFileReadsAsTheWholeFileDoes() throws {
        let whole = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "plugins.json", baseDirectory: nil)
        for name in [nil] + whole.siteOrder.map(Optional.some) {
            let one = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "plugins.json", baseDirectory: nil,
                                                    onlySite: name)
            let kept = name ?? whole.defaultSite
            XCTAssertEqual(one.siteOrder, whole.siteOrder)
            XCTAssertEqual(one.defaultSite, whole.defaultSite)
            XCTAssertEqual(Array(one.sites.keys), [kept])
            XCTAssertEqual(String(describing: try one.site(named: kept)), String(describing: try whole.site(named: kept)))
            XCTAssertEqual(try one.site(named: kept).plugins.map(\.location), try whole.site(named: kept).plugins.map(\.location))
            XCTAssertEqual(one.pluginDirectories, whole.pluginDirectories)
            XCTAssertEqual(one.publishers, whole.publishers)
        }
        let none = try ConfigurationParser.parse(EmbeddedDefaults.pluginsJSON, source: "plugins.json", baseDirectory: nil,
                                                 onlySite: "nowhere")
        XCTAssertTrue(none.sites.isEmpty)
        XCTAssertThrowsError(try none.site(named: "nowhere")) { error in
            XCTAssertEqual((error as? ConfigurationError)?.message,
                           "no site 'nowhere'; sites are: default, presidio-golf-club, riverside-tennis-academy, courtside")
        }
    }

    /// What reading one site leaves out, and what it still finds: the kept site's and the top level's problems, the
    /// other sites' names and well-formedness; not a problem inside another site (which is why only the embedded copy,
    /// read whole by testTheBundledFileParses, is read that way). No default_site and no site named: the whole text.
    func testOneSiteReadFindsItsOwnProblemsAndTheOtherSitesNames() throws {
        let text = """
        {"default_site": "a", "sites": {
          "a": {"plugins": {"p": {"id": "x.y", "version": "soon"}}},
          "b": {"plugins": {"q": {"id": 5}}},
          "Bad": {"plugins": {}}
        }}
        """
        func oneSite(_ site: String?) -> [String] {
            do {
                _ = try ConfigurationParser.parse(text, source: "p.json", baseDirectory: nil, onlySite: site)
                return []
            } catch {
                return error.errors.map(\.description)
            }
        }
        XCTAssertEqual(self.problems(text).count, 3, self.problems(text).joined(separator: "\n"))
        let forA = oneSite(nil)
        XCTAssertEqual(forA.count, 2, forA.joined(separator: "\n"))
        XCTAssertTrue(forA[0].hasPrefix("p.json:2:") && forA[0].contains("soon"), forA[0])
        XCTAssertTrue(forA[1].hasPrefix("p.json:4:3: ") && forA[1].contains("site name"), forA[1])
        XCTAssertEqual(oneSite("b").count, 2, "b's own problem and the bad name")
        XCTAssertEqual(oneSite("c").count, 1, "the bad name only")
        let broken = "{\"default_site\": \"a\", \"sites\": {\"a\": {\"plugins\": {}}, \"b\": {\"plugins\": {\"q\": [1,]}}}}"
        do {
            _ = try ConfigurationParser.parse(broken, source: "p.json", baseDirectory: nil, onlySite: "a")
            XCTFail("a malformed other site is refused")
        } catch {
            XCTAssertEqual(error.errors.map(\.description), self.problems(broken))
        }
        let lateDefault = "{\"sites\": {\"a\": {\"plugins\": {}}, \"b\": {\"plugins\": {\"q\": {\"id\": 5}}}}, \"default_site\": \"a\"}"
        XCTAssertEqual(oneSite(nil), oneSite("a"))
        XCTAssertEqual(ConfigurationParserTests.oneSiteProblems(lateDefault, nil), self.problems(lateDefault),
                       "default_site after the sites: the whole text is read")
        let noDefault = "{\"sites\": {\"a\": {\"plugins\": {}}, \"b\": {\"plugins\": {\"q\": {\"id\": 5}}}}}"
        XCTAssertEqual(self.problems(noDefault).count, 1)
        do {
            _ = try ConfigurationParser.parse(noDefault, source: "p.json", baseDirectory: nil, onlySite: nil)
            XCTFail("without default_site the whole text is read")
        } catch {
            XCTAssertEqual(error.errors.map(\.description), self.problems(noDefault))
        }
    }

    private static func oneSiteProblems(_ text: String, _ site: String?) -> [String] {
        do {
            _ = try ConfigurationParser.parse(text, source: "p.json", baseDirectory: nil, onlySite: site)
            return []
        } catch {
            return error.errors.map(\.description)
        }
    }

    func testEveryProblemIsReportedWithItsPosition() {
        let text = """
        {"sites": {"a": {
          "devices": {"bm": {"transport": "tcp:nohost"}, "s": {"transport": "serial:/dev/x", "baud": 12345}},
          "plugins": {
            "Bad Name": {"id": "x.y"},
            "p": {"id": 5, "version": "soon", "isolation": "sandbax", "grants": ["device:nope", "fly"], "config": []},
            "q": {}
          }
        }}, "default_site": "b"}
        """
        assertProblems(text, [
            "p.json:2:35: tcp transport 'tcp:nohost' needs HOST:PORT",
            "p.json:2:94: baud 12345 is not a standard rate",
            "p.json:4:5: plugin name 'Bad Name' must be a lowercase letter, then lowercase letters",
            "p.json:5:17: \"id\" must be a string, not an integer",
            "p.json:5:31: version requirement 'soon' is not valid",
            "p.json:5:52: isolation 'sandbax' must be \"auto\", \"in-process\", \"process\" or \"sandbox\"",
            "p.json:5:74: grant 'device:nope' names a device this site does not define",
            "p.json:5:89: unknown grant 'fly'",
            "p.json:5:107: \"config\" must be an object, not an array",
            "p.json:6:10: plugin 'q' needs an \"id\"",
            "p.json:8:21: default_site 'b' is not one of the sites (a)",
        ])
    }

    /// `"http"`: the origins a site lets call it from a browser (CORS, and the cookie's Origin check)
    /// and whether plugin-declared public routes are open.
    func testTheHTTPSettingsOfASite() throws {
        let c = try parse(#"""
            {"sites": {"a": {"plugins": {}, "http": {"allowed_origins": ["https://App.Example.org/", "http://localhost:5173", "https://app.example.org:443"],
                                                    "public_routes": true}},
                       "b": {"plugins": {}}}}
            """#)
        XCTAssertEqual(try c.site(named: "a").http, SiteHTTP(allowedOrigins: ["https://app.example.org", "http://localhost:5173"], publicRoutes: true))
        XCTAssertEqual(try c.site(named: "b").http, SiteHTTP(), "CORS off and public routes closed unless a site says so")
        let text = """
        {"sites": {"a": {"plugins": {}, "http": {
          "allowed_origin": [],
          "allowed_origins": ["*", "https://app.example.org/path", "ftp://x", 7, "http://h:99999"],
          "public_routes": "yes"}},
         "b": {"plugins": {}, "http": []}}}
        """
        assertProblems(text, [
            "p.json:2:3: unknown key 'allowed_origin' in \"http\" of site 'a'; did you mean 'allowed_origins'?",
            "p.json:3:23: \"*\" is not allowed in \"allowed_origins\": list each origin whose pages may call the site, eg: \"https://app.example.org\"",
            "p.json:3:28: origin 'https://app.example.org/path' must be a scheme and host with an optional port and nothing after, eg: \"https://app.example.org\" or \"http://localhost:5173\"",
            "p.json:3:60: origin 'ftp://x' must be a scheme and host",
            "p.json:3:71: each entry of \"allowed_origins\" must be a string, not an integer",
            "p.json:3:74: origin 'http://h:99999' must be a scheme and host",
            "p.json:4:20: \"public_routes\" must be true or false, not a string",
            "p.json:5:31: \"http\" must be an object, not an array",
        ])
    }

    /// Issue 27: one grammar for site names, plugin names and ids, checked where the file is read,
    /// each problem at its file:line:column. A site named `..` would have put its databases
    /// outside the data directory (`<data>/../<id>.sqlite`).
    func testSiteNamesAliasesAndIdsFollowOneGrammar() {
        let text = """
        {"default_site": "../x", "sites": {
          "..": {"plugins": {}},
          "../elsewhere": {"plugins": {"notes": {"id": "org.example.notes"}}},
          "Club_A": {"plugins": {"Notes": {"id": "x"}}},
          "ok": {"plugins": {
            "a": {"id": "org.example.../../x"},
            "b": {"id": "org.\(String(repeating: "a", count: 64))"},
            "c": {"id": "org.\(String(repeating: "abcdefgh.", count: 14))z"},
            "\(String(repeating: "d", count: 65))": {"id": "org.example.d"},
            "e": {"id": "org.example.e"}
          }}
        }}
        """
        let expected = [
            "p.json:1:18: default_site '../x' must be a lowercase letter, then lowercase letters, digits and '-', at most 64 characters",
            "p.json:2:3: site name '..' must be a lowercase letter",
            "p.json:3:3: site name '../elsewhere' must be a lowercase letter",
            "p.json:4:3: site name 'Club_A' must be a lowercase letter",
            "p.json:4:26: plugin name 'Notes' must be a lowercase letter",
            "p.json:6:17: id 'org.example.../../x' is not reverse-DNS",
            "p.json:7:17: id 'org.aaaa",
            "p.json:8:17: id 'org.abcdefgh.",
            "p.json:9:5: plugin name 'ddddd",
        ]
        let found = problems(text)
        XCTAssertEqual(found.count, expected.count, found.joined(separator: "\n"))
        for (f, e) in zip(found, expected) { XCTAssertTrue(f.hasPrefix(e), "\(f)\n  expected prefix: \(e)") }
        XCTAssertTrue(found[6].contains("has a label of 64 characters"), found[6])
        XCTAssertTrue(found[7].contains("131 characters long; an id has at most 128"), found[7])
        XCTAssertTrue(found[8].contains("65 characters long"), found[8])
        // The longest names the grammar allows are taken.
        let longest = String(repeating: "s", count: 64)
        XCTAssertNoThrow(try parse(#"{"sites": {"\#(longest)": {"plugins": {"\#(longest)": {"id": "org.\#(String(repeating: "a", count: 63)).b"}}}}}"#))
    }

    /// Every key of "limits" the parser reads is in the shipped schema, with the same range and default.
    func testTheSchemaListsEveryLimitWithItsRangeAndDefault() throws {
        let schema = try JSONParser.parse(EmbeddedDefaults.schemaJSON)
        let limits = try XCTUnwrap(schema["$defs"]?["plugin"]?["properties"]?["limits"]?["properties"]?.objectValue)
        XCTAssertEqual(Set(limits.keys), Set(ConfigurationParser.limitKeys))
        let d = PluginLimits()
        let expected: [String: (ClosedRange<Int>, Int)] = [
            "memory_mb": (PluginLimits.memoryRange, d.memoryMegabytes), "cpu_seconds": (PluginLimits.cpuRange, d.cpuSeconds),
            "wall_ms": (PluginLimits.wallRange, d.wallMilliseconds), "open_files": (PluginLimits.openFilesRange, d.openFiles),
            "open_statements": (PluginLimits.openStatementsRange, d.openStatements),
            "statement_mb": (PluginLimits.statementRange, d.statementMegabytes), "sql_kb": (PluginLimits.sqlRange, d.sqlKilobytes),
            "bind_mb": (PluginLimits.bindRange, d.bindMegabytes), "reply_mb": (PluginLimits.replyRange, d.replyMegabytes),
            "log_kb": (PluginLimits.logRange, d.logKilobytes), "progress_kb": (PluginLimits.progressRange, d.progressKilobytes),
            "open_devices": (PluginLimits.openDevicesRange, d.openDevices),
            "restart_backoff_ms": (PluginLimits.restartBackoffRange, d.restartBackoffMilliseconds),
        ]
        for (key, (range, value)) in expected {
            XCTAssertEqual(limits[key]?["minimum"]?.intValue, range.lowerBound, key)
            XCTAssertEqual(limits[key]?["maximum"]?.intValue, range.upperBound, key)
            XCTAssertEqual(limits[key]?["default"]?.intValue, value, key)
        }
        // And the host's defaults are what ServiceLimits holds for a plugin without "limits".
        XCTAssertEqual(ServiceLimits(PluginLimits()), ServiceLimits())
    }

    /// `isolation: "sandbox"` is a level of its own (a runner confined by the kernel).
    func testSandboxIsolationParses() throws {
        let c = try parse(#"{"sites": {"a": {"plugins": {"p": {"id": "org.x.p", "isolation": "sandbox"}}}}}"#)
        XCTAssertEqual(try c.site(named: "a").plugin(alias: "p")?.isolation, .sandbox)
    }

    /// `net:HOST:PORT` grants TCP connect to a sandboxed plugin; a grant without a valid port is refused.
    func testNetGrants() throws {
        let c = try parse(#"{"sites": {"a": {"plugins": {"p": {"id": "org.x.p", "isolation": "sandbox", "grants": ["net:127.0.0.1:5432", "net:db.example.org:443"]}}}}}"#)
        let grants = try c.site(named: "a").plugin(alias: "p")?.grants ?? []
        XCTAssertEqual(grants, [.net(host: "127.0.0.1", port: 5432), .net(host: "db.example.org", port: 443)])
        XCTAssertEqual(grants.map(\.description), ["net:127.0.0.1:5432", "net:db.example.org:443"])
        XCTAssertEqual(SiteRuntime.grantedPorts(try XCTUnwrap(c.site(named: "a").plugin(alias: "p"))), [5432, 443])
        for bad in ["net:host", "net:host:0", "net:host:65536", "net::80", "net:host:http"] {
            XCTAssertEqual(problems(#"{"sites": {"a": {"plugins": {"p": {"id": "org.x.p", "grants": ["\#(bad)"]}}}}}"#),
                           ["p.json:1:64: grant '\(bad)' needs HOST:PORT with a port from 1 to 65535, eg: \"net:127.0.0.1:5432\""])
        }
    }

    func testFederationBackgroundPushSettingsAreReadAndBounded() throws {
        let site = #"{"sites": {"a": {"plugins": {}, "federation": {"url": "postgresql://club_a@db.example.org/fed", "site_id": "club-a"%@}}}}"#
        let defaults = try XCTUnwrap(try parse(site.replacingOccurrences(of: "%@", with: "")).site(named: "a").federation)
        XCTAssertEqual([defaults.pushEverySeconds, defaults.retryMaxSeconds], [60, 300])
        let set = try XCTUnwrap(try parse(site.replacingOccurrences(of: "%@", with: #", "push_every_seconds": 5, "retry_max_seconds": 30"#))
            .site(named: "a").federation)
        XCTAssertEqual([set.pushEverySeconds, set.retryMaxSeconds], [5, 30])
        let wrong = problems(site.replacingOccurrences(of: "%@", with: #", "retry_max_seconds": 0"#))
        XCTAssertEqual(wrong.count, 1, "\(wrong)")
        XCTAssertTrue(wrong.first?.contains("\"retry_max_seconds\"") ?? false, "\(wrong)")
        // psql's timeouts (a server that takes the connection and never answers): 10 s to connect, 60 s a step.
        XCTAssertEqual([defaults.connectTimeoutSeconds, defaults.stepTimeoutSeconds], [10, 60])
        let timeouts = try XCTUnwrap(try parse(site.replacingOccurrences(of: "%@", with: #", "connect_timeout_seconds": 3, "step_timeout_seconds": 600"#))
            .site(named: "a").federation)
        XCTAssertEqual([timeouts.connectTimeoutSeconds, timeouts.stepTimeoutSeconds], [3, 600])
        for bad in [#""connect_timeout_seconds": 1"#, #""step_timeout_seconds": 0"#] {
            let said = problems(site.replacingOccurrences(of: "%@", with: ", " + bad))
            XCTAssertEqual(said.count, 1, "\(said)")
            XCTAssertTrue(said.first?.contains(String(bad.prefix { $0 != ":" })) ?? false, "\(said)")
        }
    }

    // The fourth outside attack (b27): `?pass%77ord=…` passed the check, and psql used the password,
    // printed it in its argv and in every push line. Every spelling is refused where plugins.json is read.
    func testAFederationURLCarriesNoPasswordWhateverItsSpelling() throws {
        let site = #"{"sites": {"a": {"plugins": {}, "federation": {"url": "%@", "site_id": "club-a"}}}}"#
        for url in ["postgresql://u:pw@db/fed", "postgresql://u@db/fed?password=pw", "postgresql://u@db/fed?PASSWORD=pw",
                    "postgresql://u@db/fed?pass%77ord=pw", "postgresql://u@db/fed?%70%61%73%73%77%6F%72%64=pw",
                    "postgresql://u@db/fed?sslmode=require&Pass%57ord=pw", "postgresql://u@db/fed?sslpassword=pw",
                    "postgresql://u@db/fed?dbname=fed%20password%3Dpw"] {
            let found = problems(site.replacingOccurrences(of: "%@", with: url))
            XCTAssertEqual(found.count, 1, "\(url): \(found)")
            XCTAssertTrue(found.first?.contains("credentials never go in plugins.json") ?? false, "\(url): \(found)")
        }
        for url in ["postgresql://u@db/fed?sslmode=verify-full", "postgresql://u@db/fed?application_name=club%20a"] {
            XCTAssertEqual(problems(site.replacingOccurrences(of: "%@", with: url)), [], url)
        }
    }

    // An earlier attack round: a keyword-form url (`host=… password=…`) was refused, but the message
    // repeated it, password included. Refused still, and nothing of its value is repeated.
    func testAKeywordFormFederationURLIsRefusedWithoutRepeatingIt() throws {
        let site = #"{"sites": {"a": {"plugins": {}, "federation": {"url": "host=db.example.org user=club_a password=s3cret-Kw", "site_id": "club-a"}}}}"#
        let found = problems(site)
        XCTAssertEqual(found.count, 1, "\(found)")
        XCTAssertTrue(found.first?.contains("federation url must start with postgresql:// (a keyword form such as host=… dbname=… is not taken") ?? false, "\(found)")
        XCTAssertFalse(found.joined().contains("s3cret-Kw"), "\(found)")
        XCTAssertFalse(found.joined().contains("db.example.org user=club_a"), "\(found)")
    }

    /// What messages show of a URL given on the command line: never its password.
    func testAPostgresTargetShowsNoPassword() {
        XCTAssertEqual(PostgresTarget(url: "postgresql://admin:s3cret@db/fed?sslmode=require").shown, "postgresql://admin:…@db/fed?sslmode=require")
        XCTAssertEqual(PostgresTarget(url: "postgresql://admin@db/fed?sslmode=require&pass%77ord=s3cret").shown,
                       "postgresql://admin@db/fed?sslmode=require&password=…")
        XCTAssertEqual(PostgresTarget(url: "postgresql://admin@/fed?host=/tmp/x&port=5432").shown, "postgresql://admin@/fed?host=/tmp/x&port=5432")
    }

    func testUnknownKeysSuggestTheNearestKnownKey() {
        XCTAssertEqual(problems(#"{"sites": {"a": {"plugins": {}, "devises": {}}}}"#),
                       ["p.json:1:33: unknown key 'devises' in site 'a'; did you mean 'devices'?"])
        XCTAssertEqual(problems(#"{"sitez": {}}"#), [
            "p.json:1:1: the configuration has no \"sites\" object; add {\"sites\": {\"default\": {\"plugins\": {}}}}",
            "p.json:1:2: unknown key 'sitez' in the configuration; did you mean 'sites'?",
        ])
        XCTAssertTrue(problems(#"{"sites": {"a": {"plugins": {}, "zzz": 1}}}"#).first?.contains("(known keys: description, plugins, devices, http, publishers, require_signatures, federation)") ?? false)
    }

    func testMalformedJSONPointsAtTheCharacter() {
        XCTAssertEqual(problems("{\"sites\": {\n  \"a\": {\"plugins\": {},}\n}}"),
                       ["p.json:2:23: unexpected '}'; expected a string key"])
        XCTAssertEqual(problems("[]"), ["p.json:1:1: the configuration must be an object, not an array"])
        XCTAssertEqual(problems("{}"), ["p.json:1:1: the configuration has no \"sites\" object; add {\"sites\": {\"default\": {\"plugins\": {}}}}"])
    }

    func testDevicesAndRelativePaths() throws {
        let c = try parse(#"{"plugin_dirs": ["plugins"], "data_dir": "data", "sites": {"a": {"devices": {"m": {"transport": "unix:/run/m.sock", "trace": true}, "n": {"transport": "tcp:[::1]:9000"}}, "plugins": {"x": {"path": "lib/x.so", "timeout_ms": 500}}}}}"#)
        XCTAssertEqual(c.sites["a"]?.devices["m"]?.transport, .unix(path: "/run/m.sock"))
        XCTAssertEqual(c.sites["a"]?.devices["m"]?.trace, true)
        XCTAssertEqual(c.sites["a"]?.devices["n"]?.transport, .tcp(host: "::1", port: 9000))
        XCTAssertEqual(c.sites["a"]?.plugins.first?.timeoutMilliseconds, 500)
        XCTAssertEqual(FileSystem.absolute(c.dataDirectory ?? "", relativeTo: c.baseDirectory), "/etc/clubhouse/data")
        XCTAssertEqual(c.defaultSite, "a", "without default_site and without a site named default, the first site")
    }

    /// "publishers" (top level and per site) and "require_signatures" (per site and per plugin):
    /// every problem at its line and column.
    func testPublishersAndRequiredSignatures() throws {
        let acme = "ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo="   // RFC 8032 TEST 1's public key
        let beta = "ed25519:PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="   // TEST 2's
        let c = try parse("""
            {"publishers": {"acme": "\(acme)"},
             "sites": {"a": {"require_signatures": true, "plugins": {"p": {"id": "org.x.p"}, "q": {"id": "org.x.q", "require_signatures": false}}},
                       "b": {"publishers": {"beta": "\(beta)", "acme": "\(beta)"}, "plugins": {"p": {"id": "org.x.p", "require_signatures": true}}}}}
            """)
        let a = try c.site(named: "a"), b = try c.site(named: "b")
        XCTAssertEqual(c.publishers.keys.sorted(), ["acme"])
        XCTAssertTrue(a.requireSignatures)
        XCTAssertEqual(a.publishers["acme"]?.map { String(format: "%02x", $0) }.joined(), "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        XCTAssertEqual(a.plugin(alias: "p")?.requiresSignature(at: a), true)
        XCTAssertEqual(a.plugin(alias: "q")?.requiresSignature(at: a), false)
        XCTAssertFalse(b.requireSignatures)
        XCTAssertEqual(b.publishers.keys.sorted(), ["acme", "beta"])
        XCTAssertEqual(b.publishers["acme"], b.publishers["beta"], "a site's own entry wins over the top-level one")
        XCTAssertEqual(b.plugin(alias: "p")?.requiresSignature(at: b), true)

        assertProblems("""
            {"publishers": {"Acme!": "\(acme)", "short": "ed25519:AAAA", "nokey": "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", "n": 5},
             "sites": {"a": {"require_signatures": "yes", "plugins": {}},
                       "b": {"require_signatures": true, "publishers": {}, "plugins": {"p": {"id": "org.x.p", "require_signatures": 1}}}}}
            """, [
            "p.json:1:17: publisher name 'Acme!' must be 1 to 64 lowercase letters, digits, '.' and '-'",
            "p.json:1:91: publisher 'short': 'ed25519:AAAA' holds 3 bytes; an Ed25519 public key is 32",
            "p.json:1:116: publisher 'nokey': '11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=' is not an Ed25519 public key",
            "p.json:1:169: publisher 'n' must be a string, not an integer",
            "p.json:2:40: \"require_signatures\" must be true or false, not a string",
            "p.json:3:40: site 'b' requires signatures but trusts no publisher",
            "p.json:3:121: \"require_signatures\" must be true or false, not an integer",
        ])
        assertProblems(#"{"sites": {"b": {"require_signatures": true, "plugins": {"p": {"id": "org.x.p", "require_signatures": true}}}}}"#, [
            "p.json:1:40: site 'b' requires signatures but trusts no publisher; add \"publishers\"",
            "p.json:1:103: plugin requires signatures but site 'b' trusts no publisher",
        ])
        // A point that is not on the curve (RFC 8032 §5.1.3) is not a key.
        assertProblems(#"{"publishers": {"x": "ed25519:AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}, "sites": {"a": {"plugins": {}}}}"#,
                       ["p.json:1:22: publisher 'x': 'ed25519:AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=' is not a point of the Ed25519 curve"])
    }
}

import ClubhouseJSON

/// The templates the kernel ships, authored by this project for a mid-handicap amateur: strike
/// quality (ball speed, smash factor, spin, descent angle) per club, set so that a player like the
/// one in a typical 7-iron export grades A on a good strike (ball speed and smash above their
/// average, enough spin and descent to hold a green). They are available from the
/// first use; a template the user adds for a club becomes that club's active one instead.
public enum DefaultTemplates {
    /// (club, ball speed A/B mph, smash A/B, spin A/B rpm and direction, descent A/B degrees)
    private static let table: [(club: String, ball: (Double, Double), smash: (Double, Double),
                                spin: (Double, Double, MetricDirection), descent: (Double, Double))] = [
        ("dr", (137, 130), (1.45, 1.41), (2900, 3400, .lowerIsBetter), (34, 31)),
        ("3w", (128, 121), (1.43, 1.38), (3900, 4400, .lowerIsBetter), (37, 34)),
        ("5i", (114, 108), (1.35, 1.31), (4100, 3700, .higherIsBetter), (42, 39)),
        ("6i", (110, 104), (1.32, 1.28), (4500, 4000, .higherIsBetter), (44, 41)),
        ("7i", (106, 101), (1.30, 1.26), (4400, 4000, .higherIsBetter), (45, 42)),
        ("8i", (101, 96), (1.27, 1.23), (5500, 5000, .higherIsBetter), (46, 43)),
        ("9i", (96, 91), (1.24, 1.20), (6400, 5800, .higherIsBetter), (47, 44)),
        ("pw", (90, 85), (1.21, 1.17), (7300, 6600, .higherIsBetter), (48, 45)),
        ("gw", (85, 79), (1.18, 1.14), (8500, 7600, .higherIsBetter), (49, 46)),
        ("sw", (78, 72), (1.15, 1.11), (9200, 8200, .higherIsBetter), (50, 46)),
    ]

    /// The template documents, in the order above.
    public static let documents: [JSONValue] = table.map { row in
        func band(_ a: Double, _ b: Double, _ direction: MetricDirection) -> JSONValue {
            let (aKey, bKey) = direction == .higherIsBetter ? ("a_min", "b_min") : ("a_max", "b_max")
            return .object(JSONObject([(key: "direction", value: .string(direction.rawValue)),
                                       (key: aKey, value: .double(a)), (key: bKey, value: .double(b))]))
        }
        return .object(JSONObject([
            (key: "schema_version", value: .string(KPITemplate.schemaVersion)),
            (key: "club", value: .string(row.club)),
            (key: "name", value: .string("Clubhouse default \(row.club)")),
            (key: "aggregation_method", value: .string(KPITemplate.aggregationMethod)),
            (key: "metrics", value: .object(JSONObject([
                (key: "ball_speed", value: band(row.ball.0, row.ball.1, .higherIsBetter)),
                (key: "smash_factor", value: band(row.smash.0, row.smash.1, .higherIsBetter)),
                (key: "spin_rate", value: band(row.spin.0, row.spin.1, row.spin.2)),
                (key: "descent_angle", value: band(row.descent.0, row.descent.1, .higherIsBetter)),
            ]))),
        ]))
    }

    /// The bundled templates, parsed and hashed.
    public static func templates() throws(PracticeError) -> [KPITemplate] {
        try parsed.get()
    }

    /// Parsed once per process.
    private static let parsed: Result<[KPITemplate], PracticeError> = Result { () throws(PracticeError) -> [KPITemplate] in
        var result: [KPITemplate] = []
        for document in documents {
            result.append(try KPITemplate.parse(JSONWriter.pretty(document), sourceName: "bundled template"))
        }
        return result
    }
}

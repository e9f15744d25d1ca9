// What "visited 40 of N" counts against: the 193 UN member states, those plus the two observer
// states (the Holy See and Palestine: 195, the globe's default as before), or all 249 entries of
// ISO 3166-1 (countries, dependencies and other areas, Antarctica included).

public enum Denominator: String, Sendable, Codable, CaseIterable {
    case un
    case unObservers = "un+observers"
    case iso

    public static let `default` = Denominator.unObservers

    /// The UN's two non-member observer states.
    public static let observerCodes: Set<String> = ["VA", "PS"]

    public var title: String {
        switch self {
        case .un: return "UN member states"
        case .unObservers: return "UN member states and observers"
        case .iso: return "ISO 3166-1 entries"
        }
    }

    /// The number a full set of data counts against (the bundled and voyage sets reach it).
    public var nominalTotal: Int {
        switch self {
        case .un: return 193
        case .unObservers: return 195
        case .iso: return ISO3166.codes.count
        }
    }

    /// Reads the `of` argument or the config's "denominator" (`source`); unknown names get one line saying what exists.
    public init(parsing text: String, source: FieldText = "\(field: "of")") throws(GlobeError) {
        let key = TextKey.fold(text).replacingSpaces(with: "")
        switch key {
        case "un", "un193", "193": self = .un
        case "un+observers", "unobservers", "un+obs", "195": self = .unObservers
        case "iso", "iso3166", "iso3166-1", "249": self = .iso
        default:
            throw GlobeError.invalidOption(name: "denominator for \(source)", value: text,
                                           expected: "un (193 UN members), un+observers (195) or iso (249 ISO 3166-1 entries)")
        }
    }

    /// The members (code and continent) of this denominator for a country set.
    public func members(of countries: CountrySet) -> [(code: String, continent: String)] {
        switch self {
        case .unObservers:
            return countries.progressCountries.map { ($0.code, $0.continent) }
        case .un:
            return countries.progressCountries.filter { !Self.observerCodes.contains($0.code) }.map { ($0.code, $0.continent) }
        case .iso:
            return ISO3166.codes.map { code in (code, countries.country(code: code)?.continent ?? ISO3166.continentOfUnlisted[code] ?? "Other") }
        }
    }
}

/// The 249 officially assigned ISO 3166-1 alpha-2 codes (Kosovo's XK is user-assigned, so not
/// among them), and the continent of those the globe's country sets do not carry.
public enum ISO3166 {
    public static let codes: [String] = """
        AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR \
        BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ \
        EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW \
        GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY \
        KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV \
        MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY \
        QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG \
        TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
        """.split(separator: " ").map(String.init)

    /// Each entry's alpha-2 and alpha-3 codes and ISO's English names (short name first), from
    /// Debian's iso-codes (Generated/ISO3166Names.swift).
    public static let entries: [(alpha2: String, alpha3: String, names: [String])] = ISO3166Names.entries.map {
        ($0.alpha2, $0.alpha3, $0.names.split(separator: "|").map(String.init))
    }

    /// The 54 entries that are neither UN members nor observers: dependencies, Antarctica, and
    /// the areas whose status is disputed (Taiwan, Western Sahara). The other 195 are the UN's.
    public static let nonMemberCodes: Set<String> = [
        "AI", "AQ", "AS", "AW", "AX", "BL", "BM", "BQ", "BV", "CC", "CK", "CW", "CX", "EH", "FK", "FO", "GF", "GG",
        "GI", "GL", "GP", "GS", "GU", "HK", "HM", "IM", "IO", "JE", "KY", "MF", "MO", "MP", "MQ", "MS", "NC", "NF",
        "NU", "PF", "PM", "PN", "PR", "RE", "SH", "SJ", "SX", "TC", "TF", "TK", "TW", "UM", "VG", "VI", "WF", "YT",
    ]

    /// Continents of the territories a country set may lack (the country set's own continent wins).
    public static let continentOfUnlisted: [String: String] = [
        "AI": "North America", "AS": "Oceania", "AW": "North America", "AX": "Europe", "BL": "North America",
        "BM": "North America", "BQ": "North America", "BV": "Antarctica", "CC": "Asia", "CK": "Oceania",
        "CW": "North America", "CX": "Asia", "FO": "Europe", "GF": "South America", "GG": "Europe", "GI": "Europe",
        "GP": "North America", "GS": "Antarctica", "GU": "Oceania", "HK": "Asia", "HM": "Antarctica", "IM": "Europe",
        "IO": "Asia", "JE": "Europe", "KY": "North America", "MF": "North America", "MO": "Asia", "MP": "Oceania",
        "MQ": "North America", "MS": "North America", "NF": "Oceania", "NU": "Oceania", "PF": "Oceania",
        "PM": "North America", "PN": "Oceania", "RE": "Africa", "SH": "Africa", "SJ": "Europe", "SX": "North America",
        "TC": "North America", "TK": "Oceania", "UM": "Oceania", "VG": "North America", "VI": "North America",
        "WF": "Oceania", "YT": "Africa",
    ]
}

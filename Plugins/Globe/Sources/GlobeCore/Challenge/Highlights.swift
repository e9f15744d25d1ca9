// Highlights of a country: its cities and attractions worth a visit, in voyage's
// country_highlights.json format: { "FR": { "cities": [...], "attractions": [...] }, ... }.

import ClubhouseJSON

public struct CountryHighlights: Sendable, Codable, Equatable {
    public var cities: [String]
    public var attractions: [String]

    public init(cities: [String], attractions: [String]) {
        self.cities = cities
        self.attractions = attractions
    }
}

/// Highlights by ISO alpha-2 code.
public struct HighlightsCatalog: Sendable {
    public let source: String
    public let byCode: [String: CountryHighlights]

    public init(byCode: [String: CountryHighlights], source: String) {
        self.byCode = byCode
        self.source = source
    }

    /// Reads country_highlights.json; errors name the file, line and column.
    public init(json text: String, source: String) throws(GlobeError) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw GlobeError.invalidData(source: source, line: error.location.line, column: error.location.column,
                                         message: "malformed JSON: \(error.message)")
        }
        func fail(_ pointer: String, _ message: String) -> GlobeError {
            let at = GeoJSONReader.location(of: pointer, in: text)
            return GlobeError.invalidData(source: source, line: at.line, column: at.column, message: message)
        }
        guard let object = root.objectValue else {
            throw fail("", "highlights must be an object keyed by ISO alpha-2 code, e.g. {\"FR\": {\"cities\": [...], \"attractions\": [...]}}")
        }
        var out: [String: CountryHighlights] = [:]
        for (key, value) in object {
            let pointer = "/" + JSONDocument.escapePointerToken(key)
            guard key.count == 2, key == key.uppercased() else {
                throw fail(pointer, "highlight key \"\(key)\" is not an upper-case ISO alpha-2 code")
            }
            guard let entry = value.objectValue else {
                throw fail(pointer, "highlights of \(key) must be an object with \"cities\" and \"attractions\" arrays")
            }
            var lists: [[String]] = []
            for field in ["cities", "attractions"] {
                guard let items = entry[field] else {
                    lists.append([])
                    continue
                }
                guard let array = items.arrayValue else {
                    throw fail(pointer + "/" + field, "\"\(field)\" of \(key) must be an array of strings")
                }
                var names: [String] = []
                for (k, item) in array.enumerated() {
                    guard let s = item.stringValue, !s.trimmingWhitespace.isEmpty else {
                        throw fail(pointer + "/\(field)/\(k)", "\"\(field)\" of \(key) must hold non-empty strings")
                    }
                    names.append(s)
                }
                lists.append(names)
            }
            out[key] = CountryHighlights(cities: lists[0], attractions: lists[1])
        }
        self.init(byCode: out, source: source)
    }

    /// A small set authored for Clubhouse; a site can configure voyage's fuller file instead.
    public static let bundled: HighlightsCatalog = {
        var byCode: [String: CountryHighlights] = [:]
        for (code, cities, attractions) in BundledHighlights.entries {
            byCode[code] = CountryHighlights(cities: cities, attractions: attractions)
        }
        return HighlightsCatalog(byCode: byCode, source: "the bundled highlights")
    }()

    public func highlights(for code: String) -> CountryHighlights? { byCode[code.uppercased()] }
}

/// Highlights authored for the bundled set (well-known places; not taken from voyage's data).
enum BundledHighlights {
    static let entries: [(String, [String], [String])] = [
        ("AR", ["Buenos Aires", "Mendoza", "Ushuaia"], ["Iguazú Falls", "Perito Moreno Glacier", "Quebrada de Humahuaca"]),
        ("AU", ["Canberra", "Sydney", "Melbourne", "Perth"], ["Sydney Opera House", "Great Barrier Reef", "Uluru", "Twelve Apostles"]),
        ("BR", ["Brasília", "Rio de Janeiro", "São Paulo", "Salvador"], ["Christ the Redeemer", "Iguaçu Falls", "Sugarloaf Mountain", "Amazon Rainforest"]),
        ("CA", ["Ottawa", "Toronto", "Montreal", "Vancouver", "Quebec City"], ["Niagara Falls", "Banff National Park", "CN Tower"]),
        ("CN", ["Beijing", "Shanghai", "Xi'an", "Chengdu"], ["Great Wall", "Forbidden City", "Terracotta Army", "Li River"]),
        ("DE", ["Berlin", "Munich", "Hamburg", "Cologne"], ["Brandenburg Gate", "Neuschwanstein Castle", "Cologne Cathedral"]),
        ("EG", ["Cairo", "Alexandria", "Luxor", "Aswan"], ["Pyramids of Giza", "Valley of the Kings", "Abu Simbel", "Karnak Temple"]),
        ("ES", ["Madrid", "Barcelona", "Seville", "Granada", "Valencia"], ["Sagrada Família", "Alhambra", "Prado Museum", "Park Güell"]),
        ("FR", ["Paris", "Lyon", "Marseille", "Nice", "Bordeaux"], ["Eiffel Tower", "Louvre", "Mont-Saint-Michel", "Palace of Versailles"]),
        ("GB", ["London", "Edinburgh", "Manchester", "Bath"], ["Tower of London", "Stonehenge", "British Museum", "Giant's Causeway"]),
        ("GR", ["Athens", "Thessaloniki", "Heraklion"], ["Acropolis", "Santorini", "Meteora", "Delphi"]),
        ("IN", ["New Delhi", "Mumbai", "Jaipur", "Varanasi"], ["Taj Mahal", "Amber Fort", "Golden Temple", "Kerala Backwaters"]),
        ("IS", ["Reykjavík", "Akureyri"], ["Golden Circle", "Blue Lagoon", "Jökulsárlón", "Skógafoss"]),
        ("IT", ["Rome", "Florence", "Venice", "Milan", "Naples"], ["Colosseum", "Leaning Tower of Pisa", "Amalfi Coast", "Pompeii"]),
        ("JP", ["Tokyo", "Kyoto", "Osaka", "Hiroshima"], ["Mount Fuji", "Fushimi Inari Shrine", "Itsukushima Shrine", "Himeji Castle"]),
        ("KE", ["Nairobi", "Mombasa", "Lamu"], ["Maasai Mara", "Amboseli National Park", "Mount Kenya"]),
        ("MA", ["Rabat", "Marrakesh", "Fes", "Chefchaouen"], ["Jemaa el-Fnaa", "Hassan II Mosque", "Aït Benhaddou", "Erg Chebbi"]),
        ("MX", ["Mexico City", "Guadalajara", "Oaxaca", "Cancún"], ["Chichén Itzá", "Teotihuacan", "Tulum", "Copper Canyon"]),
        ("NO", ["Oslo", "Bergen", "Tromsø"], ["Geirangerfjord", "Preikestolen", "Lofoten"]),
        ("NZ", ["Wellington", "Auckland", "Christchurch", "Queenstown"], ["Milford Sound", "Hobbiton", "Tongariro Alpine Crossing"]),
        ("PE", ["Lima", "Cusco", "Arequipa"], ["Machu Picchu", "Lake Titicaca", "Nazca Lines", "Colca Canyon"]),
        ("PT", ["Lisbon", "Porto", "Faro"], ["Belém Tower", "Sintra", "Douro Valley"]),
        ("TH", ["Bangkok", "Chiang Mai", "Phuket", "Ayutthaya"], ["Grand Palace", "Wat Arun", "Phi Phi Islands"]),
        ("TR", ["Ankara", "Istanbul", "Izmir"], ["Hagia Sophia", "Cappadocia", "Ephesus", "Pamukkale"]),
        ("US", ["Washington, D.C.", "New York", "San Francisco", "Chicago", "New Orleans"], ["Grand Canyon", "Statue of Liberty", "Yellowstone National Park", "Golden Gate Bridge"]),
        ("VN", ["Hanoi", "Ho Chi Minh City", "Hoi An", "Hue"], ["Ha Long Bay", "Mekong Delta", "Phong Nha Caves"]),
        ("ZA", ["Pretoria", "Cape Town", "Johannesburg", "Durban"], ["Table Mountain", "Kruger National Park", "Cape of Good Hope", "Robben Island"]),
    ]
}

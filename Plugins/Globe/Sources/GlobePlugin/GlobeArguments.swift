// The arguments of each globe command as a type (PluginKit's CommandArguments): the catalogue's
// argument list is made from these, and each handler gets one decoded — numbers as Double, lists
// as [String], the mesh format as an enum.

import GlobeCore
import PluginKit

private let userField = ArgumentField("user", help: "Whose marks (default: the config's \"user\")")
private let dateField = ArgumentField("date", help: "The day, YYYY-MM-DD (default: today)")
private let countryField = ArgumentField("country", help: "ISO code or name", positional: true)

/// `wish` and `unwish`: a country.
struct MarkArguments: PlaceMarkArguments {
    var country: String
    var user: String?
    var city: [String]? { nil }
    var attraction: [String]? { nil }
    static let fields = [ArgumentField("country", help: "ISO code or name, e.g. FR or France", positional: true), userField]
}

/// `visit`: a country, and cities or attractions to check there.
struct VisitArguments: PlaceMarkArguments {
    var country: String
    var user: String?
    var city: [String]?
    var attraction: [String]?
    static let fields = [
        ArgumentField("country", help: "ISO code or name, e.g. FR or France", positional: true), userField,
        ArgumentField("city", help: "Also check these cities (comma-separated)"),
        ArgumentField("attraction", help: "Also check these attractions"),
    ]
}

/// `unvisit`: a country, or only cities or attractions to uncheck there.
struct UnvisitArguments: PlaceMarkArguments {
    var country: String
    var user: String?
    var city: [String]?
    var attraction: [String]?
    static let fields = [
        ArgumentField("country", help: "ISO code or name, e.g. FR or France", positional: true), userField,
        ArgumentField("city", help: "Only uncheck these cities"), ArgumentField("attraction", help: "Only uncheck these attractions"),
    ]
}

/// What `visit` and `unvisit` share: their arguments differ only in help.
protocol PlaceMarkArguments: CommandArguments {
    var country: String { get }
    var user: String? { get }
    var city: [String]? { get }
    var attraction: [String]? { get }
}

struct ListArguments: CommandArguments {
    var visited: Bool
    var wishlist: Bool
    var user: String?
    static let fields = [ArgumentField("visited", help: "Only visited countries"), ArgumentField("wishlist", help: "Only the wishlist"), userField]
}

struct StatsArguments: CommandArguments {
    var user: String?
    var of: String?
    static let fields = [
        userField,
        ArgumentField("of", help: "Count against un (193), un+observers (195) or iso (249); default: the config's \"denominator\", un+observers"),
    ]
}

struct HighlightsArguments: CommandArguments {
    var country: String
    var user: String?
    static let fields = [countryField, userField]
}

struct WhereArguments: CommandArguments {
    var lat: Double
    var lon: Double
    var tolerance: Double?
    static let fields = [
        ArgumentField("lat", help: "Degrees north, -90 to 90"), ArgumentField("lon", help: "Degrees east, -180 to 180"),
        ArgumentField("tolerance", help: "Kilometres for microstates drawn as points and coastlines (default: config toleranceKm, 25)"),
    ]
}

struct MapArguments: CommandArguments {
    var svg: String
    var select: [String]?
    var width: Double
    var user: String?
    static let fields = [
        ArgumentField.path("svg", help: "Where to write the SVG (- for stdout)", access: .write),
        ArgumentField("select", help: "Countries to highlight (codes or names)"),
        ArgumentField("width", help: "Width in pixels", default: .double(1200)), userField,
    ]
}

struct SilhouetteArguments: CommandArguments {
    var country: String
    var svg: String
    var size: Double
    static let fields = [
        countryField, ArgumentField.path("svg", help: "Where to write the SVG (- for stdout)", access: .write),
        ArgumentField("size", help: "Larger side in pixels", default: .double(400)),
    ]
}

/// `mesh --format`: MeshFormat's cases, in its order.
enum MeshFormatArgument: String, ArgumentChoice {
    case gltf, obj

    var format: MeshFormat {
        switch self {
        case .gltf: return .gltf
        case .obj: return .obj
        }
    }
}

struct MeshArguments: CommandArguments {
    var out: String
    var format: MeshFormatArgument?
    var radius: Double
    var maxEdge: Double
    var noOcean: Bool
    var select: [String]?
    var user: String?
    enum CodingKeys: String, CodingKey {
        case out, format, radius
        case maxEdge = "max-edge"
        case noOcean = "no-ocean"
        case select, user
    }
    static let fields = [
        ArgumentField.path("out", help: "File to write; .gltf or .obj (the .mtl goes beside it)", access: .write),
        ArgumentField("format", help: "Override the format the file name implies"),
        ArgumentField("radius", help: "Sphere radius", default: .double(1)),
        ArgumentField("max-edge", help: "Longest triangle edge in degrees before it is split to follow the sphere", default: .double(5)),
        ArgumentField("no-ocean", help: "Leave out the ocean sphere"),
        ArgumentField("select", help: "Countries drawn in their lighter colour"), userField,
    ]
}

struct TriangulateArguments: CommandArguments {
    var geojson: String?
    var summary: Bool
    static let fields = [
        ArgumentField.path("geojson", help: "A GeoJSON file (default: the site's country set)"),
        ArgumentField("summary", help: "Totals only, without a line per polygon"),
    ]
}

struct ChallengeShowArguments: CommandArguments {
    var date: String?
    var svg: String?
    var user: String?
    static let fields = [dateField, ArgumentField.path("svg", help: "Also write a country challenge's silhouette here", access: .write), userField]
}

struct ChallengeGuessArguments: CommandArguments {
    var text: String
    var date: String?
    var user: String?
    static let fields = [
        ArgumentField("text", help: "A country name, or a capital for a capital challenge", positional: true), dateField, userField,
    ]
}

struct ChallengeCalendarArguments: CommandArguments {
    var date: String?
    var user: String?
    static let fields = [ArgumentField("date", help: "A day of the month to show, YYYY-MM-DD (default: today)"), userField]
}

struct DemoArguments: CommandArguments {
    var out: String
    static let fields = [ArgumentField.path("out", help: "Folder for the demo's files")]
}

/// voyage's PostgREST filters: text in PostgREST's own syntax (eq.2026-02-17, date.desc), checked by
/// `PostgRESTQuery` with PostgREST's wording.
struct PostgRESTArguments: CommandArguments {
    var select: String
    var date: String?
    var id: String?
    var order: String?
    var limit: String?
    var offset: String?
    static let fields = [
        ArgumentField("select", help: "Columns: * or a comma-separated list", default: "*"),
        ArgumentField("date", help: "Filter on the date, eg: eq.2026-02-17"),
        ArgumentField("id", help: "Filter on the id, eg: eq.<uuid>"),
        ArgumentField("order", help: "date.asc (default) or date.desc"),
        ArgumentField("limit", help: "At most this many rows"),
        ArgumentField("offset", help: "Skip this many rows"),
    ]
}

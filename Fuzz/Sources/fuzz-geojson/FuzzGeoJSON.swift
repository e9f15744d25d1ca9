// Fuzzes the globe's GeoJSON reading the way the plugin uses it on user files:
// `globe triangulate --geojson FILE` (GeoJSONReader.read, then the ear-clipping report) and a
// site's own country file (CountrySet(geojson:source:)). Both antimeridian modes are read.

import GlobeCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    let text = String(decoding: buffer, as: UTF8.self)
    for split in [true, false] {
        do {
            let features = try GeoJSONReader.read(text, source: "fuzz.geojson", options: .init(splitAntimeridian: split))
            let report = TriangulationReport(features: features)
            _ = report.text(perPolygon: true)
        } catch {
            _ = error.description
        }
    }
    do {
        let set = try CountrySet(geojson: text, source: "fuzz.geojson")
        for country in set.countries {
            _ = set.country(code: country.code)
            _ = country.markerLocation
        }
        _ = set.continents
    } catch {
        _ = error.description
    }
    return 0
}

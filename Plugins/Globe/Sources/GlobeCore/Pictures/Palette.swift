// The globe's colours, shared by the 2D map and the 3D mesh: ocean #2F86A6, land #34BE82,
// visited #F2F013, wishlist (0.6, 0.4, 0.8); a selected country is drawn a lighter variant of its
// own colour, so visited and wishlist colours win over the selection colour (the domain's rule).
// On the 2D map a selected country is also outlined in the selection colour, vermilion #E4572E,
// far from all the fills: a lighter variant alone was hard to tell from the visited colour.

public struct RGBColor: Sendable, Hashable, Codable {
    /// Components in 0...1.
    public var r: Double
    public var g: Double
    public var b: Double

    public init(r: Double, g: Double, b: Double) {
        self.r = r
        self.g = g
        self.b = b
    }

    public init(hex: UInt32) {
        self.init(r: Double((hex >> 16) & 0xFF) / 255, g: Double((hex >> 8) & 0xFF) / 255, b: Double(hex & 0xFF) / 255)
    }

    /// `#RRGGBB`, upper case.
    public var hex: String {
        let digits = Array("0123456789ABCDEF")
        var out = "#"
        for v in [r, g, b] {
            let byte = Int((max(0, min(1, v)) * 255).rounded())
            out.append(digits[byte >> 4])
            out.append(digits[byte & 0xF])
        }
        return out
    }

    /// Mixed with white by `amount` (0 = unchanged, 1 = white).
    public func lighter(_ amount: Double = 0.4) -> RGBColor {
        RGBColor(r: r + (1 - r) * amount, g: g + (1 - g) * amount, b: b + (1 - b) * amount)
    }
}

/// How a country is marked for a user.
public enum CountryStatus: String, Sendable, Codable, CaseIterable {
    case visited, wishlist, none

    public init(code: String, log: TravelLog) {
        if log.visited.contains(code) { self = .visited } else if log.wishlist.contains(code) { self = .wishlist } else { self = .none }
    }
}

public enum Palette {
    public static let ocean = RGBColor(hex: 0x2F86A6)
    public static let land = RGBColor(hex: 0x34BE82)
    public static let visited = RGBColor(hex: 0xF2F013)
    public static let wishlist = RGBColor(r: 0.6, g: 0.4, b: 0.8)
    /// The outline of a selected country on the map (and its legend swatch).
    public static let selected = RGBColor(hex: 0xE4572E)
    /// Country borders on the map.
    public static let border = RGBColor(hex: 0x1E6E4B)

    /// The fill of a country: its status colour, lighter when selected.
    public static func fill(_ status: CountryStatus, selected: Bool) -> RGBColor {
        let base: RGBColor
        switch status {
        case .visited: base = visited
        case .wishlist: base = wishlist
        case .none: base = land
        }
        return selected ? base.lighter() : base
    }
}

// A QR code as SVG: one path of dark rectangles (each run of dark modules in a row is one
// rectangle) on a white square with the four-module quiet zone the standard asks for (§6.3.8).

extension QRCode {
    /// The symbol as an SVG document, `moduleSize` pixels per module, titled `title` (for screen readers).
    public func svg(moduleSize: Int = 8, quietZone: Int = 4, title: String? = nil) -> String {
        let side = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else { x += 1; continue }
                var end = x
                while end < size && isDark(x: end, y: y) { end += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(end - x)v1h-\(end - x)z"
                x = end
            }
        }
        let pixels = side * moduleSize
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(pixels)\" height=\"\(pixels)\" viewBox=\"0 0 \(side) \(side)\" shape-rendering=\"crispEdges\" role=\"img\">\n"
        if let title { out += "<title>\(QRCode.escapeXML(title))</title>\n" }
        out += "<rect width=\"\(side)\" height=\"\(side)\" fill=\"#ffffff\"/>\n"
        out += "<path fill=\"#000000\" d=\"\(path)\"/>\n"
        out += "</svg>\n"
        return out
    }

    static func escapeXML(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 allows no C0 controls but tab, newline and carriage return.
                if c.value < 0x20 && c != "\t" && c != "\n" && c != "\r" { out += "\u{FFFD}" } else { out.unicodeScalars.append(c) }
            }
        }
        return out
    }
}

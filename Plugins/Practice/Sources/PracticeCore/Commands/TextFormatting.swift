/// Fixed-point text for people (`fixed(83.3333, 1)` → "83.3").
func fixed(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let negative = value < 0 && scaled != 0
    let whole = Int(scaled / scale)
    var text = String(whole)
    if decimals > 0 {
        let fraction = String(Int(scaled) - whole * Int(scale))
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return (negative ? "-" : "") + text
}

extension String {
    /// Every `target` character replaced by `replacement`.
    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}

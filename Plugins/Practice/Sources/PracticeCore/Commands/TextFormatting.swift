import ClubhouseToolkit

/// Fixed-point text for people (`fixed(83.3333, 1)` → "83.3"); any Double prints, a stored 1e308 too
/// (`DecimalText.fixed`).
func fixed(_ value: Double, _ decimals: Int) -> String { DecimalText.fixed(value, decimals) }

extension String {
    /// Every `target` character replaced by `replacement`.
    func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}

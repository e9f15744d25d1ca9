// What to write in a site's "version" so that it also admits another version: the requirement
// with the bounds that exclude it replaced, eg "^2.0" widened to admit 1.0.0 is ">=1.0.0 <3.0.0".
// Used where a command is refused by a requirement (a rollback), to say what to change it to.

extension VersionRequirement {
    /// A requirement that admits `version` and every version this one admits above it: lower
    /// bounds become `>=version`, upper bounds that `version` meets are kept, exact pins are dropped.
    public func widened(admitting version: SemanticVersion) -> String {
        var parts = [">=\(version)"]
        for (op, bound) in comparators {
            switch op {
            case .lt where version < bound: parts.append("<\(bound)")
            case .le where version <= bound: parts.append("<=\(bound)")
            case .eq where bound > version: parts.append("<=\(bound)")
            default: continue
            }
        }
        return parts.joined(separator: " ")
    }
}

// GET /api/_/session (public): who this client is — a paired browser, a token, or nobody — and the
// site's panels, so the home page (/ui/_/index.html) lists them and offers pairing when it must.

import ClubhouseHost
import ClubhouseJSON

extension HTTPFrontEnd {
    /// `{"site", "paired", "kind", "name", "scopes", "panels": [{alias, id, name, summary, path}]}`: the
    /// panels are the enabled plugins with a panel folder, in the site's order.
    func sessionDescription(_ who: Principal) -> HTTPResponse {
        var panels: [JSONValue] = []
        for entry in session.site.plugins where entry.enabled && statics.roots[entry.alias] != nil {
            var panel: JSONObject = ["alias": .string(entry.alias), "path": .string("/ui/\(entry.alias)/")]
            if case .success(let plugin) = session.runtime.resolve(entry.alias) {
                panel["id"] = .string(plugin.info.id)
                panel["name"] = .string(plugin.info.name)
                panel["summary"] = .string(plugin.info.summary)
            }
            panels.append(.object(panel))
        }
        let response: JSONObject = [
            "site": .string(session.site.name),
            "paired": .bool(who.kind != .anonymous),
            "kind": .string(who.kind.rawValue),
            "name": .string(who.name),
            "scopes": .array(who.scopes.map { .string($0) }),
            "panels": .array(panels),
        ]
        return .json(200, .object(response))
    }
}

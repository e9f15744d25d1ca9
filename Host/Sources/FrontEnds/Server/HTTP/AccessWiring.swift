// Who may call `serve --http`: the server asks an AccessControlling (ClubhouseHost/Access/AccessInterface.swift)
// about every request. The access layer (device tokens, pairing, cookies, audit log) is built on its own
// branch; until it is part of the host, `NoAccessLayer` stands in: public routes and the panels' files
// are served, every other request is refused with 401 saying why, and nothing is paired.

import ClubhouseHost

struct NoAccessLayer: AccessControlling {
    func authorize(_ request: AccessRequest) -> AccessDecision {
        if request.isPublic { return .allow(Principal(kind: .anonymous, name: "anonymous", scopes: [])) }
        return .deny(status: 401, message: "this clubhouse has no device tokens yet (the access layer is not built in); only public routes are served",
                     retryAfterSeconds: nil)
    }

    func exchangePairingCode(_ code: String, request: AccessRequest) -> PairingResult {
        PairingResult(status: 401, message: "this clubhouse cannot pair browsers yet (the access layer is not built in)", setCookie: nil, principal: nil)
    }

    func corsHeaders(for request: AccessRequest) -> [(name: String, value: String)] { [] }

    func record(_ entry: AuditEntry) {}
}

enum AccessWiring {
    /// The access layer for `session`'s site.
    static func make(session: Session) throws(CLIError) -> any AccessControlling {
        NoAccessLayer()
    }
}

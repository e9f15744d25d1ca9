// Who may call `serve --http`: the server asks the site's access layer (ClubhouseHost/Access:
// AccessControl — device tokens, browser pairing, origins, back-off, the audit log) about every request,
// through the AccessControlling contract (AccessInterface.swift).

import ClubhouseHost

enum AccessWiring {
    /// The access layer of `session`'s site (its credentials and audit log in the data directory).
    static func make(session: Session) throws(CLIError) -> any AccessControlling {
        do {
            return try AccessControl(dataDirectory: session.dataDirectory, site: session.site, log: session.log)
        } catch {
            throw CLIError(status: error.status, message: "serve: \(error.message)")
        }
    }
}

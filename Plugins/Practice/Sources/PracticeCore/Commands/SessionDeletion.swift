// `practice session delete`: an imported session leaves for good — its shots, its analyses, and so
// every trend, dispersion and distance table — after the user confirmed it. The deletion is logged
// (`session_deletions`, immutable), and it is the only way a fact ever leaves the database.

/// What was deleted.
public struct SessionDeleted: Sendable, Codable, Equatable {
    public let session: StoredSession
    public let deletedAt: String
    public let reason: String?

    enum CodingKeys: String, CodingKey {
        case session
        case deletedAt = "deleted_at"
        case reason
    }

    public var text: String {
        "Deleted session \(session.id) (\(session.sourceName), \(session.sessionDate ?? session.importedAt), \(session.shotCount) shots)"
            + (reason.map { ": \($0)" } ?? "") + "\n"
    }
}

public struct SessionDeletion {
    public let library: TemplateLibrary

    public init(library: TemplateLibrary) { self.library = library }

    /// Deletes session `id`; without `confirmed` it changes nothing and asks (`.unconfirmed`).
    public func delete(_ id: Int64, reason: String?, confirmed: Bool, now: String) throws(PracticeError) -> SessionDeleted {
        let store = library.store
        guard let session = try storeCall({ try store.session(id: id) }) else {
            throw .notFound("no session \(id); `practice sessions` lists them")
        }
        let reason = reason.map { $0.trimmingSpaces() }
        if let reason, reason.isEmpty { throw .usage("\(field: "reason") is empty; say why, or leave it out") }
        guard confirmed else {
            throw .unconfirmed("session \(id) (\(session.sourceName), \(session.sessionDate ?? session.importedAt), "
                + "\(session.shotCount) shots) will be deleted for good and leave every trend — delete it?")
        }
        try storeCall { try store.deleteSession(id: id, deletedAt: now, reason: reason) }
        return SessionDeleted(session: session, deletedAt: now, reason: reason)
    }
}

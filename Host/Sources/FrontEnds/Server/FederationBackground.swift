// `clubhouse serve` for a site with a "federation" block pushes its outbox in the background
// (ClubhouseHost's FederationPusher: after commits that published records, every push_every_seconds,
// back-off while the server is away). Started from serve's set-up, stopped when serve stops.

import ClubhouseHost
import ClubhousePlatform

enum FederationBackground {
    /// The running pusher, or nil when the site has no federation.
    static func start(session: Session) -> FederationPusher? {
        guard let federation = session.site.federation else { return nil }
        let log = session.log
        let pusher = FederationPusher(federation: federation, siteName: session.site.name,
                                      siteFolder: session.dataDirectory + "/" + session.site.name) { line in log.warning(line) }
        session.runtime.outboxCommits.listen { [pusher] in pusher.committed() }
        log.info("federation: pushing site '\(session.site.name)' as '\(federation.siteID)' to \(PostgresTarget(federation).shown) in the background")
        do throws(ThreadStartError) {
            try pusher.start()
        } catch {
            log.error("federation: site '\(session.site.name)' is not pushed while serve runs (its outbox keeps the records for the next push): \(error)")
        }
        return pusher
    }

    static func stop(_ pusher: FederationPusher?, session: Session) {
        guard let pusher else { return }
        session.runtime.outboxCommits.listen(nil)
        pusher.stop()
    }
}

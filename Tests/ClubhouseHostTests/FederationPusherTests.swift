// serve's background push: the back-off between attempts while the federation is away (the pushes
// themselves, against a real PostgreSQL: FederationEndToEndTests).

import XCTest
@testable import ClubhouseHost

final class FederationPusherTests: XCTestCase {
    func testTheBackOffDoublesUpToItsCapWithJitterOfHalfAStep() {
        var federation = SiteFederation(url: "postgresql://club_a@db.example.org/fed", siteID: "club-a")
        federation.retryMaxSeconds = 300
        let timing = FederationPusher.Timing(federation)
        // The longest wait (random → 1) doubles per failure from 1 s, then stays at the cap.
        XCTAssertEqual((1...12).map { timing.retryDelay(failures: $0, random: 0.999_999) / 1_000 },
                       [0, 1, 3, 7, 15, 31, 63, 127, 255, 299, 299, 299].map { Int64($0) })
        // The shortest is half of it: clubs cut off together do not retry together.
        XCTAssertEqual((1...4).map { timing.retryDelay(failures: $0, random: 0) }, [500, 1_000, 2_000, 4_000])
        XCTAssertEqual(timing.retryDelay(failures: 10_000, random: 0), 150_000, "no overflow after many failures")
        XCTAssertEqual(timing.everyMilliseconds, 60_000)
    }
}

// glibc's cancel signal (32): the claim SignalRelay makes at start (CEventPoll/shim.h), without a thread that unwinds.

import CEventPoll
import XCTest

final class CancelSignalTests: XCTestCase {
    /// After the claim the signal's handler is glibc's (which ignores it from other processes: the fifth outside
    /// attack's `kill -32`, sent to serve by TennisFieldSafetyEndToEndTests), and the throwaway thread was joined.
    /// A second claim (another SignalRelay in a test process) is harmless.
    func testTheCancelSignalIsClaimed() {
        XCTAssertEqual(clubhouse_claim_cancel_signal(), 0)
        XCTAssertEqual(clubhouse_cancel_signal_is_default(), 0)
        XCTAssertEqual(clubhouse_claim_cancel_signal(), 0)
        XCTAssertEqual(clubhouse_cancel_signal_is_default(), 0)
    }
}

// The cold-start floor: a Swift executable that links Foundation and the system SQLite, touches
// both (so neither is dropped at link time), and exits.

import CSQLite
import Foundation

if sqlite3_libversion_number() < 3_000_000 || Date.distantPast > Date() { print("impossible") }

import ClubhouseJSON
#if canImport(Glibc)
import Glibc
#endif

/// One GSPro Open Connect (API version 1) message, as a launch monitor's connector sends it:
///
///     {"DeviceID":"MLM2PRO","Units":"Yards","ShotNumber":3,"APIversion":"1",
///      "BallData":{"Speed":108.4,"SpinAxis":-4.1,"TotalSpin":4987,"BackSpin":4974,"SideSpin":-357,
///                  "HLA":-2.7,"VLA":20.1,"CarryDistance":156.4},
///      "ClubData":{"Speed":83.5},
///      "ShotDataOptions":{"ContainsBallData":true,"ContainsClubData":true,"IsHeartBeat":false}}
///
/// Only messages with `ContainsBallData` true are shots; heartbeats and readiness messages are
/// not. Open Connect carries no club name, so the club comes from the live command; a message
/// may carry a `"Club"` string (the Clubhouse simulator adds it; real connectors do not).
public struct OpenConnectMessage: Sendable, Equatable {
    /// The measurements an Open Connect message can carry (club speed and smash factor only with
    /// ClubData); a template grading anything else grades every live shot C.
    public static let metricsSent: Set<ShotMetric> = [.ballSpeed, .launchAngle, .launchDirection, .spinRate, .spinAxis,
                                                      .carry, .clubSpeed, .smashFactor]

    public enum Units: String, Sendable { case yards = "Yards", metres = "Metres" }

    public let deviceID: String
    public let units: Units
    public let shotNumber: Int
    public let isHeartbeat: Bool
    public let containsBallData: Bool
    /// In the kernel's units (mph, degrees, rpm, yards); only for shots.
    public let measurements: ShotMeasurements
    public let club: String?
    /// The message as it arrived.
    public let raw: String

    public var isShot: Bool { containsBallData && !isHeartbeat }
}

/// Splits a byte stream of Open Connect messages (newline-separated or simply concatenated JSON
/// objects) into messages, checks each, and refuses a shot whose ShotNumber does not follow the
/// previous shot's. Errors are one line naming the message (its ordinal in the stream).
public struct OpenConnectStream {
    /// A message longer than this is refused (a connector's messages are a few hundred bytes).
    public static let maxMessageBytes = 64 * 1024

    private var buffer: [UInt8] = []
    /// Scan state inside `buffer` for the message being assembled.
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var scanned = 0
    /// Messages seen so far (heartbeats included).
    public private(set) var messageCount = 0
    /// The last shot's ShotNumber.
    public private(set) var lastShotNumber: Int? = nil

    public init() {}

    /// Bytes received but not yet a whole message (a drop mid-message leaves some).
    public var pendingBytes: Int { buffer.count - leadingWhitespace() }

    private func leadingWhitespace() -> Int {
        var i = 0
        while i < buffer.count, [0x20, 0x09, 0x0A, 0x0D].contains(buffer[i]) { i += 1 }
        return i
    }

    /// Adds received bytes; take the messages they complete with `next()`.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole message, or nil until more bytes arrive. A bad message throws; the ones
    /// before it have been returned already.
    public mutating func next() throws(PracticeError) -> OpenConnectMessage? {
        guard let end = try nextMessageEnd() else { return nil }
        let start = leadingWhitespace()
        let text = Array(buffer[start..<end])
        buffer.removeFirst(end)
        scanned = 0
        messageCount += 1
        let message = try Self.parse(text, ordinal: messageCount)
        if message.isShot {
            if let last = lastShotNumber, message.shotNumber <= last {
                throw .invalidInput("message \(messageCount): ShotNumber \(message.shotNumber) after shot \(last) is out of order "
                    + "(shot numbers must increase)")
            }
            lastShotNumber = message.shotNumber
        }
        return message
    }

    /// Adds bytes and returns every message they complete (throws at the first bad one).
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(PracticeError) -> [OpenConnectMessage] {
        append(bytes)
        var messages: [OpenConnectMessage] = []
        while let message = try next() { messages.append(message) }
        return messages
    }

    /// The end (exclusive) of the first whole JSON object in `buffer`, or nil when it is incomplete.
    private mutating func nextMessageEnd() throws(PracticeError) -> Int? {
        var i = scanned
        if depth == 0 && !inString {
            // Skip separators before the next object.
            while i < buffer.count, [0x20, 0x09, 0x0A, 0x0D].contains(buffer[i]) { i += 1 }
            if i < buffer.count && buffer[i] != UInt8(ascii: "{") {
                let shown = String(decoding: buffer[i..<min(buffer.count, i + 24)], as: UTF8.self)
                throw .invalidInput("message \(messageCount + 1): expected a JSON object starting with '{', got '\(shown)'; "
                    + "is the device speaking GSPro Open Connect?")
            }
        }
        while i < buffer.count {
            let b = buffer[i]
            i += 1
            if inString {
                if escaped { escaped = false }
                else if b == UInt8(ascii: "\\") { escaped = true }
                else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 {
                    scanned = 0
                    return i
                }
            default: break
            }
        }
        scanned = i
        if buffer.count - leadingWhitespace() > Self.maxMessageBytes {
            throw .invalidInput("message \(messageCount + 1): longer than \(Self.maxMessageBytes) bytes without ending; "
                + "is the device speaking GSPro Open Connect?")
        }
        return nil
    }

    /// Parses and checks one message's bytes.
    public static func parse(_ bytes: [UInt8], ordinal: Int = 1) throws(PracticeError) -> OpenConnectMessage {
        let text = String(decoding: bytes, as: UTF8.self)
        let where_ = "message \(ordinal)"
        let root: JSONValue
        do { root = try JSONParser.parse(text) } catch {
            throw .invalidInput("\(where_): not valid JSON (\(error))")
        }
        guard case .object = root else { throw .invalidInput("\(where_): not a JSON object") }
        func fail(_ what: String) -> PracticeError { .invalidInput("\(where_): \(what)") }
        guard let device = root["DeviceID"]?.stringValue, !device.isEmpty else { throw fail("DeviceID is missing or not a string") }
        let unitsText = root["Units"]?.stringValue ?? "Yards"
        guard let units = OpenConnectMessage.Units(rawValue: unitsText) else {
            throw fail("Units \"\(unitsText)\" is neither \"Yards\" nor \"Metres\"")
        }
        guard let api = root["APIversion"]?.stringValue, api == "1" else {
            throw fail("APIversion must be \"1\" (found \(root["APIversion"].map { JSONWriter.compact($0) } ?? "nothing"))")
        }
        guard let shotValue = root["ShotNumber"], let shotNumber = shotValue.intValue, shotNumber >= 0 else {
            throw fail("ShotNumber is missing or not a whole number ≥ 0")
        }
        let options = root["ShotDataOptions"]
        if options != nil, options?.objectValue == nil { throw fail("ShotDataOptions is not an object") }
        let heartbeat = options?["IsHeartBeat"]?.boolValue ?? false
        let hasBall = options?["ContainsBallData"]?.boolValue ?? (root["BallData"] != nil)
        let hasClub = options?["ContainsClubData"]?.boolValue ?? (root["ClubData"] != nil)
        var m = ShotMeasurements()
        if hasBall && !heartbeat {
            guard let ball = root["BallData"], ball.objectValue != nil else { throw fail("ContainsBallData is true but BallData is missing") }
            func number(_ key: String, _ range: ClosedRange<Double>, in object: JSONValue, _ prefix: String) throws(PracticeError) -> Double? {
                guard let v = object[key], !v.isNull else { return nil }
                guard let d = v.doubleValue, d.isFinite else { throw fail("\(prefix).\(key) is not a number") }
                guard range.contains(d) else { throw fail("\(prefix).\(key) = \(d) is outside \(range.lowerBound)…\(range.upperBound)") }
                return d
            }
            let speedFactor = units == .yards ? 1 : 3600 / 1609.344 // m/s → mph
            let distanceFactor = units == .yards ? 1 : 1 / 0.9144 // m → yd
            guard let speed = try number("Speed", 0...400, in: ball, "BallData"), speed > 0 else {
                throw fail("BallData.Speed is missing or 0 (a shot needs a ball speed)")
            }
            m[.ballSpeed] = speed * speedFactor
            m[.launchAngle] = try number("VLA", -90...90, in: ball, "BallData")
            m[.launchDirection] = try number("HLA", -90...90, in: ball, "BallData")
            let back = try number("BackSpin", -30000...30000, in: ball, "BallData")
            let side = try number("SideSpin", -30000...30000, in: ball, "BallData")
            var total = try number("TotalSpin", 0...30000, in: ball, "BallData")
            var axis = try number("SpinAxis", -90...90, in: ball, "BallData")
            if total == nil, let back, let side { total = (back * back + side * side).squareRoot() }
            if axis == nil, let back, let side, back != 0 || side != 0 { axis = atan2(side, back) * 180 / Double.pi }
            m[.spinRate] = total
            m[.spinAxis] = axis
            m[.carry] = try number("CarryDistance", 0...600, in: ball, "BallData").map { $0 * distanceFactor }
            if hasClub, let club = root["ClubData"], club.objectValue != nil,
               let clubSpeed = try number("Speed", 0...250, in: club, "ClubData"), clubSpeed > 0 {
                m[.clubSpeed] = clubSpeed * speedFactor
                m[.smashFactor] = speed / clubSpeed
            }
            // The same plausible ranges as an imported file (ShotMetric.plausibleRange), in the kernel's units.
            for metric in ShotMetric.allCases {
                if let value = m[metric], let why = metric.implausibility(value) { throw fail(why) }
            }
        }
        return OpenConnectMessage(deviceID: device, units: units, shotNumber: shotNumber, isHeartbeat: heartbeat,
                                  containsBallData: hasBall && !heartbeat, measurements: m,
                                  club: root["Club"]?.stringValue, raw: text)
    }
}

/// Turns an MLM2PRO export into Open Connect messages, one per shot, numbered from 1 (for the
/// live simulator, the demo and tests).
public enum OpenConnectSimulator {
    public static func messages(_ csv: [UInt8], sourceName: String, deviceID: String = "Clubhouse simulator") throws(PracticeError) -> [String] {
        let export = try RapsodoParser.parse(csv, sourceName: sourceName)
        var result: [String] = []
        for shot in export.shots {
            let m = shot.measurements
            guard let speed = m[.ballSpeed], speed > 0 else { continue }
            var ball = JSONObject()
            ball["Speed"] = .double(speed)
            if let v = m[.spinAxis] { ball["SpinAxis"] = .double(v) }
            if let spin = m[.spinRate] {
                ball["TotalSpin"] = .double(spin)
                let axis = (m[.spinAxis] ?? 0) * Double.pi / 180
                ball["BackSpin"] = .double((spin * cos(axis) * 10).rounded() / 10)
                ball["SideSpin"] = .double((spin * sin(axis) * 10).rounded() / 10)
            }
            if let v = m[.launchDirection] { ball["HLA"] = .double(v) }
            if let v = m[.launchAngle] { ball["VLA"] = .double(v) }
            if let v = m[.carry] { ball["CarryDistance"] = .double(v) }
            var root = JSONObject()
            root["DeviceID"] = .string(deviceID)
            root["Units"] = .string("Yards")
            root["ShotNumber"] = .int(result.count + 1)
            root["APIversion"] = .string("1")
            root["Club"] = .string(shot.club)
            root["BallData"] = .object(ball)
            let clubSpeed = m[.clubSpeed]
            if let clubSpeed { root["ClubData"] = ["Speed": .double(clubSpeed)] }
            root["ShotDataOptions"] = ["ContainsBallData": .bool(true), "ContainsClubData": .bool(clubSpeed != nil),
                                       "LaunchMonitorIsReady": .bool(true), "IsHeartBeat": .bool(false)]
            result.append(JSONWriter.compact(.object(root)))
        }
        guard !result.isEmpty else { throw .invalidInput("\(sourceName): no shot has a ball speed; nothing to replay") }
        return result
    }

    /// A heartbeat message (not a shot).
    public static func heartbeat(deviceID: String = "Clubhouse simulator", shotNumber: Int) -> String {
        JSONWriter.compact(["DeviceID": .string(deviceID), "Units": "Yards", "ShotNumber": .int(shotNumber), "APIversion": "1",
                            "ShotDataOptions": ["ContainsBallData": false, "IsHeartBeat": true]])
    }
}

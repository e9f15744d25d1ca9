// Detections of the player's feet, one JSON object per line: {"t":seconds,"x":px,"y":px}.

import ClubhouseJSON

/// Where the player's feet were seen in the image at a time.
public struct Detection: Sendable, Equatable, Codable {
    /// Seconds (any origin; must not decrease from line to line).
    public var t: Double
    public var x: Double
    public var y: Double

    public init(t: Double, x: Double, y: Double) {
        self.t = t
        self.x = x
        self.y = y
    }

    public var image: Point2D { Point2D(x, y) }

    /// Compact JSON line form.
    public var jsonLine: String {
        JSONWriter.compact(["t": .double(t), "x": .double(x), "y": .double(y)])
    }
}

/// Reads detection lines. Blank lines are skipped; other keys on a line are ignored (detectors often
/// add a score or an id).
public enum DetectionReader {
    /// Parses one line (`line` is 1-based, for messages). Returns nil for a blank line.
    public static func parse(_ text: String, line: Int, file: String) throws(InputError) -> Detection? {
        guard text.contains(where: { !$0.isWhitespace }) else { return nil }
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(text)
        } catch {
            // Each line is parsed alone: a CSV header or row says what a detection line is.
            let csv = error.message.hasPrefix("this looks like CSV") ? "; a detection line is {\"t\":seconds,\"x\":px,\"y\":px}" : ""
            throw InputError(file: file, location: SourceLocation(line: line, column: error.location.column, offset: 0),
                             message: error.message + csv)
        }
        let input = JSONInput(document: document, file: file)
        func located(_ error: InputError) -> InputError {
            InputError(file: file, location: SourceLocation(line: line, column: error.location.column, offset: 0),
                       message: error.message)
        }
        do {
            _ = try input.object(at: "")
            let d = Detection(t: try input.number(at: "/t", what: "time t (seconds)", plausible: .detectionSeconds),
                              x: try input.number(at: "/x", what: "image x (pixels)", plausible: .imagePixels),
                              y: try input.number(at: "/y", what: "image y (pixels)", plausible: .imagePixels))
            return d
        } catch {
            throw located(error.message.hasPrefix("missing") ? InputError(file: file, location: error.location,
                message: error.message + " (a detection line is {\"t\":seconds,\"x\":px,\"y\":px})") : error)
        }
    }

    /// Parses a whole text of detection lines, checking that time never goes backwards. A file
    /// without a single detection (empty, or only blank lines) is an error: a session needs the
    /// player's positions.
    public static func parseAll(_ text: String, file: String) throws(InputError) -> [Detection] {
        try read(text, file: file, skipBadLines: false).detections
    }

    /// A detections file read: its detections, and the lines left out under `skipBadLines`.
    public struct FileContent: Sendable, Equatable {
        public var detections: [Detection]
        /// Bad lines (malformed, out of time order) that were left out, each as a located error.
        public var badLines: [InputError]
    }

    /// Reads a whole detections text. A bad line (not a detection, or earlier than the previous
    /// good one) refuses the text, naming its line, unless `skipBadLines`: then the good lines are
    /// kept and the bad ones returned. No good detection at all is an error either way.
    public static func read(_ text: String, file: String, skipBadLines: Bool) throws(InputError) -> FileContent {
        var out: [Detection] = []
        var bad: [InputError] = []
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            do throws(InputError) {
                guard let d = try parse(String(line), line: number, file: file) else { continue }
                if let last = out.last, d.t < last.t {
                    throw InputError(file: file, location: SourceLocation(line: number, column: 1, offset: 0),
                                     message: "time \(Format.number(d.t)) s is earlier than the previous detection's \(Format.number(last.t)) s; detections must be in time order")
                }
                // A session paces its launches on these times: a file spanning more than a day is a unit mistake.
                if let first = out.first, d.t - first.t > PlausibleRange.detectionSpanSeconds {
                    throw InputError(file: file, location: SourceLocation(line: number, column: 1, offset: 0),
                                     message: "time \(Format.number(d.t)) s is more than a day after the first detection's "
                                        + "\(Format.number(first.t)) s; a detections file spans at most \(Format.number(PlausibleRange.detectionSpanSeconds)) s (times are in seconds)")
                }
                out.append(d)
            } catch {
                guard skipBadLines else {
                    throw InputError(file: file, location: error.location, message: error.message
                        + "; nothing was done (--skip-bad-rows uses the good lines and lists the bad ones)")
                }
                bad.append(error)
            }
        }
        if out.isEmpty {
            let what = bad.isEmpty ? "the detections file is empty" : "no good detection line (\(bad.count) bad)"
            throw InputError(file: file, location: SourceLocation(line: max(1, bad.first?.location.line ?? 1), column: 1, offset: 0),
                             message: "\(what); give the player's positions as JSON lines {\"t\":seconds,\"x\":px,\"y\":px}")
        }
        return FileContent(detections: out, badLines: bad)
    }
}

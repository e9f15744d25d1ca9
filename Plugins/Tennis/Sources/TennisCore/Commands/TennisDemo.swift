// Demo data the project makes itself: a camera looking down the court from behind the baseline, its
// five calibration taps, and a scripted player whose feet are "detected" ten times a second.

public enum TennisDemo {
    /// Where the demo camera sees the four corners of the half court (1280×720 image, camera behind
    /// the baseline: the net is far away at the top, the baseline near at the bottom).
    public static let cornerPixels: [(CalibrationLandmark, Point2D)] = [
        (.netLeft, Point2D(430, 200)), (.netRight, Point2D(850, 200)),
        (.baselineLeft, Point2D(160, 640)), (.baselineRight, Point2D(1120, 640)),
    ]

    /// Court → image for the demo camera (exact through the four corners).
    public static func cameraHomography() -> Homography {
        let pairs = cornerPixels.map { PointPair(image: $0.1, court: $0.0.courtPoint) }
        // The DLT maps "image" → "court"; swap the roles to get court → image.
        let swapped = pairs.map { PointPair(image: $0.court, court: $0.image) }
        return (try? HomographyEstimator.directLinearTransform(swapped)) ?? .identity
    }

    /// The five taps an operator would make on the demo camera, rounded to half a pixel.
    public static func taps() -> CalibrationTaps {
        let h = cameraHomography()
        func tap(_ l: CalibrationLandmark) -> Point2D {
            let p = h.apply(l.courtPoint) ?? Point2D(0, 0)
            return Point2D((p.x * 2).rounded() / 2, (p.y * 2).rounded() / 2)
        }
        return CalibrationTaps(netLeft: tap(.netLeft), netRight: tap(.netRight), baselineLeft: tap(.baselineLeft),
                               baselineRight: tap(.baselineRight), t: tap(.t))
    }

    /// The taps as a taps file.
    public static func tapsJSON() -> String {
        let t = taps()
        let items = zip(CalibrationTaps.keys, t.points).map { "  \"\($0.0)\": [\(Format.number($0.1.x)), \(Format.number($0.1.y))]" }
        return "{\n" + items.joined(separator: ",\n") + "\n}\n"
    }

    /// Where the scripted player stands (court metres) and for how long (seconds); between stops the
    /// player walks in a straight line for one second.
    public static let script: [(Point2D, Double)] = [
        (Point2D(4.0, 10.5), 3.5),   // back, left of centre: zone 13
        (Point2D(1.2, 9.8), 3.0),    // back left: zone 12
        (Point2D(7.1, 10.9), 3.0),   // back right: zone 15
        (Point2D(3.0, 4.2), 3.0),    // volley position left of centre: zone 5
        (Point2D(6.5, 7.4), 3.0),    // right, behind the service line: zone 11
        (Point2D(1.0, 1.2), 3.0),    // at the net, left: zone 0
        (Point2D(5.0, 11.3), 3.0),   // baseline, centre right: zone 14
    ]

    /// Detections of the scripted player at `rate` per second, with deterministic pixel jitter.
    public static func detections(rate: Double = 10, jitterPixels: Double = 0.6, seed: UInt64 = 7) -> [Detection] {
        let camera = cameraHomography()
        var generator = SplitMix64(seed: seed)
        var path: [(t: Double, p: Point2D)] = []
        var t = 0.0
        for (i, (point, dwell)) in script.enumerated() {
            if i > 0 {
                path.append((t, script[i - 1].0))
                t += 1
            }
            path.append((t, point))
            t += dwell
        }
        path.append((t, script[script.count - 1].0))
        let end = t
        var out: [Detection] = []
        let step = 1 / rate
        var k = 0
        while Double(k) * step <= end {
            let now = Double(k) * step
            let court = position(on: path, at: now)
            let image = camera.apply(court) ?? Point2D(0, 0)
            func jitter() -> Double { (Double(generator.next() % 10_001) / 10_000 * 2 - 1) * jitterPixels }
            let x = ((image.x + jitter()) * 100).rounded() / 100, y = ((image.y + jitter()) * 100).rounded() / 100
            out.append(Detection(t: (now * 1000).rounded() / 1000, x: x, y: y))
            k += 1
        }
        return out
    }

    /// The detections as JSON lines.
    public static func detectionLines() -> String {
        detections().map(\.jsonLine).joined(separator: "\n") + "\n"
    }

    private static func position(on path: [(t: Double, p: Point2D)], at t: Double) -> Point2D {
        guard var previous = path.first else { return Point2D(0, 0) }
        for next in path.dropFirst() {
            if t <= next.t {
                let span = next.t - previous.t
                let f = span > 0 ? (t - previous.t) / span : 1
                return Point2D(previous.p.x + f * (next.p.x - previous.p.x), previous.p.y + f * (next.p.y - previous.p.y))
            }
            previous = next
        }
        return previous.p
    }

    /// The demo's drill: both deep corners, then two balls each in a short and a deep sector, every
    /// ball after the protocol's shortest interval (2 s), so the run takes 12 s.
    public static let drillJSON = """
        {
          "name": "demo: corners and sectors",
          "description": "Deep corners, then two short balls and two deep balls at random points of their sectors.",
          "seed": 11,
          "steps": [
            {"zone": 12, "speed": 50, "spin": "topspin", "delay": 2, "note": "deep left corner"},
            {"zone": 15, "speed": 50, "spin": "topspin", "delay": 2, "note": "deep right corner"},
            {"sector": {"x": [1.0, 7.2], "y": [2.5, 6.3]}, "speed": 40, "spin": "flat", "delay": 2, "repeat": 2, "note": "short, anywhere across"},
            {"sector": {"x": [0.5, 7.7], "y": [8.4, 11.6]}, "speed": 60, "spin": "extreme-topspin", "delay": 2, "repeat": 2, "note": "deep, anywhere across"}
          ]
        }

        """
}

import Foundation
import XCTest
@testable import TennisCore

final class ZoneTests: XCTestCase {
    func testDomainOracles() {
        XCTAssertEqual(CourtZones.zone(at: Point2D(0, 0)), 0)
        XCTAssertEqual(CourtZones.zone(at: Point2D(4.115, 6.40)), 10)
        XCTAssertEqual(CourtZones.zone(at: Point2D(4.115, 6.39)), 6)
        XCTAssertEqual(CourtZones.zone(at: Point2D(8.22, 11.88)), 15)
        XCTAssertNil(CourtZones.zone(at: Point2D(8.23, 1)))
    }

    func testBoundariesAreHalfOpenAndFollowTheRules() {
        // Boundaries are the rule's values: k·width/4 and 20 %, service line, 70 % of the half length.
        for k in 0...4 { XCTAssertEqual(Court.columnBounds[k], Court.width * Double(k) / 4, accuracy: 1e-12) }
        XCTAssertEqual(Court.rowBounds[1], 0.2 * Court.halfLength, accuracy: 1e-12)
        XCTAssertEqual(Court.rowBounds[2], Court.serviceLine)
        XCTAssertEqual(Court.rowBounds[3], 0.7 * Court.halfLength, accuracy: 1e-12)
        // On a boundary: the zone beyond it.
        XCTAssertEqual(CourtZones.zone(at: Point2D(2.0575, 0)), 1)
        XCTAssertEqual(CourtZones.zone(at: Point2D(2.0574, 0)), 0)
        XCTAssertEqual(CourtZones.zone(at: Point2D(6.1725, 2.377)), 7)
        XCTAssertEqual(CourtZones.zone(at: Point2D(6.1725, 2.3769)), 3)
        XCTAssertEqual(CourtZones.zone(at: Point2D(0, 8.3195)), 12)
        XCTAssertEqual(CourtZones.zone(at: Point2D(0, 8.3194)), 8)
        // Outside: behind the baseline, before the net, off either sideline, not a number.
        XCTAssertNil(CourtZones.zone(at: Point2D(1, 11.885)))
        XCTAssertNil(CourtZones.zone(at: Point2D(1, -0.001)))
        XCTAssertNil(CourtZones.zone(at: Point2D(-0.001, 5)))
        XCTAssertNil(CourtZones.zone(at: Point2D(.nan, 5)))
    }

    func testEveryZoneCentreIsInItsZone() {
        for z in 0..<16 {
            let c = CourtZones.center(of: z)!
            XCTAssertEqual(CourtZones.zone(at: c), z)
            XCTAssertEqual(z, (z / 4) * 4 + z % 4)
        }
        XCTAssertNil(CourtZones.bounds(of: 16))
        XCTAssertNil(CourtZones.center(of: -1))
    }

    func testClampingRule() {
        XCTAssertEqual(Court.clamp(Point2D(-5, 40)), Point2D(-1, 14.885))
        XCTAssertEqual(Court.clamp(Point2D(12, -3)), Point2D(9.23, -1))
        XCTAssertEqual(Court.clamp(Point2D(3, 4)), Point2D(3, 4))
    }

    func testZoneCommandReport() {
        XCTAssertEqual(TennisCommands.zone(Point2D(4.115, 6.40)).text, "(4.115, 6.400) m: zone 10 (row 2, column 2)")
        XCTAssertEqual(TennisCommands.zone(Point2D(8.23, 1)).text, "(8.230, 1.000) m: no zone (outside the half court)")
        XCTAssertNil(TennisCommands.zone(Point2D(8.23, 1)).zone)
    }
}

final class CalibrationTests: XCTestCase {
    /// A camera (court → image) seen from behind the baseline, strongly foreshortened.
    let camera = TennisDemo.cameraHomography()

    func taps(through h: Homography) -> CalibrationTaps {
        CalibrationTaps(netLeft: h.apply(CalibrationLandmark.netLeft.courtPoint)!, netRight: h.apply(CalibrationLandmark.netRight.courtPoint)!,
                        baselineLeft: h.apply(CalibrationLandmark.baselineLeft.courtPoint)!,
                        baselineRight: h.apply(CalibrationLandmark.baselineRight.courtPoint)!, t: h.apply(CalibrationLandmark.t.courtPoint)!)
    }

    func testDerivedPointsAreTheTrueImagesOfTheLandmarks() throws {
        let derived = try CameraCalibration.deriveLandmarks(taps(through: camera))
        XCTAssertLessThan(derived.serviceLeft.distance(to: camera.apply(CalibrationLandmark.serviceLeft.courtPoint)!), 1e-9)
        XCTAssertLessThan(derived.serviceRight.distance(to: camera.apply(CalibrationLandmark.serviceRight.courtPoint)!), 1e-9)
        XCTAssertLessThan(derived.netCenter.distance(to: camera.apply(CalibrationLandmark.netCenter.courtPoint)!), 1e-9)
    }

    func testDerivationWorksWhenImageLinesAreParallel() throws {
        // An overhead camera: pure scale and shift, so net ∥ baseline and sidelines ∥ each other in the image.
        let overhead = try Homography(rows: [[50, 0, 100], [0, 50, 40], [0, 0, 1]])
        let calibration = try CameraCalibration.calibrate(taps(through: overhead), camera: "overhead")
        XCTAssertLessThan(calibration.maxError, 1e-9)
        XCTAssertEqual(calibration.pairs[7].image.x, 100 + 50 * 4.115, accuracy: 1e-9)
    }

    func testCalibrationFromFiveTapsRecoversTheCamera() throws {
        let calibration = try CameraCalibration.calibrate(taps(through: camera), camera: "court-1")
        XCTAssertEqual(calibration.pairs.count, 8)
        XCTAssertEqual(calibration.pairs.map(\.court), CalibrationLandmark.allCases.map(\.courtPoint))
        XCTAssertLessThan(calibration.rmsError, 1e-9)
        let imageToCourt = camera.inverse!
        for x in stride(from: 200.0, through: 1100, by: 100) {
            for y in stride(from: 210.0, through: 700, by: 70) {
                let p = Point2D(x, y)
                XCTAssertLessThan(calibration.homography.apply(p)!.distance(to: imageToCourt.apply(p)!), 1e-6)
            }
        }
        // What the adapter saves comes back identical.
        let data = try JSONEncoder().encode(calibration)
        XCTAssertEqual(try JSONDecoder().decode(CameraCalibration.self, from: data), calibration)
        XCTAssertEqual(calibration.format, "clubhouse.tennis.calibration/1")
    }

    func testNoisyTapsAreFittedInLeastSquares() throws {
        var t = taps(through: camera)
        t.t.x += 3 // a sloppy T tap
        let calibration = try CameraCalibration.calibrate(t)
        XCTAssertGreaterThan(calibration.rmsError, 1e-4)
        XCTAssertLessThan(calibration.maxError, 0.5)
    }

    func testProjectionClampsAndFindsZones() throws {
        let calibration = try CameraCalibration.calibrate(taps(through: camera))
        let inZone5 = camera.apply(Point2D(3.0, 4.2))!
        let location = try calibration.locate(inZone5)
        XCTAssertEqual(location.zone, 5)
        XCTAssertFalse(location.wasClamped)
        XCTAssertLessThan(location.court.distance(to: Point2D(3.0, 4.2)), 1e-6)
        // Far off the left sideline: clamped to x = −1, no zone; behind the baseline: y clamped to 14.885.
        let wide = try calibration.locate(camera.apply(Point2D(-4, 5))!)
        XCTAssertTrue(wide.wasClamped)
        XCTAssertEqual(wide.clamped.x, -1)
        XCTAssertEqual(wide.clamped.y, 5, accuracy: 1e-9)
        XCTAssertNil(wide.zone)
        let behind = try calibration.locate(camera.apply(Point2D(4, 16.5))!)
        XCTAssertEqual(behind.clamped.y, 14.885)
        XCTAssertEqual(behind.court.y, 16.5, accuracy: 1e-6)
        XCTAssertEqual(try TennisCommands.project(inZone5, calibration: calibration).text,
                       "image \(inZone5.rounded(2)) px → court (3.000, 4.200) m, zone 5")
    }

    func testPointsAboveTheHorizonAreRefused() throws {
        let calibration = try CameraCalibration.calibrate(taps(through: camera))
        // The net is at image y = 200 and the view converges upwards; y = 0 is beyond the horizon.
        assertThrows(try calibration.locate(Point2D(640, -400)), "lies on or above the horizon", "feet point")
        assertThrows(try calibration.locate(Point2D(.nan, 3)), "not a finite number")
    }

    func testBadTapsAreRefusedWithClearErrors() {
        let good = taps(through: camera)
        var swapped = good
        swap(&swapped.baselineLeft, &swapped.baselineRight)
        assertThrows(try CameraCalibration.calibrate(swapped), "do not form a convex quadrilateral", "swapped")
        var outside = good
        outside.t = Point2D(20, 700)
        assertThrows(try CameraCalibration.calibrate(outside), "the T tap lies outside")
        var repeated = good
        repeated.netRight = repeated.netLeft
        assertThrows(try CameraCalibration.calibrate(repeated), "taps net_left and net_right are the same image point")
        var collinear = good
        collinear.baselineRight = Point2D(2 * good.netRight.x - good.netLeft.x, 200)
        assertThrows(try CameraCalibration.calibrate(collinear), "taps net_left, net_right, baseline_right lie on one line")
        assertThrows(try CameraCalibration.calibrate(good, camera: "court 1"), "camera name \"court 1\" is not valid")
        assertThrows(try CameraCalibration.calibrate(good, camera: ""), "camera name \"\" is not valid")
    }

    func testCalibrateCommandReadsATapsFile() throws {
        let report = try TennisCommands.calibrate(tapsJSON: TennisDemo.tapsJSON(), file: "taps.json", camera: "cam-a")
        XCTAssertEqual(report.calibration.camera, "cam-a")
        XCTAssertTrue(report.text.contains("service-left"))
        XCTAssertTrue(report.text.contains("(derived)"))
        let named = try TennisCommands.calibrate(tapsJSON: #"{"net_left":[430,200],"net_right":[850,200],"baseline_left":[160,640],"baseline_right":[1120,640],"t":[640,412.5],"camera":"side"}"#,
                                                 file: "t.json", camera: nil)
        XCTAssertEqual(named.calibration.camera, "side")
    }

    func testTapsFileErrorsPointAtTheLine() {
        assertThrows(try TapsFile.parse("{\n \"net_left\": [1, 2],\n \"net_rigth\": [3, 4]\n}", file: "taps.json"),
                     "taps.json:3:2: unknown key \"net_rigth\"")
        assertThrows(try TapsFile.parse(#"{"net_left":[1,2],"net_right":[3,4],"baseline_left":[5,6],"baseline_right":[7,8]}"#, file: "taps.json"),
                     "taps.json:1:1: missing \"t\"")
        assertThrows(try TapsFile.parse("{\"net_left\":[1,2,3],\"net_right\":[3,4],\"baseline_left\":[5,6],\"baseline_right\":[7,8],\"t\":[1,1]}", file: "taps.json"),
                     "taps.json:1:13: net_left must be an array of two numbers [x, y], found an array of 3")
        assertThrows(try TapsFile.parse("{\"net_left\":[1,\"2\"],\"net_right\":[3,4],\"baseline_left\":[5,6],\"baseline_right\":[7,8],\"t\":[1,1]}", file: "taps.json"),
                     "taps.json:1:16: net_left y must be a number, found a string")
        assertThrows(try TapsFile.parse("{\"net_left\":[1e999,2]}", file: "taps.json"), "taps.json:1:14: net_left x 1e999 is too large")
        assertThrows(try TapsFile.parse("{\"net_left\":", file: "taps.json"), "taps.json:1:13:")
        assertThrows(try TapsFile.parse(#"{"net_left":[1,2],"net_right":[3,4],"baseline_left":[5,6],"baseline_right":[7,8],"t":[1,1],"camera":"a b"}"#, file: "taps.json"),
                     "taps.json:1:101: camera must be a name")
    }
}

final class PairsFileTests: XCTestCase {
    func testHomographyCommandReportsMatrixInverseAndErrors() throws {
        let text = """
        {"pairs": [
          {"image": [430, 200], "court": [0, 0]},
          {"image": [850, 200], "court": [8.23, 0]},
          {"image": [160, 640], "court": [0, 11.885]},
          {"image": [1120, 640], "court": [8.23, 11.885]}
        ], "points": [[640, 400]]}
        """
        let report = try TennisCommands.homography(pairsJSON: text, file: "pairs.json")
        XCTAssertEqual(report.homography[2, 2], 1)
        XCTAssertEqual(report.normalization, "H[2][2] = 1")
        XCTAssertLessThan(report.maxError, 1e-9)
        XCTAssertEqual(report.projectedPoints.count, 1)
        XCTAssertTrue(report.text.contains("inverse (court → image):"))
        XCTAssertTrue(report.text.contains("reprojection error: rms"))
        // The inverse maps the court corners back onto the pixels.
        XCTAssertLessThan(report.inverse.apply(Point2D(8.23, 11.885))!.distance(to: Point2D(1120, 640)), 1e-6)
        // The alternative form of the file.
        let alt = try TennisCommands.homography(pairsJSON: #"{"image":[[430,200],[850,200],[160,640],[1120,640]],"court":[[0,0],[8.23,0],[0,11.885],[8.23,11.885]]}"#, file: "alt.json")
        XCTAssertEqual(alt.homography, report.homography)
    }

    func testPairsFileErrorsAreLocated() {
        assertThrows(try PairsFile.parse("{\"pairs\": 3}", file: "p.json"), "p.json:1:11: pairs must be an array")
        assertThrows(try PairsFile.parse("{\"pairs\": [{\"image\": [1, 2], \"cort\": [1, 2]}]}", file: "p.json"), "p.json:1:30: unknown key \"cort\"")
        assertThrows(try PairsFile.parse("{\"pairs\": [{\"image\": [1, 2]}]}", file: "p.json"), "p.json:1:12: missing court point")
        assertThrows(try PairsFile.parse("{\"image\": [[1,2]], \"court\": []}", file: "p.json"), "p.json:1:29: \"image\" has 1 points but \"court\" has 0")
        assertThrows(try PairsFile.parse("{}", file: "p.json"), "p.json:1:1: missing \"pairs\"")
        assertThrows(try PairsFile.parse("[]", file: "p.json"), "p.json:1:1: expected an object, found an array")
        // Estimation errors name the pair and where it is in the file.
        let repeated = """
        {"pairs": [
          {"image": [430, 200], "court": [0, 0]},
          {"image": [850, 200], "court": [8.23, 0]},
          {"image": [430, 200], "court": [0, 11.885]},
          {"image": [1120, 640], "court": [8.23, 11.885]}
        ]}
        """
        assertThrows(try TennisCommands.homography(pairsJSON: repeated, file: "p.json"),
                     "p.json:4:3: pairs 0 and 2 have the same image point")
        assertThrows(try TennisCommands.homography(pairsJSON: #"{"pairs":[{"image":[1,2],"court":[3,4]}]}"#, file: "p.json"),
                     "at least 4 point pairs, got 1")
    }
}

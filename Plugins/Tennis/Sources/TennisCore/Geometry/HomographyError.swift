// Why a set of point pairs does not give a homography, said so an operator can fix the input.

import Glibc

/// Which side of the pairs a point belongs to.
public enum PlaneSide: String, Sendable, Codable {
    case image, court
}

public enum HomographyError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooFewPairs(Int)
    case nonFinitePoint(pair: Int, side: PlaneSide)
    case repeatedPoint(side: PlaneSide, first: Int, second: Int)
    case collinearPoints(side: PlaneSide, pairs: [Int])
    case noGeneralPosition(side: PlaneSide)
    case notUnique
    case singular
    case noConsensus(inliers: Int, needed: Int, threshold: Double)
    case degenerateConsensus(inliers: Int)
    /// So many pairs agree that it could be chance at this threshold.
    case chanceConsensus(inliers: Int, pairs: Int, threshold: Double)
    /// The agreeing pairs leave the court uncertain by more than the limit (metres, 3σ).
    case untrustworthyFit(inliers: Int, pairs: Int, uncertainty: Double, limit: Double, noise: Double)
    case solverDidNotConverge
    case malformedMatrix(String)

    public var description: String {
        switch self {
        case .tooFewPairs(let n):
            return "a homography needs at least 4 point pairs, got \(n); add pairs"
        case .nonFinitePoint(let pair, let side):
            return "pair \(pair): the \(side.rawValue) point is not a finite number; give real coordinates"
        case .repeatedPoint(let side, let first, let second):
            return "pairs \(first) and \(second) have the same \(side.rawValue) point; each pair needs its own point, remove or fix one"
        case .collinearPoints(let side, let pairs):
            let list = pairs.map(String.init).joined(separator: ", ")
            return "the \(side.rawValue) points of pairs \(list) lie on one line; 4 pairs must have no three collinear, move or replace one"
        case .noGeneralPosition(let side):
            return "the \(side.rawValue) points all lie on one line (but at most one); a homography needs 4 points with no three collinear, add points off that line"
        case .notUnique:
            return "the pairs do not determine a unique homography (points nearly collinear or coincident); spread the points over the plane"
        case .singular:
            return "the pairs give a singular map (the image points and court points are not related by a homography); check that each image point matches its court point"
        case .noConsensus(let inliers, let needed, let threshold):
            return "robust estimation found no consensus: the best model explains only \(inliers) pairs within \(Format.number(threshold)) (needs \(needed)); raise the threshold or fix the outliers"
        case .degenerateConsensus(let inliers):
            return "robust estimation: the \(inliers) pairs that agree lie on one line (or repeat a point), so they do not fix a homography; add pairs spread over the court or lower the threshold"
        case .chanceConsensus(let inliers, let pairs, let threshold):
            return "robust estimation: the \(inliers) of \(pairs) pairs that agree within \(Format.number(threshold)) m could agree by chance (the threshold covers too much of the court); the matches are too few to trust: lower the threshold or add pairs"
        case .untrustworthyFit(let inliers, let pairs, let uncertainty, let limit, let noise):
            let spread = uncertainty.isFinite ? "by up to \(Format.fixed(uncertainty, 2)) m" : "without bound"
            return "robust estimation: the matches are too few or too noisy to trust: the \(inliers) of \(pairs) pairs that agree (scatter \(Format.fixed(noise, 2)) px) leave the court uncertain \(spread) somewhere on the half court (the limit is \(Format.fixed(limit, 2)) m); add pairs spread over the whole court or sharpen the detections"
        case .solverDidNotConverge:
            return "the SVD did not converge (input too ill-conditioned); check the point coordinates"
        case .malformedMatrix(let what):
            return "malformed homography matrix: \(what); give 3 rows of 3 finite numbers"
        }
    }

}

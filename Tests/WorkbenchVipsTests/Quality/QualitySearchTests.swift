import Foundation
import Testing
@testable import WorkbenchVips

/// The search alone, on made-up encoders whose score and size grow with the quality: it finds
/// the boundary exactly within its budget (tolerance 0), from any start, for each goal and both;
/// with a tolerance it stops at the first trial within it; it steps by a slope it is given, and
/// does not draw lines across a jump in the score.
@Suite struct QualitySearchTests {
    /// A score rising 0.7 a quality step from 20 at Q 10, and a size rising 3% a step.
    static func encoder(_ quality: Int) -> QualitySearch.Trial {
        QualitySearch.Trial(quality: quality, bytes: Int(10_000 * pow(1.03, Double(quality))), score: 20 + 0.7 * Double(quality - 10))
    }

    @Test(arguments: [nil, 10, 30, 62, 95, 100])
    func findsTheLowestQualityThatReachesTheScore(start: Int?) {
        var target = EncodeTarget()
        target.score = 64
        target.tolerance = 0
        let answer = QualitySearch(target: target).run(start: start) { Self.encoder($0) }
        // 20 + 0.7 × (q − 10) ≥ 64 first at q = 73.
        #expect(answer.chosen.quality == 73 && answer.met, "\(answer.trials.map(\.quality))")
        #expect(answer.trials.count <= target.encodes)
    }

    @Test func aByteBudgetKeepsTheHighestQualityThatFits() {
        var target = EncodeTarget()
        target.maxBytes = 80_000
        let answer = QualitySearch(target: target).run(start: nil) { Self.encoder($0) }
        #expect(answer.chosen.bytes <= 80_000 && Self.encoder(answer.chosen.quality + 1).bytes > 80_000, "\(answer.trials.map(\.quality))")
        #expect(answer.met)
    }

    @Test func bothGoalsTakeTheScoreUnlessItIsOverBudget() {
        var target = EncodeTarget()
        target.score = 64
        target.tolerance = 0
        target.maxBytes = 1_000_000
        #expect(QualitySearch(target: target).run(start: nil) { Self.encoder($0) }.chosen.quality == 73)
        target.maxBytes = 60_000
        let tight = QualitySearch(target: target).run(start: nil) { Self.encoder($0) }
        #expect(tight.chosen.bytes <= 60_000 && !tight.met, "\(tight.trials.map(\.quality))")
    }

    @Test func anUnreachableScoreKeepsTheHighestQualityAndSaysSo() {
        var target = EncodeTarget()
        target.score = 99
        target.maxQ = 90
        let answer = QualitySearch(target: target).run(start: nil) { Self.encoder($0) }
        #expect(answer.chosen.quality == 90 && !answer.met)
    }

    /// Within the tolerance the first trial there is kept; with the encoder's slope known, the
    /// second trial lands there from a start ten steps away.
    @Test(arguments: [40, 62, 84])
    func aTrialWithinTheToleranceEndsTheSearch(start: Int) {
        var target = EncodeTarget()
        target.score = 64
        target.tolerance = 1.5
        let answer = QualitySearch(target: target).run(start: start, slope: 0.7) { Self.encoder($0) }
        let score = answer.chosen.score ?? 0
        #expect(answer.met && score >= 64 && score <= 65.5, "\(answer.trials.map(\.quality))")
        #expect(answer.trials.count <= 2, "\(answer.trials.map(\.quality))")
    }

    /// A score that flattens toward the top (a grey photo's, or a flat graphic's): from a start
    /// far above the answer, a slope measured at the top sent the next trial to the range's end,
    /// and a straight line from that far low end landed short each time. Stepping down at most
    /// half way to the end, and halving the weight of an end kept twice (Illinois), reach the
    /// band.
    @Test(arguments: [78, 95, 20])
    func aScoreThatFlattensIsBracketedInFewTrials(start: Int) {
        func flattening(_ quality: Int) -> QualitySearch.Trial {
            QualitySearch.Trial(quality: quality, bytes: quality * 100, score: 100 - 800 / Double(quality + 5))
        }
        var target = EncodeTarget()
        target.score = 80
        // 100 − 800 / (q + 5) is 80 at Q 35 and 81.5 at Q 38.2: Q 35–38 are in the band.
        let answer = QualitySearch(target: target).run(start: start, slope: nil) { flattening($0) }
        #expect(answer.met && (35...38).contains(answer.chosen.quality), "\(answer.trials.map(\.quality))")
        // From the first search's own start (78 for a score of 80), or from below, in four;
        // from 60 qualities above the answer, within the default budget of six.
        #expect(answer.trials.count <= (start == 95 ? 6 : 4), "\(answer.trials.map(\.quality))")
    }

    /// A score the quality does not move (a flat graphic: 100 at any Q): after two trials apart
    /// scoring the same, the range's lowest, which is the answer — not a walk down to it.
    @Test func aFlatScoreGoesStraightToTheLowestQuality() {
        var target = EncodeTarget()
        target.score = 80
        let answer = QualitySearch(target: target).run(start: 78, slope: nil) { quality in
            QualitySearch.Trial(quality: quality, bytes: 1000 + quality * 10, score: 100)
        }
        #expect(answer.met && answer.chosen.quality == target.minQ, "\(answer.trials.map(\.quality))")
        #expect(answer.trials.count <= 3, "\(answer.trials.map(\.quality))")
    }

    /// Where libvips' savers stop subsampling chroma: JPEG and AVIF at Q 90, unless the node
    /// sets a mode; never for WebP or JPEG XL.
    @Test func theJumpIsWhereLibvipsSaversStopSubsampling() {
        #expect(EncodeStage.chromaJump(format: "jpeg", options: [:]) == 90)
        #expect(EncodeStage.chromaJump(format: "avif", options: ["effort": .int(3)]) == 90)
        #expect(EncodeStage.chromaJump(format: "jpeg", options: ["subsample_mode": .enumeration(1)]) == nil)
        #expect(EncodeStage.chromaJump(format: "avif", options: ["subsample_mode": .enumeration(2)]) == nil)
        #expect(EncodeStage.chromaJump(format: "webp", options: [:]) == nil)
        #expect(EncodeStage.chromaJump(format: "jxl", options: [:]) == nil)
    }

    /// libvips' JPEG at Q 90 stops subsampling chroma: the score leaps there. Q 89 reaches the
    /// target; lines drawn across the leap would keep guessing too low, then settle on Q 90.
    @Test(arguments: [nil, 90, 95, 70])
    func aJumpInTheScoreIsNotInterpolatedAcross(start: Int?) {
        func jumpy(_ quality: Int) -> QualitySearch.Trial {
            let smooth = 40 + 0.45 * Double(quality - 40)
            return QualitySearch.Trial(quality: quality, bytes: quality * 1000, score: smooth + (quality >= 90 ? 9 : 0))
        }
        var target = EncodeTarget()
        target.score = 62
        target.tolerance = 0
        // 40 + 0.45 × (q − 40) ≥ 62 first at q = 89.
        let answer = QualitySearch(target: target, jump: 90).run(start: start, slope: 0.6) { jumpy($0) }
        #expect(answer.chosen.quality == 89 && answer.met, "\(answer.trials.map(\.quality))")
        #expect(answer.trials.count <= target.encodes)
    }
}

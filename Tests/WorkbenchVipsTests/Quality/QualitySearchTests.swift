import Foundation
import Testing
@testable import WorkbenchVips

/// The search alone, on made-up encoders whose score and size grow with the quality: it finds
/// the boundary exactly within its budget, from any start, for each goal and both.
@Suite struct QualitySearchTests {
    /// A score rising 0.7 a quality step from 20 at Q 10, and a size rising 3% a step.
    static func encoder(_ quality: Int) -> QualitySearch.Trial {
        QualitySearch.Trial(quality: quality, bytes: Int(10_000 * pow(1.03, Double(quality))), score: 20 + 0.7 * Double(quality - 10))
    }

    @Test(arguments: [nil, 10, 30, 62, 95, 100])
    func findsTheLowestQualityThatReachesTheScore(start: Int?) {
        var target = EncodeTarget()
        target.score = 64
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
}

import Foundation
import Testing
@testable import WorkbenchReports

/// The report's timings per op: exact for a few bodies, within 1 % for a million.
@Suite struct DurationSummaryTests {
    @Test func fewDurationsGiveExactQuantiles() {
        var summary = DurationSummary()
        for seconds in [0.5, 0.1, 0.3, 0.2, 0.4] { summary.add(seconds) }
        #expect(summary.count == 5 && abs(summary.total - 1.5) < 1e-12 && summary.maximum == 0.5)
        #expect(summary.quantile(0.5) == 0.3)
        #expect(summary.quantile(0.95) == 0.5 && summary.quantile(0) == 0.1)
    }

    @Test func manyDurationsGiveQuantilesWithinOnePercent() {
        var summary = DurationSummary()
        // 1 ms … 1 s, evenly: the p50 is about 0.5 s, the p95 about 0.95 s.
        let count = 200_000
        for index in 0..<count { summary.add(0.001 + 0.999 * Double(index) / Double(count - 1)) }
        #expect(summary.count == count && summary.maximum == 1.0)
        #expect(abs(summary.quantile(0.5) / 0.5005 - 1) < 0.01)
        #expect(abs(summary.quantile(0.95) / 0.94905 - 1) < 0.01)
        #expect(abs(summary.mean - 0.5005) < 1e-9)
    }
}

import Foundation

/// Seconds of many bodies of one op, for the report's count, total, mean, p50, p95 and max:
/// exact while there are few, then a histogram of buckets 1 % wide on a log scale, so a run of a
/// million items keeps a few kilobytes per op instead of every duration.
struct DurationSummary {
    /// Durations kept exactly up to this many.
    static let exactLimit = 4096
    /// Bucket k holds durations in [ratio^k, ratio^(k+1)).
    private static let ratio = 1.01
    private static let logRatio = log(ratio)

    private(set) var count = 0
    private(set) var total = 0.0
    private(set) var maximum = 0.0
    private var exact: [Double] = []
    private var buckets: [Int: Int] = [:]

    mutating func add(_ seconds: Double) {
        let value = max(0, seconds)
        count += 1
        total += value
        maximum = max(maximum, value)
        if buckets.isEmpty && exact.count < Self.exactLimit {
            exact.append(value)
            return
        }
        for kept in exact { buckets[Self.bucket(kept), default: 0] += 1 }
        exact.removeAll()
        buckets[Self.bucket(value), default: 0] += 1
    }

    private static func bucket(_ seconds: Double) -> Int {
        Int((log(max(seconds, 1e-9)) / logRatio).rounded(.down))
    }

    var mean: Double { count == 0 ? 0 : total / Double(count) }

    /// The duration at quantile `q` (0…1): exact while few, else within 1 %.
    func quantile(_ q: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = min(count - 1, Int((Double(count - 1) * q).rounded()))
        if buckets.isEmpty { return exact.sorted()[rank] }
        var seen = 0
        for key in buckets.keys.sorted() {
            seen += buckets[key] ?? 0
            if seen > rank { return min(maximum, pow(Self.ratio, Double(key) + 0.5)) }
        }
        return maximum
    }
}

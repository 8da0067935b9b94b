import Foundation

/// When an S3 request is sent again: after SlowDown, 500-series answers, throttling and
/// connection failures, up to `attempts` times, pausing a random time up to a cap that doubles
/// each time ("full jitter", so many clients slowed at once do not come back at once), and at
/// least as long as the server's Retry-After.
struct S3Retry: Sendable {
    var attempts = 5
    var base = 0.1
    var cap = 10.0
    private(set) var made = 1

    func next() -> S3Retry {
        var copy = self
        copy.made += 1
        return copy
    }

    /// The pause before the next attempt, or nil when `error` is final or attempts are spent.
    func delay(after error: DownloadError) -> Double? {
        guard made < attempts else { return nil }
        var floor = 0.0
        switch error {
        case .service(let failure):
            switch failure as? S3Error {
            case .refused(_, _, let status, let code, _, _, let retryAfter)?:
                guard status >= 500 || status == 429 || code == "SlowDown" || code == "RequestTimeout" else { return nil }
                floor = retryAfter ?? 0
            case .integrity?, .unreachable?:
                break
            default:
                return nil
            }
        case .transport, .tooSlow:
            break
        default:
            return nil
        }
        let ceiling = min(cap, base * pow(2, Double(made - 1)))
        return max(min(floor, 60), Double.random(in: 0...ceiling))
    }
}

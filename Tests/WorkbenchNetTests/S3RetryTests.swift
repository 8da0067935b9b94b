import Foundation
import Testing
import WorkbenchCore
@testable import WorkbenchNet

/// When S3 requests are sent again, and what a refusal tells the user to do.
@Suite struct S3RetryTests {
    private func refusal(_ status: Int, _ code: String, retryAfter: Double? = nil) -> DownloadError {
        .service(S3Error.refused(operation: "GetObject", location: "s3://photos/a.jpg", status: status, code: code, message: "",
                                 credentials: "the environment (AWS_ACCESS_KEY_ID)", retryAfter: retryAfter))
    }

    @Test func slowDownAndServerErrorsAreRetriedWithinACapThatDoubles() {
        var retry = S3Retry()
        for attempt in 1..<retry.attempts {
            let ceiling = min(retry.cap, retry.base * pow(2, Double(attempt - 1)))
            for _ in 0..<50 {
                let delay = retry.delay(after: refusal(503, "SlowDown"))
                #expect(delay != nil && delay! >= 0 && delay! <= ceiling, "attempt \(attempt): \(String(describing: delay))")
            }
            #expect(retry.delay(after: .service(S3Error.unreachable(location: "s3://photos/a.jpg", code: 56, message: "Connection reset by peer",
                                                                      endpointIsDefault: false))) != nil)
            retry = retry.next()
        }
        // Attempts spent: the failure is final.
        #expect(retry.delay(after: refusal(503, "SlowDown")) == nil)
    }

    @Test func retryAfterIsAFloorAndRefusalsAreFinal() {
        let retry = S3Retry()
        for _ in 0..<20 { #expect((retry.delay(after: refusal(503, "SlowDown", retryAfter: 2)) ?? 0) >= 2) }
        #expect(retry.delay(after: refusal(500, "InternalError")) != nil && retry.delay(after: refusal(429, "TooManyRequests")) != nil)
        for (status, code) in [(404, "NoSuchKey"), (403, "AccessDenied"), (403, "SignatureDoesNotMatch"), (400, "ExpiredToken")] {
            #expect(retry.delay(after: refusal(status, code)) == nil, "\(code)")
        }
        #expect(retry.delay(after: .cancelled(url: "s3://photos/a.jpg")) == nil)
    }

    /// A host the user never typed: made from the bucket and the region because no endpoint
    /// was set. The message says so instead of asking to check its spelling.
    @Test func anUnknownAWSHostSaysNoEndpointWasSet() {
        let error = S3Error.unreachable(location: "s3://photos/in/", code: 6, message: "Could not resolve host: photos.s3.us-east-1.amazonaws.com",
                                        endpointIsDefault: true)
        #expect(error.description.contains("with no S3 endpoint set, AWS itself is assumed"), "\(error)")
        #expect(!error.description.contains("check its spelling"))
        // A host the user set is theirs to check; the transport itself knows nothing of S3.
        let set = S3Error.unreachable(location: "s3://photos/in/", code: 6, message: "Could not resolve host: minio.lan", endpointIsDefault: false)
        #expect(set.description.contains("check its spelling") && set.description.contains("could not be reached"))
        let typed = DownloadError.transport(url: "http://phtoos.example/a.jpg", code: 6, message: "Could not resolve host: phtoos.example")
        #expect(typed.description.contains("check its spelling"))
    }

    @Test func refusalsSayWhatToFixAndWhichStopTheRun() {
        let cases: [(Int, String, String, Bool)] = [
            (404, "NoSuchBucket", "the bucket s3://photos does not exist there", true),
            (404, "NoSuchKey", "there is no object s3://photos/a.jpg", false),
            (403, "InvalidAccessKeyId", "the server does not know the access key from the environment (AWS_ACCESS_KEY_ID)", true),
            (403, "SignatureDoesNotMatch", "check AWS_SECRET_ACCESS_KEY", true),
            (400, "ExpiredToken", "the session token from the environment (AWS_ACCESS_KEY_ID) has expired", true),
            (403, "AccessDenied", "may not do GetObject on s3://photos/a.jpg", false),
            (400, "AuthorizationHeaderMalformed", "set AWS_REGION to the bucket's region", true),
            (403, "RequestTimeTooSkewed", "this machine's clock is off", true),
        ]
        for (status, code, advice, stops) in cases {
            let error = refusal(status, code)
            #expect(error.description.hasPrefix("s3://photos/a.jpg: GetObject failed (\(status) \(code))"), "\(error)")
            #expect(error.description.contains(advice), "\(error)")
            guard case .service(let failure) = error else { Issue.record("not a service failure: \(error)"); continue }
            #expect((failure as? S3Error)?.stopsRun == stops, "\(code)")
        }
    }
}

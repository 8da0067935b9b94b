import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchNet

/// Request signing: AWS's published examples to the digit, then a real S3 server (moto, with
/// signatures checked) that takes our signature and refuses a wrong secret's.
@Suite struct S3SigningTests {
    private let example = S3Credentials(accessKey: "AKIAIOSFODNN7EXAMPLE", secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                                        source: "the example")
    private let day = Date(timeIntervalSince1970: 1_369_353_600) // 2013-05-24T00:00:00Z

    private func signature(_ headers: [(String, String)]) -> String? {
        headers.first { $0.0 == "Authorization" }?.1.components(separatedBy: "Signature=").last
    }

    @Test func signsAWSsGetObjectExample() {
        let headers = SigV4(credentials: example, region: "us-east-1")
            .headers(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", query: [],
                     headers: [("Range", "bytes=0-9")], payloadHash: S3Client.emptyPayloadHash, date: day)
        #expect(signature(headers) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers.first { $0.0 == "Authorization" }?.1.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date") == true)
    }

    @Test func signsAWSsListObjectsExample() {
        let headers = SigV4(credentials: example, region: "us-east-1")
            .headers(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/", query: [("prefix", "J"), ("max-keys", "2")],
                     headers: [], payloadHash: S3Client.emptyPayloadHash, date: day)
        #expect(signature(headers) == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test func encodesKeysAsS3Does() {
        #expect(SigV4.encode("a b/ü+&.jpg", keepingSlashes: true) == "a%20b/%C3%BC%2B%26.jpg")
        #expect(SigV4.canonicalQuery([("prefix", "a/b c"), ("list-type", "2")]) == "list-type=2&prefix=a%2Fb%20c")
    }

    @Test func theServerTakesOurSignatureAndRefusesAWrongSecret() throws {
        let server = try S3Server()
        try server.makeBucket("signed")
        try server.put(Fixtures.samples.appendingPathComponent("Bridge.jpg"), bucket: "signed", key: "dir/a b.jpg")
        let good = S3Client(settings: S3Settings(environment: server.environment))
        let answer = try good.perform(S3Client.Request(operation: "GetObject", location: S3Location(bucket: "signed", key: "dir/a b.jpg")),
                                      limits: ListPages.limits)
        #expect(answer.data == (try Data(contentsOf: Fixtures.samples.appendingPathComponent("Bridge.jpg"))))

        var wrong = server.environment
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
        let refused = S3Client(settings: S3Settings(environment: wrong))
        #expect {
            _ = try refused.perform(S3Client.Request(operation: "GetObject", location: S3Location(bucket: "signed", key: "dir/a b.jpg")),
                                    limits: ListPages.limits)
        } throws: { error in
            guard let error = error as? DownloadError, case .service(let failure) = error,
                  case .refused(_, _, 403, "SignatureDoesNotMatch", _, _, _)? = failure as? S3Error else { return false }
            return error.description.contains("AWS_SECRET_ACCESS_KEY") && !error.description.contains("not-the-secret")
                && error.description.contains("s3://signed/dir/a b.jpg")
        }
    }
}

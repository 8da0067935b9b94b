import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchNet

/// Uploads against a real S3 server (moto): multipart with its parts checked, and an upload
/// that fails part way aborted, leaving no upload behind.
@Suite struct S3UploadTests {
    private func body(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }) }

    @Test(arguments: [false, true])
    func aLargeObjectGoesUpInPartsAndComesBackTheSame(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let big = server.bucket("big")
        try server.makeBucket(big)
        let client = S3Client(settings: S3Settings(environment: server.environment))
        let data = body(11 << 20)
        let upload = S3Upload(client: client, multipartThreshold: 6 << 20, partSize: 5 << 20)
        try upload.put(data, to: S3Location(bucket: big, key: "a/large.tif"),
                       options: UploadOptions(contentType: "image/tiff", cacheControl: "max-age=60", metadata: ["Source": "test"]),
                       cancellation: CancellationToken())
        let requests = try server.requests()
        #expect(requests["CREATE upload"] == 1 && requests["PUT part"] == 3 && requests["COMPLETE upload"] == 1, "\(requests)")
        let back = try client.perform(S3Client.Request(operation: "GetObject", location: S3Location(bucket: big, key: "a/large.tif")),
                                      limits: Transfer.Limits(timeout: 60, connectTimeout: 5, maxBytes: 64 << 20, maxRedirects: 0))
        #expect(back.data == data)
        #expect(back.headers["content-type"] == "image/tiff" && back.headers["cache-control"] == "max-age=60")
        #expect(back.headers["x-amz-meta-source"] == "test")

        // A small one: one PUT, its MD5 sent and the ETag checked.
        try upload.put(body(1000), to: S3Location(bucket: big, key: "small.jpg"), options: UploadOptions(), cancellation: CancellationToken())
        #expect(try server.requests()["PUT object"] == 1)
    }

    @Test(arguments: [false, true])
    func aFailedPartAbortsTheUpload(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let big = server.bucket("big")
        try server.makeBucket(big)
        let client = S3Client(settings: S3Settings(environment: server.environment))
        try server.command(["cmd": "fault", "kind": "PUT part", "status": 500, "code": "InternalError", "count": 100])
        let upload = S3Upload(client: client, multipartThreshold: 6 << 20, partSize: 5 << 20)
        #expect {
            try upload.put(body(11 << 20), to: S3Location(bucket: big, key: "broken.tif"), options: UploadOptions(), cancellation: CancellationToken())
        } throws: { error in
            "\(error)".contains("UploadPart failed (500 InternalError")
        }
        let requests = try server.requests()
        #expect(requests["PUT part"] == 5 && requests["ABORT upload"] == 1, "\(requests)")
        #expect((try server.command(["cmd": "uploads", "bucket": big])["uploads"] as? [String]) == [])
        #expect(try server.keys(big).isEmpty)
    }

    @Test(arguments: [false, true])
    func aCancelledUploadLeavesNothing(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let big = server.bucket("big")
        try server.makeBucket(big)
        let client = S3Client(settings: S3Settings(environment: server.environment))
        let token = CancellationToken()
        token.cancel()
        let upload = S3Upload(client: client, multipartThreshold: 6 << 20, partSize: 5 << 20)
        #expect(throws: DownloadError.self) {
            try upload.put(body(11 << 20), to: S3Location(bucket: big, key: "cancelled.tif"), options: UploadOptions(), cancellation: token)
        }
        #expect((try server.command(["cmd": "uploads", "bucket": big])["uploads"] as? [String]) == [])
        #expect(try server.keys(big).isEmpty)
    }
}

import Foundation
import Testing
import WorkbenchCore
import WorkbenchTestSupport
@testable import WorkbenchNet

/// Listing a bucket as a run's items, against a real S3 server (moto) on 127.0.0.1.
@Suite struct S3ListingTests {
    private let photo = Fixtures.samples.appendingPathComponent("Bridge.jpg")

    @Test(arguments: [false, true])
    func listsEveryPageAndMatchesTheGlob(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let catalogue = server.bucket("catalogue")
        try server.makeBucket(catalogue)
        try server.command(["cmd": "putmany", "bucket": catalogue, "prefix": "shop/2024/p", "count": 1_050, "file": photo.path])
        try server.command(["cmd": "putmany", "bucket": catalogue, "prefix": "shop/2024/p", "count": 3, "file": photo.path, "suffix": ".txt"])
        try server.put(photo, bucket: catalogue, key: "shop/other/x.jpg")
        try server.put(photo, bucket: catalogue, key: "elsewhere/y.jpg")
        try server.resetCounts()

        let listing = S3Listing(client: S3Client(settings: S3Settings(environment: server.environment)))
        let items = Array(try listing.items(under: "s3://\(catalogue)/shop/", matching: "2024/*.jpg").makeIterator())
        #expect(items.count == 1_050)
        #expect(items.first?.source == "s3://\(catalogue)/shop/2024/p00000.jpg")
        #expect(items.first?.directory == "2024")
        #expect(items.first?.name == "p00000")
        #expect(items.map(\.index) == Array(0..<1_050))
        #expect(items.allSatisfy { $0.listed?.etag != nil && $0.listed?.size == 656 || $0.listed?.size ?? 0 > 0 })
        // The glob's fixed folder narrowed the listing to shop/2024/: two pages for 1,053 keys.
        #expect(try server.requests() == ["LIST": 2])

        // A prefix that ends mid-name lists the keys that start so, named below its folder.
        let partial = Array(try listing.items(under: "s3://\(catalogue)/shop/2024/p0001", matching: "*.jpg").makeIterator())
        #expect(partial.map(\.name) == (10..<20).map { "p000\($0)" } && partial.allSatisfy { $0.directory.isEmpty })

        let all = Array(try listing.items(under: "s3://\(catalogue)/shop/", matching: "**/*.jpg").makeIterator())
        #expect(all.count == 1_051)
        #expect(all.last?.directory == "other")
    }

    @Test(arguments: [false, true])
    func refusesAMissingBucketAndAnEmptyPrefixAtTheStart(ceph: Bool) throws {
        let server = try S3Server(ceph: ceph)
        let present = server.bucket("present")
        try server.makeBucket(present)
        let listing = S3Listing(client: S3Client(settings: S3Settings(environment: server.environment)))
        #expect {
            _ = try listing.items(under: "s3://absent/photos/", matching: nil)
        } throws: { error in
            "\(error)".contains("NoSuchBucket") && "\(error)".contains("s3://absent") && "\(error)".contains("AWS_ENDPOINT_URL_S3")
        }
        #expect {
            _ = try listing.items(under: "s3://\(present)/nothing/", matching: nil)
        } throws: { error in
            "\(error)".contains("no objects under s3://\(present)/nothing/")
        }
    }

    @Test func readsCredentialsFromTheSharedFiles() throws {
        let folder = try Fixtures.temporaryDirectory()
        let credentials = folder.appendingPathComponent("credentials"), config = folder.appendingPathComponent("config")
        try "[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = default-secret\n\n[ci]\n# a comment\naws_access_key_id=AKIACI\naws_secret_access_key = ci-secret\n"
            .write(to: credentials, atomically: true, encoding: .utf8)
        try "[profile ci]\nregion = eu-west-3\nendpoint_url = http://127.0.0.1:9\n".write(to: config, atomically: true, encoding: .utf8)
        let base = ["AWS_SHARED_CREDENTIALS_FILE": credentials.path, "AWS_CONFIG_FILE": config.path, "HOME": folder.path]

        let chosen = S3Settings(environment: base.merging(["AWS_PROFILE": "ci"]) { $1 })
        let found = try CredentialChain.standard(chosen).resolve()
        #expect(found.accessKey == "AKIACI" && found.secret == "ci-secret")
        #expect(found.source == "profile \"ci\" in \(credentials.path)")
        #expect(chosen.region == "eu-west-3" && chosen.endpoint == "http://127.0.0.1:9" && chosen.pathStyle)
        #expect(!"\(found)".contains("ci-secret"))

        #expect(try CredentialChain.standard(S3Settings(environment: base)).resolve().accessKey == "AKIADEFAULT")
        // The environment comes first.
        let env = base.merging(["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"]) { $1 }
        #expect(try CredentialChain.standard(S3Settings(environment: env)).resolve().accessKey == "AKIAENV")
        #expect {
            _ = try CredentialChain.standard(S3Settings(environment: base.merging(["AWS_PROFILE": "missing"]) { $1 })).resolve()
        } throws: { error in
            "\(error)".contains("AWS_PROFILE names a profile neither file has")
        }
        #expect {
            _ = try CredentialChain.standard(S3Settings(environment: ["AWS_ACCESS_KEY_ID": "AKIA", "HOME": folder.path])).resolve()
        } throws: { error in
            "\(error)".contains("AWS_SECRET_ACCESS_KEY is not")
        }
    }

    @Test func addressesBucketsPathStyleOrVirtually() {
        let custom = S3Settings(environment: ["AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000/"])
        let a = custom.address(bucket: "b", key: "x y.jpg")
        #expect(a.url == "http://127.0.0.1:9000/b/x%20y.jpg" && a.host == "127.0.0.1:9000" && a.path == "/b/x%20y.jpg")
        let aws = S3Settings(environment: ["AWS_REGION": "eu-central-1", "HOME": "/nonexistent"])
        let v = aws.address(bucket: "photos", key: "a.jpg")
        #expect(v.url == "https://photos.s3.eu-central-1.amazonaws.com/a.jpg" && v.host == "photos.s3.eu-central-1.amazonaws.com")
        // Dots in a bucket's name break TLS host names: path style.
        #expect(aws.address(bucket: "my.photos", key: "a.jpg").url == "https://s3.eu-central-1.amazonaws.com/my.photos/a.jpg")
    }
}

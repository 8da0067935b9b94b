import Foundation
import Testing
import WorkbenchTestSupport

/// Who may do what in a bucket, as a real server decides it: Ceph's RADOS Gateway with a second
/// user and a read-only subuser (moto lets every key do everything, so these run on Ceph only).
@Suite struct BucketAccessTests {
    @Test func aReadOnlyKeyReadsButCannotWriteAndNothingIsWritten() throws {
        let server = try S3Server(ceph: true)
        let site = server.bucket("site")
        let (folder, preset, keys) = try BucketRunTests.project("bucket-read-only", server: server)
        try server.makeBucket(site)
        let reader = try server.environment(as: "reader")
        // Into a bucket: refused at the start, before any input is fetched, naming what to check.
        let refused = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/ro/"], environment: reader)
        #expect(refused.status == 2, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("Cannot write into s3://\(site)/ro/") && refused.stderr.contains("403 AccessDenied")
                && refused.stderr.contains("check the bucket's policy"), "\(refused.stderr)")
        #expect(try server.keys(site).isEmpty)
        #expect(try server.requests()["GET object"] == nil)
        // Into a folder: reading is all it needs.
        let local = try CLIProcess.run(["run", preset, "--out", folder.appendingPathComponent("ro").path], environment: reader)
        #expect(local.status == 0 && local.stdout.contains("\(keys.count) items: \(keys.count) succeeded"), "\(local.stderr)")
    }

    @Test func anotherUserReadsABucketOnlyWhereItsPolicySaysSo() throws {
        let server = try S3Server(ceph: true)
        let photos = server.bucket("photos"), site = server.bucket("site")
        let (folder, preset, keys) = try BucketRunTests.project("bucket-other-user", server: server)
        try server.makeBucket(site)
        let other = try server.environment(as: "other")
        let out = folder.appendingPathComponent("other").path
        let denied = try CLIProcess.run(["run", preset, "--out", out], environment: other)
        #expect(denied.status == 2 && denied.stderr.contains("s3://\(photos)/") && denied.stderr.contains("ListObjectsV2 failed (403 AccessDenied)"),
                "\(denied.status) \(denied.stderr)")
        #expect(Fixtures.files(in: URL(fileURLWithPath: out)).isEmpty)

        // The owner grants reading (not writing) to the other user by a bucket policy.
        try server.command(["cmd": "policy", "bucket": photos, "policy": [
            "Version": "2012-10-17",
            "Statement": [["Effect": "Allow", "Principal": ["AWS": ["arn:aws:iam:::user/other"]],
                           "Action": ["s3:GetObject", "s3:ListBucket"],
                           "Resource": ["arn:aws:s3:::\(photos)", "arn:aws:s3:::\(photos)/*"]]]]])
        let granted = try CLIProcess.run(["run", preset, "--out", out], environment: other)
        #expect(granted.status == 0 && granted.stdout.contains("\(keys.count) items: \(keys.count) succeeded"), "\(granted.stderr)")
        // Still nobody's output: the owner's other bucket stays closed to it.
        let elsewhere = try CLIProcess.run(["run", preset, "--out", "s3://\(site)/t/"], environment: other)
        #expect(elsewhere.status == 2 && elsewhere.stderr.contains("Cannot write into s3://\(site)/t/"), "\(elsewhere.stderr)")
        #expect(try server.keys(site).isEmpty)
    }
}

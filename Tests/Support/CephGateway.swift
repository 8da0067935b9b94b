import Foundation
import Synchronization

/// Ceph's RADOS Gateway on 127.0.0.1 (`ceph_cluster.sh`: a monitor, a manager, a memstore OSD),
/// started once for the whole test process — about ten seconds and 1 GiB — and stopped when the
/// process ends (the script stops its daemons when its standard input closes).
public final class CephGateway: Sendable {
    public let port: Int
    /// A second gateway over the same cluster with STS on (web identity): there a wrong key gets
    /// a bare AccessDenied, so the other tests use the first.
    public let stsPort: Int
    public let accessKey: String
    public let secret: String
    /// Keys of the cluster's other users: "other" (a second user, who owns nothing of the
    /// first's) and "reader" (a read-only subuser of the first).
    public let users: [String: (accessKey: String, secret: String)]
    // Kept open for the life of the process: closing it stops the cluster.
    private let input: FileHandle

    private static let started = Mutex<Result<CephGateway, TestFailure>?>(nil)

    /// The cluster, started on first use.
    public static func shared() throws -> CephGateway {
        try started.withLock { started in
            if let started { return try started.get() }
            let result = Result { () throws(TestFailure) in try CephGateway() }
            started = result
            return try result.get()
        }
    }

    private init() throws(TestFailure) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-ceph-\(getpid())").path
        process.arguments = [Fixtures.supportFile("ceph_cluster.sh").path, folder]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw TestFailure("ceph_cluster.sh did not start: \(error)") }
        var line = Data()
        while let byte = try? output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([UInt8(ascii: "\n")]) {
            line.append(byte)
        }
        guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], let port = object["port"] as? Int, let stsPort = object["stsPort"] as? Int,
              let key = object["accessKey"] as? String, let secret = object["secret"] as? String else {
            throw TestFailure("Ceph's RADOS Gateway did not start (apt-get install radosgw ceph-mon ceph-mgr ceph-osd): \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
        self.stsPort = stsPort
        accessKey = key
        self.secret = secret
        var users: [String: (accessKey: String, secret: String)] = [:]
        for (name, value) in object["users"] as? [String: [String: String]] ?? [:] {
            if let key = value["accessKey"], let secret = value["secret"] { users[name] = (key, secret) }
        }
        self.users = users
        self.input = input.fileHandleForWriting
    }
}

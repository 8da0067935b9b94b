import Foundation

/// The S3 server of `s3_server.py` — moto on 127.0.0.1 with signatures checked, or Ceph's RADOS
/// Gateway (`CephGateway`), behind a proxy that counts requests and injects faults — for one test.
public final class S3Server {
    public let port: Int
    public let accessKey: String
    public let secret: String
    /// A role whose policy allows everything, for web identity (STS AssumeRoleWithWebIdentity).
    public let role: String
    private let process: Process
    private let input: Pipe
    private let output: FileHandle

    /// moto, or with `ceph`, the tests' Ceph cluster's RADOS Gateway (shared by every test of
    /// the process: give each test buckets of its own), behind the same proxy.
    /// Added to the names of the buckets a test makes (`bucket(_:)`): the Ceph cluster is shared
    /// by every test of the process, and each test needs buckets of its own.
    public let bucketSuffix: String

    /// The name a test's bucket `name` has on this server.
    public func bucket(_ name: String) -> String { name + bucketSuffix }

    /// moto, or Ceph's RADOS Gateway (`sts`: its gateway with STS on, for web identity).
    public init(ceph: Bool = false, sts: Bool = false) throws {
        bucketSuffix = ceph ? "-\(UInt32.random(in: 0...UInt32.max))" : ""
        var arguments = ["python3", Fixtures.supportFile("s3_server.py").path]
        if ceph {
            let gateway = try CephGateway.shared()
            arguments += [String(sts ? gateway.stsPort : gateway.port), gateway.accessKey, gateway.secret] + (sts ? ["sts"] : [])
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        input = Pipe()
        let out = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        output = out.fileHandleForReading
        guard let hello = Self.readLine(output),
              let object = try? JSONSerialization.jsonObject(with: Data(hello.utf8)) as? [String: Any],
              let port = object["port"] as? Int, let key = object["accessKey"] as? String, let secret = object["secret"] as? String,
              let role = object["role"] as? String else {
            process.terminate()
            throw TestFailure("the S3 test server did not start (is moto installed? python3 -m pip install 'moto[server]')")
        }
        self.port = port
        accessKey = key
        self.secret = secret
        self.role = role
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? output.close()
    }

    /// `http://127.0.0.1:PORT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The environment a `workbench` process needs to reach this server with its key.
    public var environment: [String: String] {
        ["AWS_ENDPOINT_URL_S3": endpoint, "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": "us-east-1",
         "AWS_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_ENDPOINT_URL": ""]
    }

    /// The environment of the Ceph cluster's user `name` ("other", "reader": `CephGateway.users`).
    public func environment(as name: String) throws -> [String: String] {
        guard let user = try CephGateway.shared().users[name] else { throw TestFailure("the Ceph cluster has no user \(name)") }
        var environment = self.environment
        environment["AWS_ACCESS_KEY_ID"] = user.accessKey
        environment["AWS_SECRET_ACCESS_KEY"] = user.secret
        return environment
    }

    /// Sends one command (see `s3_server.py`) and returns its answer.
    @discardableResult
    public func command(_ object: [String: Any]) throws -> [String: Any] {
        var line = try JSONSerialization.data(withJSONObject: object)
        line.append(UInt8(ascii: "\n"))
        try input.fileHandleForWriting.write(contentsOf: line)
        guard let text = Self.readLine(output), let answer = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw TestFailure("the S3 test server did not answer \(object)")
        }
        if let error = answer["error"] { throw TestFailure("the S3 test server failed: \(error) \(answer["env"] ?? "")") }
        return answer
    }

    public func makeBucket(_ name: String) throws { try command(["cmd": "bucket", "name": name]) }

    /// Returns once `count` requests are held by a "hold" fault (or throws after 10 minutes,
    /// which only a run that never sends them takes).
    public func waitUntilHeld(_ count: Int = 1) throws {
        let held = try command(["cmd": "waitheld", "count": count])["held"] as? Int ?? 0
        guard held >= count else { throw TestFailure("\(held) of \(count) requests held after 10 minutes") }
    }

    public func put(_ file: URL, bucket: String, key: String) throws {
        try command(["cmd": "put", "bucket": bucket, "key": key, "file": file.path])
    }

    /// Requests the proxy saw, by kind ("GET object", "LIST", "PUT object", …).
    public func requests() throws -> [String: Int] {
        try command(["cmd": "stats"]).compactMapValues { $0 as? Int }
    }

    public func resetCounts() throws { try command(["cmd": "reset"]) }

    /// The keys in `bucket` under `prefix`, with their sizes.
    public func keys(_ bucket: String, prefix: String = "") throws -> [String: Int] {
        (try command(["cmd": "list", "bucket": bucket, "prefix": prefix])["keys"] as? [String: Int]) ?? [:]
    }

    private static func readLine(_ handle: FileHandle) -> String? {
        var line = Data()
        while let byte = try? handle.read(upToCount: 1), !byte.isEmpty {
            if byte[byte.startIndex] == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }
}

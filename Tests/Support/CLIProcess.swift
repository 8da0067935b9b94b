import Foundation

/// A `workbench` process started by a test, with its output collected.
public final class CLIProcess {
    public struct Result {
        public let status: Int32
        public let stdout: String
        public let stderr: String
        /// Standard output's lines.
        public var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    private let process = Process()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private let collected = Collected()

    /// The built `workbench` executable, beside the test bundle.
    public static var executable: URL {
        let beside = Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("workbench")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Bundle.main.bundleURL.appendingPathComponent("workbench")
    }

    public init(_ arguments: [String], in directory: URL? = nil) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        let collected = self.collected
        stdoutPipe.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData, error: false) }
        stderrPipe.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData, error: true) }
        try process.run()
    }

    /// Runs `workbench` with `arguments` to the end.
    public static func run(_ arguments: [String], in directory: URL? = nil) throws -> Result {
        try CLIProcess(arguments, in: directory).wait()
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// Standard output so far.
    public var stdoutSoFar: String { collected.text(error: false) }

    public func interrupt() { kill(process.processIdentifier, SIGINT) }

    public func wait() -> Result {
        process.waitUntilExit()
        stdoutPipe.fileHandleForReading.readabilityHandler = nil
        stderrPipe.fileHandleForReading.readabilityHandler = nil
        collected.append(stdoutPipe.fileHandleForReading.readDataToEndOfFile(), error: false)
        collected.append(stderrPipe.fileHandleForReading.readDataToEndOfFile(), error: true)
        return Result(status: process.terminationStatus, stdout: collected.text(error: false),
                      stderr: collected.text(error: true))
    }
}

/// Output gathered from the readability handlers' threads.
private final class Collected: @unchecked Sendable {
    // Safe: every access goes through `lock`.
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()

    func append(_ data: Data, error: Bool) {
        lock.lock()
        defer { lock.unlock() }
        if error { err.append(data) } else { out.append(data) }
    }

    func text(error: Bool) -> String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: error ? err : out, as: UTF8.self)
    }
}

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

    /// `launcher`, when given, is a command that runs the rest of its arguments (e.g. `unshare`
    /// with a shell that mounts a small disk first); `workbench` and `arguments` are appended.
    /// `environment`: variables set (or, with an empty value, removed) for this process only.
    public init(_ arguments: [String], in directory: URL? = nil, launcher: [String] = [], environment: [String: String] = [:]) throws {
        if let tool = launcher.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(launcher.dropFirst()) + [Self.executable.path] + arguments
        } else {
            process.executableURL = Self.executable
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        var variables = Self.environment
        for (name, value) in environment { variables[name] = value.isEmpty ? nil : value }
        process.environment = variables
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        exited = try process.runSignallingExit()
        // One reader thread per pipe, reading in order until end of file; `wait` joins them.
        for (pipe, isError) in [(stdoutPipe, false), (stderrPipe, true)] {
            let collected = self.collected, finished = self.finished
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread {
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    collected.append(chunk, error: isError)
                }
                try? handle.close()
                finished.signal()
            }
        }
    }

    private let finished = DispatchSemaphore(value: 0)
    private var exited = DispatchSemaphore(value: 0)

    /// The tests' environment with a home folder of its own and no WORKBENCH_PLUGIN_PATH, so
    /// plugins the developer installed never show in a test.
    static let environment: [String: String] = {
        var environment = ProcessInfo.processInfo.environment
        try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        environment["HOME"] = home
        environment["XDG_CACHE_HOME"] = nil
        environment["WORKBENCH_PLUGIN_PATH"] = nil
        return environment
    }()

    /// The home folder the tests' `workbench` processes see.
    public static let home = URL(fileURLWithPath: Fixtures.testsFolder).appendingPathComponent("home").path

    /// Runs `workbench` with `arguments` to the end.
    public static func run(_ arguments: [String], in directory: URL? = nil, launcher: [String] = [],
                           environment: [String: String] = [:]) throws -> Result {
        try CLIProcess(arguments, in: directory, launcher: launcher, environment: environment).wait()
    }

    /// A launcher that runs the command in its own mount namespace (`unshare`, no lasting mount)
    /// with a `size` tmpfs mounted at `folder`, read-only if asked, so tests can fill a real disk.
    /// When the command has ended, every file left on that disk is listed on standard error as
    /// `DISK: <path relative to folder>` (the disk goes away with the namespace).
    public static func smallDisk(at folder: URL, size: String, readOnly: Bool = false, folders: [String] = []) -> [String] {
        let made = folders.map { "mkdir -p \"$1/\($0)\" && " }.joined()
        let remount = readOnly ? "mount -o remount,ro \"$1\" && " : ""
        return ["/usr/bin/unshare", "-rm", "/bin/sh", "-c",
                "mount -t tmpfs -o size=\(size) tmpfs \"$1\" && \(made)\(remount)disk=\"$1\" && shift && \"$@\"; status=$?; "
                    + "(cd \"$disk\" && find . -type f | sed 's|^./|DISK: |' >&2); exit $status", "sh", folder.path]
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// Standard output so far.
    public var stdoutSoFar: String { collected.text(error: false) }

    /// Standard error so far.
    public var stderrSoFar: String { collected.text(error: true) }

    public func interrupt() { kill(process.processIdentifier, SIGINT) }

    /// Interrupts, then waits until the run says it is stopping (its notice of a first Ctrl-C),
    /// so that a second `interrupt()` is one the run sees as the second. The limit only ends a hang.
    public func interruptAndAwaitNotice() {
        interrupt()
        let limit = ContinuousClock.now + .seconds(300)
        while !(stdoutSoFar + stderrSoFar).contains("Interrupted: stopping") && ContinuousClock.now < limit { usleep(10_000) }
    }

    /// Waits for the end; a process still running after `watchdog` seconds is killed (SIGKILL
    /// shows in its status): for a test of a hang, which must end, not decide by the clock.
    public func wait(watchdog seconds: Double) -> Result {
        if exited.wait(timeout: .now() + seconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        exited.signal()
        return wait()
    }

    public func wait() -> Result {
        exited.wait()
        finished.wait()
        finished.wait()
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

import Foundation

extension Process {
    /// Starts the process and returns a semaphore that its termination signals. Foundation's
    /// `waitUntilExit()` on Linux spins a run loop that must be told of the child's exit, and
    /// under the suite's hundreds of processes it sometimes never is: the suite then hangs with
    /// every thread idle. The termination handler, set before the process starts, cannot miss it.
    public func runSignallingExit() throws -> DispatchSemaphore {
        let exited = DispatchSemaphore(value: 0)
        terminationHandler = { _ in exited.signal() }
        try run()
        return exited
    }

    /// Runs the process to its end without Foundation's run-loop wait.
    public func runToExit() throws {
        try runSignallingExit().wait()
    }

    /// Closes the read ends of pipes a test has read to their end. Foundation keeps a finished
    /// `Process`'s pipes open until it lets the process go, which under the suite's hundreds of
    /// processes came late: the test process held 2,000 descriptors, and Foundation's own
    /// `Process.run()` then crashed reading `/proc/self/fd` (it copies each directory entry
    /// whole, past the end of glibc's buffer when that ends a mapping).
    public static func closeReadEnds(_ pipes: Pipe...) {
        for pipe in pipes { try? pipe.fileHandleForReading.close() }
    }
}

import Foundation
import Glibc

/// One plugin helper process and the two things shared with it: a SEQPACKET socket for
/// requests and replies, and a memory file for pixels. Used by one thread at a time (the pool
/// leases it out), so its state needs no lock.
final class HelperChannel: @unchecked Sendable {
    // Safe: a channel is owned by one lease at a time (HelperPool hands it out and takes it back
    // under its lock), so no two threads touch it at once.
    enum Failure: Error {
        /// The process died: how (e.g. "killed by signal 11 (Segmentation fault)").
        case died(String)
        case timedOut(seconds: Double)
        case cancelled
        case broken(String)
    }

    let pid: pid_t
    let folder: String
    private let socket: Int32
    private let memory: Int32
    private(set) var mapping: UnsafeMutableRawPointer?
    private(set) var mappedSize = 0
    private var buffer: [UInt8] = []
    private var reaped = false
    private var discarded = false

    /// Starts `executable plugin-helper FOLDER` and waits for it to load the plugin. What the
    /// helper prints goes to `output`, each line after `label` (the plugin's name).
    init(executable: String, folder: String, label: String, output: @escaping @Sendable (String) -> Void,
         startSeconds: Double) throws(Failure) {
        self.folder = folder
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw .broken("no socket pair: \(String(cString: strerror(errno)))")
        }
        let memory = HelperSpawn.memoryFile("workbench-plugin")
        guard memory >= 0 else {
            // Cleanup after the failure being reported: closing can only free the descriptors.
            close(fds[0]); close(fds[1])
            throw .broken("no shared memory: \(String(cString: strerror(errno)))")
        }
        var printed: [Int32] = [-1, -1]
        guard HelperSpawn.pipe(&printed) else {
            let reason = String(cString: strerror(errno))
            close(fds[0]); close(fds[1]); close(memory)
            throw .broken("no pipe for the helper's output: \(reason)")
        }
        let pid = HelperSpawn.spawn([executable, "plugin-helper", folder], socket: fds[1], memory: memory, output: printed[1])
        let spawnError = errno
        close(fds[1])
        // Only the helper writes to the pipe now: its end is the reader's end of file.
        close(printed[1])
        guard pid > 0 else {
            close(fds[0]); close(memory); close(printed[0])
            throw .broken("cannot start \(executable): \(String(cString: strerror(spawnError)))")
        }
        HelperOutput.start(reading: printed[0], label: label, sink: output)
        self.pid = pid
        self.socket = fds[0]
        self.memory = memory
        switch try receive(seconds: startSeconds, cancelled: nil) {
        case .ready: break
        case .failed(let reason): discard(); throw .broken(reason)
        default: discard(); throw .broken("the helper answered out of turn")
        }
    }

    /// Memory for `size` bytes of pixels, shared with the helper (grown, never shrunk).
    func reserve(_ size: Int) throws(Failure) -> UnsafeMutableRawPointer {
        if let mapping, size <= mappedSize { return mapping }
        let grown = max(size, mappedSize * 2, 1 << 20)
        guard ftruncate(memory, off_t(grown)) == 0 else { throw .broken("cannot grow shared memory to \(grown) bytes: \(String(cString: strerror(errno)))") }
        if let mapping { munmap(mapping, mappedSize) }
        let mapped = mmap(nil, grown, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0)
        guard let mapped, mapped != MAP_FAILED else {
            mapping = nil
            mappedSize = 0
            throw .broken("cannot map shared memory: \(String(cString: strerror(errno)))")
        }
        mapping = mapped
        mappedSize = grown
        return mapped
    }

    /// Sends `request` and waits for the reply, at most `seconds`; `cancelled` is polled.
    func call(_ request: HelperRequest, seconds: Double, cancelled: (() -> Bool)?) throws(Failure) -> HelperReply {
        guard HelperWire.send(request, on: socket) else { throw died() }
        return try receive(seconds: seconds, cancelled: cancelled)
    }

    private func receive(seconds: Double, cancelled: (() -> Bool)?) throws(Failure) -> HelperReply {
        let deadline = Date().addingTimeInterval(seconds)
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, 50)
            if ready > 0 { break }
            if ready < 0 && errno != EINTR { throw .broken("poll failed: \(String(cString: strerror(errno)))") }
            if cancelled?() == true { throw .cancelled }
            if Date() > deadline { throw .timedOut(seconds: seconds) }
        }
        guard let reply = HelperWire.receive(HelperReply.self, on: socket, buffer: &buffer) else { throw died() }
        return reply
    }

    /// How the process ended, once it has (waits up to a second, then kills it).
    private func died() -> Failure {
        var status: Int32 = 0
        for _ in 0..<100 {
            let done = waitpid(pid, &status, WNOHANG)
            if done == pid {
                reaped = true
                return .died(Self.describe(status))
            }
            usleep(10_000)
        }
        discard()
        return .died("stopped answering")
    }

    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        if signal != 0 { return "killed by signal \(signal) (\(String(cString: strsignal(signal))))" }
        return "exited with status \((status >> 8) & 0xff)"
    }

    /// Kills the process (if still running), reaps it and frees what was shared.
    func discard() {
        guard !discarded else { return }
        discarded = true
        if !reaped {
            // The helper may be gone already (ESRCH); waitpid below reaps it either way.
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            reaped = true
        }
        if let mapping { munmap(mapping, mappedSize) }
        mapping = nil
        close(socket)
        close(memory)
    }
}

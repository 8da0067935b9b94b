import Foundation
import Glibc
import WorkbenchCore

/// The helper process's side (`workbench plugin-helper FOLDER`): loads the plugin, says
/// `ready`, then serves requests on descriptor 3 with pixels in the memory file on descriptor 4,
/// one at a time, until the host closes the socket or goes away.
public enum HelperServer {
    static let socket: Int32 = 3
    static let memory: Int32 = 4

    /// Serves until the host is gone; returns the exit status.
    public static func serve(folder: String) -> Int32 {
        // Ctrl-C in a terminal reaches the whole process group: the host decides what stops.
        signal(SIGINT, SIG_IGN) // fails only for a signal that does not exist
        // A plugin that crashes ends this process with its signal, which the host reports; the
        // Swift runtime's backtrace of the plugin's crash would only clutter the terminal.
        for crash in [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP] { signal(crash, SIG_DFL) }
        watchParent()
        let library: PluginLibrary
        do {
            library = try PluginLibrary.load(try PluginManifest.read(folder: folder))
        } catch {
            _ = HelperWire.send(HelperReply.failed("\(error)"), on: socket)
            return 1
        }
        // Confined from here on: the plugin's own code runs only after this (its library's
        // initialisers aside, which ran as it loaded).
        if Sandbox.isEnabled && Sandbox.support.seccomp {
            do throws(PluginError) {
                try Sandbox.enter(folder: folder)
            } catch {
                _ = HelperWire.send(HelperReply.failed("\(error)"), on: socket)
                return 1
            }
        }
        guard HelperWire.send(HelperReply.ready, on: socket) else { return 1 }
        var session = Session(library: library)
        var buffer: [UInt8] = []
        while let request = HelperWire.receive(HelperRequest.self, on: socket, buffer: &buffer) {
            var reply = session.handle(request)
            // A kernel may ignore the EPERM it was given; its item fails all the same.
            if let refusal = Sandbox.takeRefusal() { reply = .failed(refusal) }
            guard HelperWire.send(reply, on: socket) else { break }
        }
        session.close()
        return 0
    }

    /// Exits when the host is gone, even while a kernel hangs (the socket's end would go
    /// unnoticed then).
    private static func watchParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { usleep(200_000) }
            _exit(0)
        }
    }
}

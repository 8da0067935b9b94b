import Dispatch
import Foundation
import Glibc
import Synchronization
import WorkbenchCore

/// A watch's signals: SIGTERM (a service manager, Kubernetes) stops taking files and lets those
/// in progress finish; Ctrl-C (SIGINT) does that and stops running stages, as `run` does, and
/// a second one quits at once, leaving no unfinished file.
final class WatchSignals {
    private let sources: [any DispatchSourceSignal]

    init(token: CancellationToken, stop: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "workbench.watch.signals")
        let once = StopOnce(stop)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if number == SIGINT {
                    if token.isCancelled {
                        OutputRoot.removeUnfinishedFiles()
                        _exit(ExitStatus.interrupted)
                    }
                    Terminal.error("Interrupted: stopping running stages (press Ctrl-C again to quit at once).")
                    token.cancel()
                }
                once.run()
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// `stop`, run the first time only (both signals lead to it).
private final class StopOnce: Sendable {
    private let stop: @Sendable () -> Void
    private let done = Mutex(false)

    init(_ stop: @escaping @Sendable () -> Void) { self.stop = stop }

    func run() {
        guard done.withLock({ state in defer { state = true }; return !state }) else { return }
        stop()
    }
}

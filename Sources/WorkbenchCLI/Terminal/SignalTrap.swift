import Dispatch
import Foundation
import WorkbenchCore

/// Turns SIGINT and SIGTERM into cancellation of the run; a second signal exits at once.
///
/// The first signal cancels the token: nothing new starts, running stages stop, temporary files
/// are removed, and the run ends with status 130. A second one removes the temporary files of
/// writes in progress and exits immediately.
final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    /// `notice` shows the first signal's message (above a progress display, if there is one);
    /// `beforeExit` runs before a second signal ends the process (e.g. to show the cursor again).
    init(token: CancellationToken, notice: @escaping @Sendable (String) -> Void = Terminal.error,
         beforeExit: @escaping @Sendable () -> Void = {}) {
        let queue = DispatchQueue(label: "workbench.signals")
        sources = [SIGINT, SIGTERM].map { number in
            // Fails only for a signal number that does not exist; these two always do.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if token.isCancelled {
                    OutputRoot.removeUnfinishedFiles()
                    beforeExit()
                    _exit(ExitStatus.interrupted)
                }
                notice("Interrupted: stopping running stages (press Ctrl-C again to quit at once).")
                token.cancel()
            }
            source.resume()
            return source
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

import CCurl
import Foundation
import Synchronization
import WorkbenchCore

/// The process's one libcurl multi handle, driven by one thread: every download runs here, so
/// connections to a host are reused (and multiplexed over HTTP/2 where the server offers it),
/// and waiting for the network holds no other thread.
///
/// New transfers and cancellations wake the loop at once (`curl_multi_wakeup`); a cancelled
/// transfer is removed from the multi handle, which closes its connection.
final class Downloader: @unchecked Sendable {
    // Safe: `multi` and `running` are used only by the loop thread; other threads reach the loop
    // through `inbox` (under its mutex) and `curl_multi_wakeup`, which libcurl allows from any thread.
    static let shared = Downloader()

    /// Nil only if libcurl could not make one (out of memory): transfers then fail at once.
    private let multi: UnsafeMutableRawPointer?
    private let inbox = Mutex<[Transfer]>([])
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]

    /// libcurl must be initialised once, before any other thread uses it.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private init() {
        _ = Self.globalInit
        multi = Self.globalInit == CURLE_OK ? curl_multi_init() : nil
        guard let multi else { return }
        // A libcurl without HTTP/2 refuses multiplexing; transfers then use a connection each.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        do {
            try DetachedThread.start(name: "workbench.net") { [self] in if let multi = self.multi { loop(multi) } }
        } catch {
            // Without its loop no transfer would ever end: each fails at once instead, saying why.
            refusal.withLock { $0 = "\(error)" }
        }
    }

    private let refusal = Mutex<String?>(nil)
    /// Why the download loop's thread could not start, if it could not.
    var loopRefusal: String? { refusal.withLock { $0 } }

    /// Whether libcurl started; transfers fail with its code if not.
    static var ready: CURLcode { shared.multi == nil || shared.loopRefusal != nil ? CURLE_OUT_OF_MEMORY : globalInit }

    /// Hands a transfer to the loop; `transfer.finish` is called on the loop thread when it ends.
    func start(_ transfer: Transfer) {
        guard let multi else { return transfer.finish(CURLE_OUT_OF_MEMORY) }
        inbox.withLock { $0.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Transfers under way by URL and headers, so a second request for the same joins the first.
    private let inflight = Mutex<[String: Transfer]>([:])

    /// Joins the transfer under way for `key` if `join` accepts, else makes a new one with `make`.
    func joinOrCreate(_ key: String, make: () -> Transfer?, join: (Transfer) -> Bool) -> (transfer: Transfer?, isNew: Bool) {
        inflight.withLock { inflight in
            if let existing = inflight[key], join(existing) { return (existing, false) }
            guard let transfer = make(), join(transfer) else { return (nil, false) }
            inflight[key] = transfer
            return (transfer, true)
        }
    }

    /// A finished transfer takes no more waiters.
    func forget(_ transfer: Transfer) {
        inflight.withLock { inflight in
            if inflight[transfer.key] === transfer { inflight[transfer.key] = nil }
        }
    }

    /// Wakes the loop so it notices a cancelled transfer at once.
    func wake() {
        if let multi { curl_multi_wakeup(multi) }
    }

    private func loop(_ multi: UnsafeMutableRawPointer) {
        while true {
            for transfer in inbox.withLock({ inbox -> [Transfer] in defer { inbox = [] }; return inbox }) {
                guard !transfer.token.isCancelled else {
                    transfer.finish(CURLE_ABORTED_BY_CALLBACK)
                    continue
                }
                running[transfer.handle] = transfer
                curl_multi_add_handle(multi, transfer.handle)
            }
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            var result = CURLE_OK
            while let done = ccurl_multi_next_done(multi, &result) {
                end(done, result, multi)
            }
            // Cancelled transfers leave now, not at their next progress callback.
            for (handle, transfer) in running where transfer.token.isCancelled { end(handle, CURLE_ABORTED_BY_CALLBACK, multi) }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func end(_ handle: UnsafeMutableRawPointer, _ result: CURLcode, _ multi: UnsafeMutableRawPointer) {
        guard let transfer = running.removeValue(forKey: handle) else { return }
        curl_multi_remove_handle(multi, handle)
        transfer.finish(result)
    }
}

import CCurl
import Foundation
import Synchronization
import WorkbenchCore

/// One HTTP(S) request on a libcurl easy handle, run by the `Downloader`'s loop: a GET unless
/// `Outgoing` says otherwise (S3's PUT, POST, HEAD and DELETE).
///
/// The byte cap is enforced in the write callback (libcurl's own size limit only works when
/// the server declares a Content-Length), and cancellation aborts from the progress callback
/// and, at once, from the loop.
final class Transfer: @unchecked Sendable {
    // Safe: after `init`, the handle, the body and the error buffer are used only by the
    // Downloader's loop thread (callbacks run there too); `finish` hands the result over once.
    let url: String
    let limits: Limits
    let outgoing: Outgoing
    let token: CancellationToken
    let handle: UnsafeMutableRawPointer
    var body = Data()
    var received = 0
    var spool: Spool?
    var spoolFailed = false
    var exceeded = false
    /// Response headers the result needs (of the latest response that had them).
    var location: String?
    var retryAfterHeader: String?
    /// Validators of the latest response (reset at each status line, so a redirect's are dropped).
    var etag: String?
    var lastModified: String?
    var headers: [String: String] = [:]
    /// The request body, copied once and kept for as long as libcurl may read it.
    private var upload: UnsafeMutableRawBufferPointer?
    private let errors = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// The request headers, kept for as long as libcurl may read them.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    private init(url: String, limits: Limits, outgoing: Outgoing, token: CancellationToken, handle: UnsafeMutableRawPointer, key: String) {
        self.url = url
        self.limits = limits
        self.outgoing = outgoing
        self.token = token
        self.handle = handle
        self.key = key
        errors.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        spool?.discard()
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        upload?.deallocate()
        errors.deallocate()
    }

    /// Someone who needs the transfer's result: a node, with its own cancellation.
    private final class Waiter: @unchecked Sendable {
        // Safe: `cancelKey` is set once, under the transfer's `waiters` lock, right after the
        // handler is registered, and only read when the transfer finishes; should that read come
        // first, the handler stays registered and, if it ever runs, finds the waiter gone.
        let token: CancellationToken
        let completion: @Sendable (Result<Downloaded, DownloadError>) -> Void
        let progress: (@Sendable (Int, Int?) -> Void)?
        var cancelKey: Int?

        init(token: CancellationToken, progress: (@Sendable (Int, Int?) -> Void)?,
             completion: @escaping @Sendable (Result<Downloaded, DownloadError>) -> Void) {
            self.token = token
            self.progress = progress
            self.completion = completion
        }
    }

    /// Who still needs the result; nil once the transfer has finished.
    private let waiters = Mutex<[Waiter]?>([])

    /// Starts a GET, or joins one already under way for the same URL and headers (coalescing).
    /// `completion` runs once, on the Downloader's thread, or at once when `token` is cancelled;
    /// cancelling one waiter aborts the transfer only when no other waiter is left.
    /// `progress` gets the bytes received and expected (when declared), a few times a second.
    static func start(_ url: String, limits: Limits, outgoing: Outgoing = Outgoing(), cancellation token: CancellationToken,
                      progress: (@Sendable (Int, Int?) -> Void)? = nil,
                      completion: @escaping @Sendable (Result<Downloaded, DownloadError>) -> Void) {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return completion(.failure(.unsupportedScheme(url: url))) }
        let waiter = Waiter(token: token, progress: progress, completion: completion)
        // Only plain GETs are shared: two PUTs are two uploads.
        let shared = outgoing.method == "GET" && outgoing.body == nil && !outgoing.answersAnyStatus
        let key = (shared ? "" : UUID().uuidString) + url + "\n" + limits.headers.joined(separator: "\n")
        let refused = Mutex<String?>(nil)
        let joined = Downloader.shared.joinOrCreate(key) { () -> Transfer? in
            guard Downloader.ready == CURLE_OK, let handle = curl_easy_init() else { return nil }
            let transfer = Transfer(url: url, limits: limits, outgoing: outgoing, token: CancellationToken(), handle: handle, key: key)
            if let refusal = transfer.configure() {
                refused.withLock { $0 = refusal }
                return nil
            }
            return transfer
        } join: { transfer in transfer.add(waiter) }
        guard let transfer = joined.transfer else {
            let message = refused.withLock { $0 } ?? Downloader.shared.loopRefusal ?? "libcurl could not start"
            return completion(.failure(.transport(url: url, code: Int(Downloader.ready.rawValue), message: message)))
        }
        if joined.isNew { Downloader.shared.start(transfer) }
    }

    /// Runs a GET to the end, blocking the calling thread (the Downloader does the work).
    static func get(_ url: String, limits: Limits, cancellation token: CancellationToken) throws(DownloadError) -> Data {
        try perform(url, limits: limits, cancellation: token).data
    }

    /// Runs a request to the end, blocking the calling thread (the Downloader does the work).
    static func perform(_ url: String, limits: Limits, outgoing: Outgoing = Outgoing(),
                        cancellation token: CancellationToken) throws(DownloadError) -> Downloaded {
        try PendingAnswer.waiting { answer in start(url, limits: limits, outgoing: outgoing, cancellation: token, completion: answer) }.get()
    }

    /// Adds a waiter; false if the transfer has already finished (the caller starts another).
    private func add(_ waiter: Waiter) -> Bool {
        let added = waiters.withLock { list -> Bool in
            guard list != nil else { return false }
            list?.append(waiter)
            return true
        }
        guard added else { return false }
        let key = waiter.token.onCancel { [weak self] in self?.leave(waiter) }
        waiters.withLock { _ in waiter.cancelKey = key }
        return true
    }

    /// A waiter was cancelled: it gets its answer now; the transfer stops if nobody is left.
    private func leave(_ waiter: Waiter) {
        let nobodyLeft = waiters.withLock { list -> Bool? in
            guard let index = list?.firstIndex(where: { $0 === waiter }) else { return nil }
            list?.remove(at: index)
            return list?.isEmpty
        }
        guard let nobodyLeft else { return }
        // Not on the cancelling thread: cancellation handlers may run under the scheduler's lock,
        // and the completion takes it.
        let url = self.url
        DispatchQueue.global().async { waiter.completion(.failure(.cancelled(url: url))) }
        if nobodyLeft {
            token.cancel()
            Downloader.shared.wake()
        }
    }

    let key: String

    /// Sets the transfer's options. One that makes or restricts the transfer (its URL, the
    /// protocols it may use, limits, timeouts, where the body goes) and that libcurl refuses
    /// stops it: returns what was refused and why.
    private func configure() -> String? {
        let context = Unmanaged.passUnretained(self).toOpaque()
        for header in limits.headers { headerList = curl_slist_append(headerList, header) }
        if outgoing.body != nil {
            // No "Expect: 100-continue" pause before a body: S3 answers a refused upload at the end anyway.
            headerList = curl_slist_append(headerList, "Expect:")
        }
        var required: [(CURLcode, String)] = [
            (ccurl_setopt_string(handle, CURLOPT_URL, url), "the URL"),
            (ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors), "an error buffer"),
            // Signals would interrupt other threads; timeouts then rely on libcurl's own timers.
            (ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "NOSIGNAL"),
            (ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "the protocols http and https only"),
            (ccurl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "redirects to http and https only"),
            (ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1), "following redirects"),
            (ccurl_setopt_long(handle, CURLOPT_MAXREDIRS, limits.maxRedirects), "the redirect limit"),
            (ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int((limits.timeout ?? 0) * 1000)), "the timeout"),
            (ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(limits.connectTimeout * 1000)), "the connect timeout"),
            (ccurl_setopt_long(handle, CURLOPT_MAXFILESIZE_LARGE, limits.maxBytes), "the size limit"),
            (ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, limits.lowSpeedLimit), "the low-speed limit"),
            (ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(limits.lowSpeedTime.rounded(.up)))), "the low-speed time"),
            (ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context), "the header callback's data"),
            (ccurl_setopt_header_callback(handle, Transfer.header), "the header callback"),
            (ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context), "the write callback's data"),
            (ccurl_setopt_write_callback(handle, Transfer.write), "the write callback"),
            (ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context), "the progress callback's data"),
            (ccurl_setopt_xferinfo_callback(handle, Transfer.progress), "the progress callback"),
            (ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0), "progress reports"),
        ]
        if let headerList { required.append((ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, headerList), "the request headers")) }
        if let body = outgoing.body {
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 16)
            _ = body.copyBytes(to: copy.bindMemory(to: UInt8.self))
            upload = copy
            required.append((ccurl_setopt_long(handle, CURLOPT_POSTFIELDSIZE_LARGE, body.count), "the body's size"))
            required.append((ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, copy.baseAddress), "the body"))
        }
        if outgoing.answersAnyStatus {
            required.append((ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "not following redirects"))
        }
        if outgoing.method == "HEAD" {
            required.append((ccurl_setopt_long(handle, CURLOPT_NOBODY, 1), "a HEAD request"))
        } else if outgoing.method != "GET" && !(outgoing.method == "POST" && outgoing.body != nil) {
            required.append((ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, outgoing.method), "the method \(outgoing.method)"))
        }
        if let caFile = limits.caFile { required.append((ccurl_setopt_string(handle, CURLOPT_CAINFO, caFile), "the CA file \(caFile)")) }
        if let (code, what) = required.first(where: { $0.0 != CURLE_OK }) {
            return "libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))"
        }
        // Preferences: a libcurl without them (no zlib, no nghttp2) still makes the same transfer,
        // uncompressed, over HTTP/1.1, without waiting to share a connection; so refusals pass.
        _ = ccurl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = ccurl_setopt_string(handle, CURLOPT_USERAGENT, "FilterWorkbench/\(Release.version) libcurl")
        // HTTP/2 where the server offers it (over TLS), so one connection carries many transfers.
        _ = ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Over TLS, a new transfer may wait for a connection being set up to learn whether it can
        // share it. Plain http never multiplexes here, and waiting would hold it back until the
        // first response came.
        if url.lowercased().hasPrefix("https://") { _ = ccurl_setopt_long(handle, CURLOPT_PIPEWAIT, 1) }
        return nil
    }

    /// Called once by the Downloader with libcurl's result: every waiter still there gets it.
    func finish(_ code: CURLcode) {
        Downloader.shared.forget(self)
        let result = result(code)
        if case .success(let body) = result { reportProgress(body.data.count, body.data.count) }
        spool?.discard()
        let finished = waiters.withLock { list -> [Waiter] in defer { list = nil }; return list ?? [] }
        // Off the loop's thread: a completion may wait for the scheduler's lock, whose holder may
        // be waiting for another transfer of this loop (a bucket listing's next page, asked for
        // while the run takes items) — the loop must never wait for it.
        DispatchQueue.global().async {
            for waiter in finished {
                waiter.token.removeHandler(waiter.cancelKey)
                waiter.completion(result)
            }
        }
    }

    private func result(_ code: CURLcode) -> Result<Downloaded, DownloadError> {
        switch code {
        case CURLE_OK:
            var status = 0
            // After CURLE_OK these are always known; were one refused, it would stay 0 (a status
            // below 400, HTTP/1.1, no new connection), which says nothing false about the body.
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            guard status < 400 || outgoing.answersAnyStatus else {
                let retryAfter = retryAfterHeader.flatMap { Self.seconds(retryAfter: $0) }
                return .failure(.http(status: status, url: url, retryAfter: retryAfter))
            }
            var version = 0, connects = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
            _ = ccurl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
            let httpVersion = version == Int(CURL_HTTP_VERSION_2_0) ? 2 : version == Int(CURL_HTTP_VERSION_3) ? 3 : 1
            if let spool {
                guard let (mapped, file) = spool.finish(count: received) else {
                    return .failure(.transport(url: url, code: 0, message: "the temporary file for its body could not be read back"))
                }
                return .success(Downloaded(data: mapped, file: file, httpVersion: httpVersion, newConnections: connects,
                                           status: status, etag: etag, lastModified: lastModified, headers: headers))
            }
            return .success(Downloaded(data: body, file: nil, httpVersion: httpVersion, newConnections: connects,
                                       status: status, etag: etag, lastModified: lastModified, headers: headers))
        case CURLE_ABORTED_BY_CALLBACK:
            return .failure(.cancelled(url: url))
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(.tooLarge(url: url, limit: limits.maxBytes))
        case CURLE_WRITE_ERROR where exceeded:
            return .failure(.tooLarge(url: url, limit: limits.maxBytes))
        case CURLE_WRITE_ERROR where spoolFailed:
            return .failure(.transport(url: url, code: Int(code.rawValue),
                                       message: "its body is larger than \(limits.memoryLimit) bytes and could not be written to a temporary file in \(NSTemporaryDirectory()) (disk full?)"))
        case CURLE_OPERATION_TIMEDOUT where limits.timeout.map({ elapsed < $0 - 0.05 }) ?? true && elapsed >= limits.lowSpeedTime:
            // libcurl reports a low-speed abort as a timeout too; it is one when it came first.
            return .failure(.tooSlow(url: url, bytesPerSecond: limits.lowSpeedLimit, seconds: limits.lowSpeedTime))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut(url: url, seconds: limits.timeout ?? limits.connectTimeout))
        case CURLE_TOO_MANY_REDIRECTS:
            return .failure(.badRedirect(url: url, message: "more than \(limits.maxRedirects) redirects (a loop?); raise the node's \"maxRedirects\" if the chain is real"))
        case CURLE_UNSUPPORTED_PROTOCOL:
            // The URL itself was http(s), so a redirect led elsewhere: its Location says where.
            let location = self.location ?? "another scheme"
            return .failure(.badRedirect(url: url, message: "to \"\(location)\"; only http and https are followed"))
        default:
            let detail = String(cString: errors)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            return .failure(.transport(url: url, code: Int(code.rawValue), message: message))
        }
    }

    /// Seconds the transfer has run so far (libcurl's total time).
    private var elapsed: Double {
        var micros: curl_off_t = 0
        return ccurl_getinfo_off(handle, CURLINFO_TOTAL_TIME_T, &micros) == CURLE_OK ? Double(micros) / 1e6 : 0
    }

    /// Retry-After as seconds: a number of seconds, or an HTTP date. A server's word is not
    /// trusted: "1e400", "nan" or "-5" are no delay at all, and the scheduler caps any delay.
    static func seconds(retryAfter value: String) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return seconds.isFinite && seconds >= 0 ? seconds : nil }
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return format.date(from: trimmed).map { max(0, $0.timeIntervalSinceNow) }
    }

    /// When progress was last reported (monotonic seconds), so waiters hear a few times a second.
    var lastReport = 0.0
    static let reportInterval = 0.25

    func reportProgress(_ bytes: Int, _ expected: Int?) {
        for waiter in waiters.withLock({ $0 ?? [] }) { waiter.progress?(bytes, expected) }
    }
}

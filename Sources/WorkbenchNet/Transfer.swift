import CCurl
import Foundation
import Synchronization
import WorkbenchCore

/// One HTTP(S) GET on a libcurl easy handle, run by the `Downloader`'s loop.
///
/// The byte cap is enforced in the write callback (libcurl's own size limit only works when
/// the server declares a Content-Length), and cancellation aborts from the progress callback
/// and, at once, from the loop.
final class Transfer: @unchecked Sendable {
    // Safe: after `init`, the handle, the body and the error buffer are used only by the
    // Downloader's loop thread (callbacks run there too); `finish` hands the result over once.
    struct Limits: Sendable {
        /// Seconds for the whole transfer, or nil for no limit (the node's timeout, if any).
        var timeout: Double?
        var connectTimeout: Double
        var maxBytes: Int
        var maxRedirects: Int
    }

    let url: String
    let limits: Limits
    let token: CancellationToken
    let handle: UnsafeMutableRawPointer
    private var body = Data()
    private var exceeded = false
    private let errors = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    private let completion: @Sendable (Result<Data, DownloadError>) -> Void

    private init(url: String, limits: Limits, token: CancellationToken, handle: UnsafeMutableRawPointer,
                 completion: @escaping @Sendable (Result<Data, DownloadError>) -> Void) {
        self.url = url
        self.limits = limits
        self.token = token
        self.handle = handle
        self.completion = completion
        errors.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit {
        curl_easy_cleanup(handle)
        errors.deallocate()
    }

    /// Starts a GET; `completion` runs on the Downloader's thread when it ends.
    static func start(_ url: String, limits: Limits, cancellation token: CancellationToken,
                      completion: @escaping @Sendable (Result<Data, DownloadError>) -> Void) {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return completion(.failure(.unsupportedScheme(url: url))) }
        guard Downloader.ready == CURLE_OK, let handle = curl_easy_init() else {
            return completion(.failure(.transport(url: url, code: Int(Downloader.ready.rawValue), message: "libcurl could not start")))
        }
        let transfer = Transfer(url: url, limits: limits, token: token, handle: handle, completion: completion)
        transfer.configure()
        let key = token.onCancel { Downloader.shared.wake() }
        transfer.cancelKey = key
        Downloader.shared.start(transfer)
    }

    /// Runs a GET to the end, blocking the calling thread (the Downloader does the work).
    static func get(_ url: String, limits: Limits, cancellation token: CancellationToken) throws(DownloadError) -> Data {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Data, DownloadError>?>(nil)
        start(url, limits: limits, cancellation: token) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { throw .cancelled(url: url) }
        return try result.get()
    }

    private var cancelKey: Int?

    private func configure() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_setopt_string(handle, CURLOPT_URL, url)
        _ = ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors)
        // Signals would interrupt other threads; timeouts then rely on libcurl's own timers.
        _ = ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        _ = ccurl_setopt_long(handle, CURLOPT_MAXREDIRS, limits.maxRedirects)
        _ = ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int((limits.timeout ?? 0) * 1000))
        _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(limits.connectTimeout * 1000))
        _ = ccurl_setopt_long(handle, CURLOPT_MAXFILESIZE_LARGE, limits.maxBytes)
        _ = ccurl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "")
        _ = ccurl_setopt_string(handle, CURLOPT_USERAGENT, "FilterWorkbench/0.1 libcurl")
        // HTTP/2 where the server offers it (over TLS), so one connection carries many transfers.
        _ = ccurl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = ccurl_setopt_long(handle, CURLOPT_PIPEWAIT, 1)
        _ = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = ccurl_setopt_write_callback(handle, Transfer.write)
        _ = ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        _ = ccurl_setopt_xferinfo_callback(handle, Transfer.progress)
        _ = ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
    }

    /// Called once by the Downloader with libcurl's result.
    func finish(_ code: CURLcode) {
        token.removeHandler(cancelKey)
        completion(result(code))
    }

    private func result(_ code: CURLcode) -> Result<Data, DownloadError> {
        switch code {
        case CURLE_OK:
            var status = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            guard status < 400 else { return .failure(.http(status: status, url: url)) }
            return .success(body)
        case CURLE_ABORTED_BY_CALLBACK:
            return .failure(.cancelled(url: url))
        case CURLE_FILESIZE_EXCEEDED:
            return .failure(.tooLarge(url: url, limit: limits.maxBytes))
        case CURLE_WRITE_ERROR where exceeded:
            return .failure(.tooLarge(url: url, limit: limits.maxBytes))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut(url: url, seconds: limits.timeout ?? limits.connectTimeout))
        case CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(.unsupportedScheme(url: url))
        default:
            let detail = String(cString: errors)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            return .failure(.transport(url: url, code: Int(code.rawValue), message: message))
        }
    }

    private static let write: ccurl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.limits.maxBytes else {
            transfer.exceeded = true
            return 0 // libcurl aborts the transfer with CURLE_WRITE_ERROR
        }
        transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }

    private static let progress: ccurl_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().token.isCancelled ? 1 : 0
    }
}

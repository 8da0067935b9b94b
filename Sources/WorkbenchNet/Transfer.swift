import CCurl
import Foundation
import WorkbenchCore

/// One HTTP(S) GET through a libcurl easy handle, run to the end on the calling thread.
///
/// The byte cap is enforced in the write callback (libcurl's own size limit only works when
/// the server declares a Content-Length), and cancellation aborts from the progress callback.
struct Transfer {
    struct Limits: Sendable {
        /// Seconds for the whole transfer, or nil for no limit (the node's timeout, if any).
        var timeout: Double?
        var connectTimeout: Double
        var maxBytes: Int
        var maxRedirects: Int
    }

    /// What the callbacks share with the transfer; lives on the transfer's stack frame.
    private final class Sink {
        var body = Data()
        let maxBytes: Int
        let token: CancellationToken
        var exceeded = false

        init(maxBytes: Int, token: CancellationToken) {
            self.maxBytes = maxBytes
            self.token = token
        }
    }

    /// libcurl must be initialised once, before any other thread uses it.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    static func get(_ url: String, limits: Limits, cancellation token: CancellationToken) throws(DownloadError) -> Data {
        let lower = url.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { throw .unsupportedScheme(url: url) }
        guard globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw .transport(url: url, code: Int(globalInit.rawValue), message: "libcurl could not start")
        }
        defer { curl_easy_cleanup(handle) }

        let sink = Sink(maxBytes: limits.maxBytes, token: token)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            _ = ccurl_setopt_string(handle, CURLOPT_URL, url)
            _ = ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
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
            _ = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
            _ = ccurl_setopt_write_callback(handle, Transfer.write)
            _ = ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
            _ = ccurl_setopt_xferinfo_callback(handle, Transfer.progress)
            _ = ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
            return curl_easy_perform(handle)
        }
        withExtendedLifetime(sink) {}

        switch code {
        case CURLE_OK:
            var status = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            guard status < 400 else { throw .http(status: status, url: url) }
            return sink.body
        case CURLE_ABORTED_BY_CALLBACK:
            throw .cancelled(url: url)
        case CURLE_FILESIZE_EXCEEDED:
            throw .tooLarge(url: url, limit: limits.maxBytes)
        case CURLE_WRITE_ERROR where sink.exceeded:
            throw .tooLarge(url: url, limit: limits.maxBytes)
        case CURLE_OPERATION_TIMEDOUT:
            throw .timedOut(url: url, seconds: limits.timeout ?? limits.connectTimeout)
        case CURLE_UNSUPPORTED_PROTOCOL:
            throw .unsupportedScheme(url: url)
        default:
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw .transport(url: url, code: Int(code.rawValue), message: message)
        }
    }

    private static let write: ccurl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.body.count + length <= sink.maxBytes else {
            sink.exceeded = true
            return 0 // libcurl aborts the transfer with CURLE_WRITE_ERROR
        }
        sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
        return length
    }

    private static let progress: ccurl_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        return sink.token.isCancelled ? 1 : 0
    }
}

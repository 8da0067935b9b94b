import CCurl
import Foundation

/// libcurl's callbacks for a `Transfer`, on the Downloader's loop thread: response headers
/// (validators, redirects, Retry-After), the body (capped, spooled to a file when large) and
/// progress (which also notices cancellation).
extension Transfer {
    static let header: ccurl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            transfer.etag = nil
            transfer.lastModified = nil
            transfer.headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            transfer.headers[name] = value
            if name == "location" { transfer.location = value }
            if name == "retry-after" { transfer.retryAfterHeader = value }
            if name == "etag" { transfer.etag = value }
            if name == "last-modified" { transfer.lastModified = value }
        }
        return length
    }

    static let write: ccurl_write_callback = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard transfer.received + length <= transfer.limits.maxBytes else {
            transfer.exceeded = true
            return 0 // libcurl aborts the transfer with CURLE_WRITE_ERROR
        }
        transfer.received += length
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        if transfer.spool == nil && transfer.received > transfer.limits.memoryLimit {
            // Too large to keep in memory: what came so far and the rest go to a file.
            guard let spool = Spool() else {
                transfer.spoolFailed = true
                return 0
            }
            transfer.spool = spool
            let sofar = transfer.body
            transfer.body = Data()
            guard sofar.withUnsafeBytes({ spool.write($0) }) else {
                transfer.spoolFailed = true
                return 0
            }
        }
        if let spool = transfer.spool {
            guard spool.write(bytes) else {
                transfer.spoolFailed = true
                return 0
            }
            return length
        }
        transfer.body.append(contentsOf: bytes)
        return length
    }

    static let progress: ccurl_xferinfo_callback = { context, total, now, _, _ in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        if transfer.token.isCancelled { return 1 }
        let clock = Double(DispatchTime.now().uptimeNanoseconds) * 1e-9
        if now > 0, clock - transfer.lastReport >= reportInterval {
            transfer.lastReport = clock
            transfer.reportProgress(Int(now), total > 0 ? Int(total) : nil)
        }
        return 0
    }
}

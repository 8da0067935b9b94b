import Foundation
import WorkbenchCore

/// Putting an object: one PutObject, or above `multipartThreshold` a multipart upload whose
/// parts go one after another. Every body carries its Content-MD5, which S3 checks; the ETag
/// S3 answers (the MD5 of what it stored, for a single PUT and for each part) is checked here
/// too, so a body damaged on the way is caught even by a server that does not check. A
/// multipart upload that fails or is cancelled is aborted: no orphaned parts are left.
struct S3Upload {
    let client: S3Client
    /// Where this run's multipart uploads are marked, so an orphan is found again (none for
    /// uploads outside a run).
    var ledger: UploadLedger? = nil
    var multipartThreshold = 16 << 20
    var partSize = 8 << 20
    static let limits = Transfer.Limits(timeout: 900, connectTimeout: 10, maxBytes: 1 << 20, maxRedirects: 0, lowSpeedTime: 60)

    func put(_ data: Data, to location: S3Location, options: UploadOptions, cancellation: CancellationToken) throws(DownloadError) {
        if data.count > multipartThreshold { return try putInParts(data, to: location, options: options, cancellation: cancellation) }
        var headers = Self.headers(of: options)
        let md5 = Self.md5(data)
        headers.append(S3Client.Pair("Content-MD5", md5.base64))
        let request = S3Client.Request(operation: "PutObject", method: "PUT", location: location, headers: headers, body: data)
        try sendChecked(request, md5: md5, cancellation: cancellation)
    }

    /// Sends a body and checks the ETag against its MD5, sending it again (up to twice) when they differ.
    @discardableResult
    private func sendChecked(_ request: S3Client.Request, md5: (hex: String, base64: String),
                             cancellation: CancellationToken) throws(DownloadError) -> S3Client.Response {
        var attempt = 0
        while true {
            attempt += 1
            let response = try client.perform(request, limits: Self.limits, cancellation: cancellation)
            guard let problem = Self.mismatch(response, md5: md5.hex) else { return response }
            guard attempt < 3 else { throw .service(S3Error.integrity(location: request.location.description, detail: problem)) }
        }
    }

    private func putInParts(_ data: Data, to location: S3Location, options: UploadOptions,
                            cancellation: CancellationToken) throws(DownloadError) {
        try ledger?.starting(at: location)
        let created: S3Client.Response
        do throws(DownloadError) {
            created = try client.perform(S3Client.Request(operation: "CreateMultipartUpload", method: "POST", location: location,
                                                          query: [S3Client.Pair("uploads", "")], headers: Self.headers(of: options),
                                                          body: Data()), limits: Self.limits, cancellation: cancellation)
        } catch {
            // A create that failed may still have made an upload (the answer lost on the way): the
            // intent stays for the next run's sweep then; refused outright, nothing was made.
            if case .service = error { ledger?.abandoned(at: location) }
            throw error
        }
        guard let uploadID = S3XML(String(decoding: created.data, as: UTF8.self)).value("UploadId") else {
            throw .service(S3Error.refused(operation: "CreateMultipartUpload", location: location.description, status: created.status, code: "NoUploadId",
                      message: "the answer named no upload", credentials: "", retryAfter: nil))
        }
        do throws(DownloadError) {
            try ledger?.started(uploadID, at: location)
            var parts: [String] = []
            var offset = 0
            while offset < data.count {
                if cancellation.isCancelled { throw .cancelled(url: location.description) }
                let body = data.subdata(in: offset..<min(data.count, offset + partSize))
                let md5 = Self.md5(body)
                let number = parts.count + 1
                let response = try sendChecked(
                    S3Client.Request(operation: "UploadPart", method: "PUT", location: location,
                                     query: [S3Client.Pair("partNumber", String(number)), S3Client.Pair("uploadId", uploadID)],
                                     headers: [S3Client.Pair("Content-MD5", md5.base64)], body: body),
                    md5: md5, cancellation: cancellation)
                parts.append(response.headers["etag"] ?? "\"\(md5.hex)\"")
                offset += body.count
            }
            let list = parts.enumerated().map { "<Part><PartNumber>\($0.offset + 1)</PartNumber><ETag>\(S3XML.escape($0.element))</ETag></Part>" }
            let completion = Data("<CompleteMultipartUpload>\(list.joined())</CompleteMultipartUpload>".utf8)
            let done = try client.perform(S3Client.Request(operation: "CompleteMultipartUpload", method: "POST", location: location,
                                                           query: [S3Client.Pair("uploadId", uploadID)],
                                                           headers: [S3Client.Pair("Content-Type", "application/xml")], body: completion),
                                          limits: Self.limits, cancellation: cancellation)
            // S3 may answer 200 and say in the body that completing failed.
            let answer = S3XML(String(decoding: done.data, as: UTF8.self))
            if let code = answer.value("Code") {
                throw .service(S3Error.refused(operation: "CompleteMultipartUpload", location: location.description, status: done.status, code: code,
                          message: answer.value("Message") ?? "", credentials: "", retryAfter: nil))
            }
            ledger?.ended(uploadID)
        } catch {
            abort(uploadID, location)
            ledger?.ended(uploadID)
            throw error
        }
    }

    /// AbortMultipartUpload, with a token of its own: the run's may be the one that was cancelled.
    private func abort(_ uploadID: String, _ location: S3Location) {
        // The upload failed already and that error is the one reported; an abort that fails leaves a
        // mark the next run's sweep aborts.
        _ = try? client.perform(S3Client.Request(operation: "AbortMultipartUpload", method: "DELETE", location: location,
                                                 query: [S3Client.Pair("uploadId", uploadID)]),
                                limits: Self.limits, cancellation: CancellationToken())
    }

    static func headers(of options: UploadOptions) -> [S3Client.Pair] {
        var headers: [S3Client.Pair] = []
        if let type = options.contentType { headers.append(S3Client.Pair("Content-Type", type)) }
        if let cache = options.cacheControl { headers.append(S3Client.Pair("Cache-Control", cache)) }
        for (name, value) in options.metadata.sorted(by: { $0.key < $1.key }) { headers.append(S3Client.Pair("x-amz-meta-" + name.lowercased(), value)) }
        return headers
    }

    static func md5(_ data: Data) -> (hex: String, base64: String) {
        let digest = data.withUnsafeBytes { MD5.digest($0) }
        return (Hex.string(digest), Data(digest).base64EncodedString())
    }

    /// Why the stored object is not what was sent, if its ETag says so. An ETag is the MD5 of the
    /// body unless the object is encrypted with KMS or a customer key (then it is something else).
    static func mismatch(_ response: S3Client.Response, md5: String) -> String? {
        guard let etag = response.headers["etag"]?.trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased(),
              etag.count == 32, etag.allSatisfy(\.isHexDigit),
              response.headers["x-amz-server-side-encryption"] != "aws:kms",
              response.headers["x-amz-server-side-encryption-customer-algorithm"] == nil else { return nil }
        return etag == md5 ? nil : "the server stored MD5 \(etag), the body sent has \(md5)"
    }
}

import Foundation
import Synchronization
import WorkbenchCore

/// The multipart uploads a run starts under a bucket output, kept where they can be found again.
///
/// S3 keeps (and bills) the parts of an upload nobody completes or aborts, and its listing of
/// uploads says nothing of who started one. So each run holds a lease —
/// `prefix/workbench-manifest/.runs/leases/RUN_PART`, put again every `renewal` seconds — and marks
/// each upload it starts with `…/.runs/uploads/RUN/UPLOAD-ID` until it ends. S3 names the upload
/// only in its answer to the create, so before asking, the run leaves an intent,
/// `…/.runs/intents/RUN/HASH` holding the object's key, which the upload's mark replaces: a run
/// killed between the create and the mark leaves the intent. A run that starts over the prefix
/// aborts the marked uploads of every run whose lease is older than `expiry` (killed, or cut off
/// from the bucket), and for each of their intents the uploads S3 lists under that very key that
/// no live run has marked: uploads of live runs, and uploads this tool did not start, are left
/// alone. A second Ctrl-C, which ends the process at once, aborts the
/// uploads still in flight first (`abortInFlight`).
final class UploadLedger: Sendable {
    let client: S3Client
    let prefix: S3Location
    /// This run's name: host, process and start time.
    let run: String
    /// The manifest part it writes (`main`, `shard-0-of-4`): in its lease's name, so `manifest
    /// merge` can tell a shard still running.
    let part: String
    static let folder = "workbench-manifest/.runs/"
    static let renewal = 120.0
    static let expiry = 600.0

    /// This run's uploads in flight, by upload id: what a second Ctrl-C aborts.
    private let inFlight = Mutex<[String: S3Location]>([:])
    /// The lease is held (and renewed) until `release`.
    private let holding = Mutex(false)

    init(client: S3Client, prefix: S3Location, part: String) {
        self.client = client
        self.prefix = prefix
        self.part = part
        let host = ProcessInfo.processInfo.hostName.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }
        run = "\(host.isEmpty ? "host" : host)-\(getpid())-\(Int(Date().timeIntervalSince1970))"
    }

    private func key(_ path: String) -> S3Location { S3Location(bucket: prefix.bucket, key: prefix.key + Self.folder + path) }

    /// Puts the lease and keeps it fresh until `release`.
    func hold() throws(DownloadError) {
        try putLease()
        holding.withLock { $0 = true }
        scheduleRenewal()
    }

    /// Renews the lease every `renewal` seconds while it is held, holding no thread between or
    /// during renewals (the request's answer schedules the next).
    private func scheduleRenewal() {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.renewal) { [weak self] in
            guard let self, self.holding.withLock({ $0 }) else { return }
            // A renewal that fails is tried again at the next tick; the lease outlives a few misses.
            client.send(leaseRequest, limits: ListPages.limits, cancellation: CancellationToken()) { [weak self] _ in self?.scheduleRenewal() }
        }
    }

    private var leaseRequest: S3Client.Request {
        S3Client.Request(operation: "PutObject", method: "PUT", location: key("leases/\(run)_\(part)"), body: Data(run.utf8))
    }

    private func putLease() throws(DownloadError) {
        _ = try client.perform(leaseRequest, limits: ListPages.limits)
    }

    /// Stops renewing and deletes the lease (the run ended); nothing if none is held.
    func release() {
        release(limits: ListPages.limits)
    }

    private func release(limits: Transfer.Limits) {
        guard holding.withLock({ held in defer { held = false }; return held }) else { return }
        // A lease left behind expires by its date (isLive); deleting it is only early tidying.
        _ = try? client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: key("leases/\(run)_\(part)")),
                                limits: limits)
    }

    /// An upload this run is about to create at `location`: its intent is marked first, as the
    /// create's answer (the upload's id) is lost if the run dies before it marks the upload.
    func starting(at location: S3Location) throws(DownloadError) {
        _ = try client.perform(S3Client.Request(operation: "PutObject", method: "PUT", location: intentKey(location),
                                                body: Data(location.key.utf8)), limits: ListPages.limits)
    }

    /// The create failed: nothing was started, the intent goes.
    func abandoned(at location: S3Location) {
        // An intent left behind costs the next sweep one listing of uploads under its key.
        _ = try? client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: intentKey(location)),
                                limits: ListPages.limits)
    }

    private func intentKey(_ location: S3Location) -> S3Location {
        key("intents/\(run)/\(SHA256.hex(Array(location.key.utf8)).prefix(32))")
    }

    /// An upload this run started: marked in the bucket before its first part goes, in place of
    /// its intent.
    func started(_ uploadID: String, at location: S3Location) throws(DownloadError) {
        inFlight.withLock { $0[uploadID] = location }
        _ = try client.perform(S3Client.Request(operation: "PutObject", method: "PUT", location: key("uploads/\(run)/\(uploadID)"),
                                                body: Data(location.key.utf8)), limits: ListPages.limits)
        abandoned(at: location)
    }

    /// The upload was completed or aborted: its mark goes.
    func ended(_ uploadID: String) {
        ended(uploadID, limits: ListPages.limits)
    }

    private func ended(_ uploadID: String, limits: Transfer.Limits) {
        inFlight.withLock { $0[uploadID] = nil }
        // A mark left behind is found by the next run's sweep (abandoned below), which aborts and deletes it.
        _ = try? client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: key("uploads/\(run)/\(uploadID)")),
                                limits: limits)
    }

    /// Aborts the marked uploads of runs whose lease has expired (or is gone), from the objects
    /// a listing of the manifest's folder found (`ManifestSegments.pull`). Returns how many.
    @discardableResult
    func sweep(listed objects: [ListPages.Object]) -> Int {
        let (leases, marks, intents) = read(objects)
        let now = Date()
        var aborted = 0
        // Uploads a live run has marked are its own, even under a key a dead run meant to write.
        let liveUploads = Set(marks.filter { isLive($0.run, lease: leases[$0.run]?.date, now: now) }.map(\.upload))
        for intent in intents where !isLive(intent.run, lease: leases[intent.run]?.date, now: now) {
            aborted += abortUnmarked(intent: S3Location(bucket: prefix.bucket, key: intent.key), sparing: liveUploads)
        }
        for mark in marks where !isLive(mark.run, lease: leases[mark.run]?.date, now: now) {
            let markLocation = S3Location(bucket: prefix.bucket, key: mark.key)
            // The object's key is in the mark: AbortMultipartUpload needs it with the id. An
            // upload already completed or aborted (a kill between that and the mark's removal)
            // answers NoSuchUpload; either way the mark goes.
            // No mark body (deleted meanwhile by another run's sweep): nothing to abort.
            if let body = try? client.perform(S3Client.Request(operation: "GetObject", location: markLocation), limits: ListPages.limits) {
                let object = S3Location(bucket: prefix.bucket, key: String(decoding: body.data, as: UTF8.self))
                // NoSuchUpload (see above) or a failure: not counted; a failed abort's mark is
                // gone below, and the server's lifecycle rule for incomplete uploads remains.
                if (try? client.perform(S3Client.Request(operation: "AbortMultipartUpload", method: "DELETE", location: object,
                                                         query: [S3Client.Pair("uploadId", mark.upload)]), limits: ListPages.limits)) != nil {
                    aborted += 1
                }
            }
            // A mark that cannot be deleted now is found again by the next sweep.
            _ = try? client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: markLocation), limits: ListPages.limits)
        }
        // The leases of runs that are gone say nothing any more.
        for (name, lease) in leases where name != run && !isLive(name, lease: lease.date, now: now) {
            // As for the mark: a lease that stays is removed by the next sweep; it says nothing once
            // its run is gone.
            _ = try? client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: key("leases/\(name)_\(lease.part)")),
                                    limits: ListPages.limits)
        }
        return aborted
    }

    /// A dead run's intent: the uploads S3 lists under its key, except `sparing`, are aborted
    /// (the run was killed after the create, before its mark), and the intent goes. How many.
    private func abortUnmarked(intent: S3Location, sparing: Set<String>) -> Int {
        var aborted = 0
        // No body (deleted meanwhile by another run's sweep): nothing to look for.
        if let body = try? client.perform(S3Client.Request(operation: "GetObject", location: intent), limits: ListPages.limits) {
            let object = S3Location(bucket: prefix.bucket, key: String(decoding: body.data, as: UTF8.self))
            let bucket = S3Location(bucket: prefix.bucket, key: "")
            // The prefix is the key itself: at most a few uploads, one page.
            if let listed = try? client.perform(S3Client.Request(operation: "ListMultipartUploads", location: bucket,
                                                                 query: [S3Client.Pair("prefix", object.key), S3Client.Pair("uploads", "")]),
                                                limits: ListPages.limits) {
                for upload in S3XML(String(decoding: listed.data, as: UTF8.self)).elements("Upload") {
                    guard upload.value("Key") == object.key, let id = upload.value("UploadId"), !sparing.contains(id) else { continue }
                    // As for a mark: one that fails is left to the server's lifecycle rule.
                    if (try? client.perform(S3Client.Request(operation: "AbortMultipartUpload", method: "DELETE", location: object,
                                                             query: [S3Client.Pair("uploadId", id)]), limits: ListPages.limits)) != nil {
                        aborted += 1
                    }
                }
            }
        }
        // An intent that cannot be deleted now is found again by the next sweep, which aborts nothing twice.
        _ = try? client.perform(S3Client.Request(operation: "DeleteObject", method: "DELETE", location: intent), limits: ListPages.limits)
        return aborted
    }

    /// The leases (run → when last put, and its part), the upload marks and the intents among `objects`.
    private func read(_ objects: [ListPages.Object]) -> (leases: [String: (date: Date, part: String)], marks: [(run: String, upload: String, key: String)],
                                                         intents: [(run: String, key: String)]) {
        var leases: [String: (date: Date, part: String)] = [:], marks: [(run: String, upload: String, key: String)] = []
        var intents: [(run: String, key: String)] = []
        let folder = prefix.key + Self.folder
        for object in objects where object.key.hasPrefix(folder) {
            let parts = object.key.dropFirst(folder.count).split(separator: "/").map(String.init)
            if parts.count == 2, parts[0] == "leases" {
                let name = parts[1].split(separator: "_", maxSplits: 1).map(String.init)
                leases[name[0]] = (object.lastModified.flatMap(Self.date) ?? .distantPast, name.count > 1 ? name[1] : "main")
            } else if parts.count == 3, parts[0] == "uploads" {
                marks.append((parts[1], parts[2], object.key))
            } else if parts.count == 3, parts[0] == "intents" {
                intents.append((parts[1], object.key))
            }
        }
        return (leases, marks, intents)
    }

    /// The parts that runs still alive write (other than this one), with how long ago each
    /// lease was put, among `objects` (a listing of the manifest's folder).
    func liveParts(listed objects: [ListPages.Object]) -> [(part: String, secondsSinceRenewal: Double)] {
        let now = Date()
        return read(objects).leases.filter { $0.key != run && isLive($0.key, lease: $0.value.date, now: now) }
            .map { ($0.value.part, now.timeIntervalSince($0.value.date)) }.sorted { $0.part < $1.part }
    }

    /// Whether the run that wrote a mark may still be uploading: its lease is fresh and, when
    /// it ran on this machine, its process is still there (a run killed here a minute ago is
    /// known dead at once; one elsewhere only once its lease expires).
    private func isLive(_ name: String, lease: Date?, now: Date) -> Bool {
        guard let lease, now.timeIntervalSince(lease) <= Self.expiry else { return false }
        let fields = name.split(separator: "-")
        guard fields.count >= 3, let pid = Int32(fields[fields.count - 2]) else { return true }
        let host = fields.dropLast(2).joined(separator: "-")
        let here = run.split(separator: "-").dropLast(2).joined(separator: "-")
        guard host == here else { return true }
        return kill(pid, 0) == 0 || errno != ESRCH
    }

    /// Aborts every upload of this run still in flight and lets its lease go, each request with
    /// at most `timeout` seconds: for an exit that cannot wait for the uploads' own
    /// cancellation (a second Ctrl-C). A lease left would keep `manifest merge` waiting.
    func abortInFlight(timeout: Double = 2) {
        let uploads = inFlight.withLock { $0 }
        let limits = Transfer.Limits(timeout: timeout, connectTimeout: min(timeout, 2), maxBytes: 1 << 20, maxRedirects: 0)
        for (uploadID, location) in uploads {
            // Best effort under a second Ctrl-C, with a short timeout: what stays is aborted by the
            // next run's sweep.
            _ = try? client.perform(S3Client.Request(operation: "AbortMultipartUpload", method: "DELETE", location: location,
                                                     query: [S3Client.Pair("uploadId", uploadID)]), limits: limits)
            ended(uploadID, limits: limits)
        }
        release(limits: limits)
    }

    /// S3's `LastModified` (ISO 8601, with or without fractions of a second).
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

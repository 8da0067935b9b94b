import Foundation
import Synchronization
import WorkbenchCore

/// A bucket's objects as a run's items: ListObjectsV2 a page (1,000 keys) at a time, the next
/// page asked for while the run works through the current one, so a million keys are never
/// held at once and the engine seldom waits for the network. The first page is fetched before
/// the run starts: no credentials, a wrong key or a missing bucket stop it there.
///
/// Each item carries its object's ETag, size and time (`Item.listed`): on an incremental
/// rerun an unchanged object is not fetched at all.
public struct S3Listing: RemoteListing {
    let client: S3Client

    /// Lists with `client`'s settings and credentials.
    public init(client: S3Client) { self.client = client }

    public func items(under url: String, matching glob: String?) throws(WorkbenchError) -> ItemSource {
        guard let location = S3Location(url) else {
            throw .badInputs("\"\(url)\" is not an s3://bucket/prefix/ URL (inputs.s3).")
        }
        let pattern = glob.map(PathPattern.init)
        // Keys are named below the prefix's folder ("in/" for s3://b/in/ and for s3://b/in/IMG_,
        // which lists the keys that start so, as S3 does); a glob's fixed folders narrow the listing.
        let folder = location.key.lastIndex(of: "/").map { String(location.key[...$0]) } ?? ""
        let prefix = location.key == folder ? folder + (pattern?.fixedFolder ?? "") : location.key
        let pages = ListPages(client: client, bucket: location.bucket, prefix: prefix)
        let first: ListPages.Page
        do { first = try pages.fetch(after: nil) } catch { throw .badInputs(error.description) }
        if first.keys.isEmpty && !first.truncated {
            throw .badInputs("There are no objects under \(location)\(prefix == location.key ? "" : " (listed under s3://\(location.bucket)/\(prefix))"); check the bucket and prefix.")
        }
        let firstPage = Mutex<ListPages.Page?>(first)
        return ItemSource(count: nil, listing: {
            let cursor = ListCursor(pages: pages, first: firstPage.withLock { page in defer { page = nil }; return page },
                                    location: location, folder: folder, pattern: pattern)
            return (cursor.next, cursor.failure)
        })
    }
}

/// One run's walk through the pages.
private final class ListCursor {
    let pages: ListPages
    let location: S3Location
    /// The part of every key that items' paths are named below.
    let folder: String
    let pattern: PathPattern?
    var page: ListPages.Page?
    var position = 0
    var index = 0
    /// The next page, asked for once the current one is under way.
    var coming: ListPages.Pending?
    var failed: String?

    init(pages: ListPages, first: ListPages.Page?, location: S3Location, folder: String, pattern: PathPattern?) {
        self.pages = pages
        self.location = location
        self.folder = folder
        self.pattern = pattern
        if let first { page = first } else {
            do { page = try pages.fetch(after: nil) } catch { failed = "listing \(location) failed: \(error)" }
        }
    }

    func next() -> Item? {
        while let current = page {
            if coming == nil, current.truncated, let token = current.next { coming = pages.start(after: token) }
            while position < current.keys.count {
                let object = current.keys[position]
                position += 1
                let relative = String(object.key.dropFirst(folder.count))
                if relative.isEmpty || relative.hasSuffix("/") { continue } // "folder" markers
                if let pattern, !pattern.matches(relative) { continue }
                defer { index += 1 }
                let directory = relative.lastIndex(of: "/").map { String(relative[..<$0]) } ?? ""
                return Item(index: index, source: "s3://\(location.bucket)/\(object.key)", directory: directory,
                            listed: InputIdentity(size: object.size, etag: object.etag, lastModified: object.lastModified))
            }
            guard let coming else { page = nil; break }
            self.coming = nil
            switch coming.wait() {
            case .success(let nextPage):
                page = nextPage
                position = 0
            case .failure(let error):
                page = nil
                failed = "listing \(location) stopped after \(index) items: \(error)"
            }
        }
        return nil
    }

    func failure() -> String? { failed }
}

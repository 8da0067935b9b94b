import Foundation
import Synchronization
import Testing
import WorkbenchCore
@testable import WorkbenchNet

/// The listing of a bucket output, read as the run reaches it: pages in S3's order (the bytes
/// of the keys' UTF-8), fed here from a sorted list of keys three to a page.
@Suite struct S3InventoryTests {
    /// A listing of `keys` (sorted as S3 sorts them), three to a page; counts the pages asked for.
    final class Listing: Sendable {
        let keys: [String]
        let asked = Mutex<[String]>([])
        let failing: Int?

        init(_ keys: [String], failingPage: Int? = nil) {
            self.keys = keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            failing = failingPage
        }

        func page(_ index: Int) -> S3Inventory.Page {
            let slice = keys.dropFirst(index * 3).prefix(3)
            return S3Inventory.Page(objects: slice.map { ($0, $0.utf8.count) },
                                        next: index * 3 + 3 < keys.count ? String(index + 1) : nil)
        }

        func inventory() -> S3Inventory {
            S3Inventory(first: page(0)) { token in
                self.asked.withLock { $0.append(token) }
                let index = Int(token) ?? 0
                return { index == self.failing ? .failure(.unusableBucket(location: "s3://b/", reason: "refused")) : .success(self.page(index)) }
            }
        }
    }

    @Test func pagesAreReadAsFarAsTheLookupsReachAndNoFurther() {
        // S3 orders by bytes: "e\u{301}" (65 CC 81, a decomposed é) comes before "f", where
        // Swift's String order, which compares canonical forms, puts it after.
        let listing = Listing(["a.jpg", "b.jpg", "c.jpg", "d.jpg", "e\u{301}.jpg", "f.jpg", "z.jpg", "é.jpg", "éa.jpg"])
        let inventory = listing.inventory()
        #expect(inventory.size(of: "a.jpg") == 5)
        // "a.jpg" is within the first page: the second is asked for, not waited for.
        #expect(listing.asked.withLock { $0 } == ["1"])
        #expect(inventory.size(of: "aa.jpg") == nil)  // passed, not there
        #expect(inventory.pages == 1)
        #expect(inventory.size(of: "e\u{301}.jpg") == 7 && inventory.pages == 2)
        #expect(inventory.size(of: "é.jpg") == 6)
        #expect(inventory.pages == 3 && listing.asked.withLock { $0 } == ["1", "2"])
        #expect(inventory.size(of: "zz.jpg") == nil && inventory.size(of: "éa.jpg") == 7)
        #expect(inventory.size(of: "ü.jpg") == nil && inventory.count == 9 && inventory.failure == nil)
    }

    @Test func aPageThatCannotBeFetchedLeavesThePathsPastItAbsent() {
        let listing = Listing(["a", "b", "c", "d", "e", "f", "g"], failingPage: 1)
        let inventory = listing.inventory()
        #expect(inventory.size(of: "c") == 1)
        #expect(inventory.size(of: "e") == nil && inventory.size(of: "g") == nil)
        #expect(inventory.failure != nil)
        #expect(listing.asked.withLock { $0 } == ["1"])  // and not asked again
    }

    @Test func lookupsFromManyThreadsSeeEveryPageOnce() async {
        let keys = (0..<300).map { String(format: "k%04d", $0) }
        let listing = Listing(keys)
        let inventory = listing.inventory()
        await withTaskGroup(of: Bool.self) { group in
            for key in keys.reversed() { group.addTask { inventory.size(of: key) == key.utf8.count } }
            for await found in group { #expect(found) }
        }
        #expect(listing.asked.withLock { $0 }.count == 99 && inventory.pages == 100)
    }
}

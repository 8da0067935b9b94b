import Synchronization

/// The originals prepared for SSIMULACRA2, shared by the searches of one image: a photo encoded
/// to a target as JPEG, WebP and AVIF at one width is prepared once, not three times (a tenth of
/// a search). An entry lives while its image does, and at most `capacity` are kept.
final class PreparedOriginals: Sendable {
    static let shared = PreparedOriginals()
    static let capacity = 4

    /// One image's scorer, made by the first search to ask while the others wait for it.
    final class Slot: Sendable {
        let scorer = Mutex<PixelScorer?>(nil)

        func scorer(_ make: () throws -> PixelScorer) throws -> PixelScorer {
            try scorer.withLock { held in
                if let held { return held }
                let made = try make()
                held = made
                return made
            }
        }
    }

    private struct Entry {
        weak var image: VipsImage?
        let background: String
        let slot: Slot
    }

    private let entries = Mutex<[Entry]>([])

    /// The slot for `image`'s pixels flattened onto `background` (nil: as they are), in sRGB
    /// when `inSRGB` (`PixelScorer`). Entries whose image is gone are dropped first, so an
    /// identity is never matched to another image.
    func slot(for image: VipsImage, background: VipsArgumentValue?, inSRGB: Bool) -> Slot {
        let key = (background.map { "\($0)" } ?? "") + (inSRGB ? " sRGB" : "")
        return entries.withLock { entries in
            entries.removeAll { $0.image == nil }
            if let found = entries.first(where: { $0.image === image && $0.background == key }) { return found.slot }
            let slot = Slot()
            entries.append(Entry(image: image, background: key, slot: slot))
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
            return slot
        }
    }
}

/// Finds location tags in a WebM (Matroska) file and neutralises them where
/// they lie: each becomes an EBML Void element of the same length, its
/// content zeros. Nothing moves, so SeekHead and Cues positions stay valid
/// and a 500 MB video costs one small read per element header visited.
///
/// Walks the top level (EBML header, Segment) and the Segment's children,
/// descending only into Tags → Tag → SimpleTag (nested SimpleTags too):
/// - a SimpleTag whose TagName names a place or a coordinate (contains
///   LOCATION, GPS, LATITUDE, LONGITUDE or XMP, in any case) is voided with
///   everything nested in it: ffmpeg writes `-metadata location=…` there,
///   and carries QuickTime's location keys there when it remuxes a MOV;
/// - Attachments are voided whole: a cover picture can hold its own Exif
///   GPS, and browsers never show attachments;
/// - a CRC-32 element guarding content that changed is voided too, since it
///   would no longer match.
/// A Cluster of known size is stepped over in one read. A Segment or Cluster
/// of unknown size (live muxers such as Chrome's MediaRecorder) is walked
/// child by child until an element that cannot belong to it; a block cut off
/// by the end of the file ends the walk, since nothing can follow it.
struct MatroskaLocationPatcher {
    let file: FileDescriptor

    private enum ID {
        static let ebml: UInt32 = 0x1A45_DFA3
        static let segment: UInt32 = 0x1853_8067
        static let cluster: UInt32 = 0x1F43_B675
        static let tags: UInt32 = 0x1254_C367
        static let tag: UInt32 = 0x7373
        static let simpleTag: UInt32 = 0x67C8
        static let tagName: UInt32 = 0x45A3
        static let attachments: UInt32 = 0x1941_A469
        static let void: UInt32 = 0xEC
        static let crc32: UInt32 = 0xBF
        static let simpleBlock: UInt32 = 0xA3
        static let blockGroup: UInt32 = 0xA0
    }

    /// What cannot sit in a Cluster, so ends one of unknown size: the
    /// Segment's other children (SeekHead, Info, Tracks, Cues, Cluster, Tags,
    /// Chapters, Attachments), a new EBML header or Segment.
    private static let clusterEnders: Set<UInt32> = [
        0x114D_9B74, 0x1549_A966, 0x1654_AE6B, 0x1C53_BB6B, ID.cluster, ID.tags, 0x1043_A770, ID.attachments, ID.ebml, ID.segment,
    ]
    /// Timestamp, SimpleBlock, BlockGroup, Position, PrevSize, SilentTracks,
    /// EncryptedBlock, Void, CRC-32.
    private static let clusterChildren: Set<UInt32> = [0xE7, ID.simpleBlock, ID.blockGroup, 0xA7, 0xAB, 0x5854, 0xAF, ID.void, ID.crc32]
    private static let placeWords = ["LOCATION", "GPS", "LATITUDE", "LONGITUDE", "XMP"]
    private static let longestTagName = 4096
    private static let maximumDepth = 12
    private static let maximumElements = 4_000_000

    private struct Element {
        var id: UInt32
        var offset: UInt64
        var headerLength: UInt64
        /// nil: unknown size.
        var size: UInt64?
        var payload: UInt64 { offset + headerLength }
        var end: UInt64? { size.map { payload + $0 } }
    }

    private final class State {
        var report = StripReport(method: .untouched)
        var elementsSeen = 0
        var fileSize: UInt64 = 0
    }

    func run() throws -> StripReport {
        let state = State()
        state.fileSize = try file.size()
        var offset: UInt64 = 0
        while offset < state.fileSize {
            let element = try header(at: offset, limit: state.fileSize, state: state)
            switch element.id {
            case ID.segment:
                offset = try walkSegment(element, state: state)
            case ID.ebml, ID.void:
                offset = try knownEnd(element)
            default:
                throw MediaFileError.malformed("EBML element \(hex(element.id)) at top level, byte \(offset)")
            }
        }
        if !state.report.removed.isEmpty { state.report.method = .patchedInPlace }
        return state.report
    }

    /// Returns where the Segment ends: its size, or for an unknown size the
    /// end of the file or the next EBML header.
    private func walkSegment(_ segment: Element, state: State) throws -> UInt64 {
        let end = segment.end ?? state.fileSize
        var offset = segment.payload
        var checksums: [Element] = []
        var changed = false
        while offset < end {
            let child = try header(at: offset, limit: end, state: state)
            switch child.id {
            case ID.ebml where segment.size == nil, ID.segment where segment.size == nil:
                if changed { try void(checksums, state: state) }
                return offset
            case ID.cluster where child.size == nil:
                offset = try endOfUnknownSizeCluster(child, limit: end, state: state)
                continue
            case ID.tags:
                changed = try walkTags(child, depth: 1, state: state) || changed
            case ID.attachments:
                try void(child, because: "Attachments", state: state)
                changed = true
            case ID.crc32:
                checksums.append(child)
            default:
                break
            }
            offset = try knownEnd(child)
        }
        if changed { try void(checksums, state: state) }
        return end
    }

    /// Steps over a Cluster's children, which live muxers write with known
    /// sizes, until the first element that must belong to the Segment.
    private func endOfUnknownSizeCluster(_ cluster: Element, limit: UInt64, state: State) throws -> UInt64 {
        var offset = cluster.payload
        while offset < limit {
            let child = try header(at: offset, limit: nil, state: state)
            if Self.clusterEnders.contains(child.id) { return offset }
            guard Self.clusterChildren.contains(child.id) else {
                throw MediaFileError.malformed("EBML element \(hex(child.id)) in a Cluster of unknown size at byte \(offset)")
            }
            guard let end = child.end, end <= limit else {
                if [ID.simpleBlock, ID.blockGroup].contains(child.id), child.size != nil, limit == state.fileSize { return limit }
                throw MediaFileError.malformed("EBML element \(hex(child.id)) at byte \(offset) runs past its Cluster")
            }
            offset = end
        }
        return limit
    }

    /// Tags, Tag and SimpleTag alike: voids each SimpleTag that names a
    /// place and walks the rest. Returns whether anything inside changed.
    private func walkTags(_ parent: Element, depth: Int, state: State) throws -> Bool {
        guard depth <= Self.maximumDepth else { throw MediaFileError.malformed("Matroska tags nested too deeply") }
        var checksums: [Element] = []
        var changed = false
        for child in try children(of: parent, state: state) {
            switch (parent.id, child.id) {
            case (_, ID.crc32):
                checksums.append(child)
            case (ID.tag, ID.simpleTag), (ID.simpleTag, ID.simpleTag):
                if let name = try placeName(of: child, state: state) {
                    try void(child, because: "SimpleTag \(name.debugDescription)", state: state)
                    state.report.removedLocation = true
                    changed = true
                } else {
                    changed = try walkTags(child, depth: depth + 1, state: state) || changed
                }
            case (ID.tags, ID.tag):
                changed = try walkTags(child, depth: depth + 1, state: state) || changed
            default:
                break
            }
        }
        if changed { try void(checksums, state: state) }
        return changed
    }

    /// The SimpleTag's TagName if it names a place. A name too long to read
    /// is treated as one: we cannot vouch for what it says.
    private func placeName(of simpleTag: Element, state: State) throws -> String? {
        for child in try children(of: simpleTag, state: state) where child.id == ID.tagName {
            let size = try knownEnd(child) - child.payload
            guard size <= UInt64(Self.longestTagName) else { return "(\(size)-byte name)" }
            let name = String(decoding: try file.read(count: Int(size), at: child.payload), as: UTF8.self)
            let upper = name.uppercased()
            if Self.placeWords.contains(where: { upper.contains($0) }) { return name }
        }
        return nil
    }

    /// The children of a master element of known size, each of known size
    /// and lying wholly inside it.
    private func children(of parent: Element, state: State) throws -> [Element] {
        let end = try knownEnd(parent)
        var children: [Element] = []
        var offset = parent.payload
        while offset < end {
            let child = try header(at: offset, limit: end, state: state)
            offset = try knownEnd(child)
            children.append(child)
        }
        return children
    }

    /// Reads one element header. With a `limit`, a known size must end
    /// within it; an unknown size is left for the caller to accept or refuse.
    private func header(at offset: UInt64, limit: UInt64?, state: State) throws -> Element {
        state.elementsSeen += 1
        guard state.elementsSeen <= Self.maximumElements else { throw MediaFileError.malformed("too many EBML elements") }
        let bytes = try file.read(count: 12, at: offset)
        guard let (id, idLength) = bytes.ebmlID(at: 0), let field = bytes.ebmlSize(at: idLength) else {
            throw MediaFileError.malformed("EBML element header at byte \(offset)")
        }
        let element = Element(id: id, offset: offset, headerLength: UInt64(idLength + field.length), size: field.size)
        if let limit {
            guard element.payload <= limit, element.size.map({ $0 <= limit - element.payload }) ?? true else {
                throw MediaFileError.malformed("EBML element \(hex(id)) at byte \(offset) runs past its parent")
            }
        }
        return element
    }

    private func knownEnd(_ element: Element) throws -> UInt64 {
        guard let end = element.end else {
            throw MediaFileError.malformed("EBML element \(hex(element.id)) at byte \(element.offset) has unknown size")
        }
        return end
    }

    private func void(_ checksums: [Element], state: State) throws {
        for checksum in checksums { try void(checksum, because: "CRC-32", state: state) }
    }

    /// Rewrites the element as a Void of the same total length: ID 0xEC, an
    /// 8-byte size (or all the room there is, for the 6-byte CRC-32), zeros.
    private func void(_ element: Element, because what: String, state: State) throws {
        let total = try knownEnd(element) - element.offset
        guard total >= 2 else { throw MediaFileError.malformed("EBML element at byte \(element.offset) too small to void") }
        let sizeLength = Int(min(8, total - 1))
        let payload = total - 1 - UInt64(sizeLength)
        guard payload < (1 << UInt64(7 * sizeLength)) - 1 else { throw MediaFileError.malformed("EBML element too large to void") }
        var header: [UInt8] = [UInt8(ID.void)]
        for index in 0..<sizeLength {
            header.append(UInt8(truncatingIfNeeded: payload >> UInt64(8 * (sizeLength - 1 - index))))
        }
        header[1] |= 0x80 >> UInt8(sizeLength - 1)
        try file.write(header, at: element.offset)
        try file.writeZeros(element.offset + UInt64(header.count)..<element.offset + total)
        state.report.removed.append("WebM \(what) at byte \(element.offset) (\(total) bytes)")
    }

    private func hex(_ id: UInt32) -> String {
        "0x" + String(id, radix: 16, uppercase: true)
    }
}

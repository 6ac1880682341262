/// Removes the Exif and XMP items of a HEIC/HEIF photo where they lie: the
/// item's type in `iinf` becomes `free` and the bytes `iloc` says it holds
/// become zeros. Nothing moves, so every other item's offsets stay valid.
///
/// In HEIF the metadata is not a box of its own (as in MP4) but an item, like
/// the picture: the top-level `meta` box lists items in `iinf` (type `Exif`,
/// or `mime` with XMP's content type) and where their bytes are in `iloc`
/// (in the file, or inside `meta`'s `idat`). Orientation in HEIF is the
/// `irot`/`imir` properties, which stay; the Exif copy of it is informative.
struct HEIFLocationPatcher {
    let file: FileDescriptor

    private static let maximumMetaBytes: UInt64 = 8 << 20
    /// A phone's photo has a few dozen items (tiles, a thumbnail, Exif), one
    /// extent each; far more is not a photo.
    static let maximumExtents: UInt64 = 16_384

    private struct Box {
        var offset: Int
        var headerLength: Int
        var size: Int
        var type: String
        var payload: Int { offset + headerLength }
        var end: Int { offset + size }
    }

    func run() throws -> StripReport {
        var report = StripReport(method: .untouched)
        let fileSize = try file.size()
        // The top-level boxes, read header by header: `meta`, and the payloads
        // of `mdat`, where an item's bytes in the file must lie. Zeroing
        // anything else (a box's header, `ftyp`) would break the file.
        var offset: UInt64 = 0
        var metaRange: (start: UInt64, size: UInt64)?
        var mdatPayloads: [Range<UInt64>] = []
        // A photo has `ftyp`, `meta` and `mdat`; a file of tiny boxes would
        // otherwise cost one read per eight bytes.
        var boxesLeft = 1_024
        while offset + 8 <= fileSize, boxesLeft > 0 {
            boxesLeft -= 1
            let header = try file.read(count: Int(min(16, fileSize - offset)), at: offset)
            var size = UInt64(header.u32be(at: 0)!)
            var headerLength: UInt64 = 8
            if size == 1 {
                guard let large = header.u64be(at: 8) else { throw MediaFileError.malformed("box header cut at \(offset)") }
                size = large
                headerLength = 16
            } else if size == 0 {
                size = fileSize - offset
            }
            guard size >= headerLength, size <= fileSize - offset else {
                // Past `meta`, a cut or odd tail only narrows where items may lie.
                if metaRange != nil { break }
                throw MediaFileError.malformed("box at \(offset) has size \(size)")
            }
            if header.has("meta", at: 4), metaRange == nil {
                metaRange = (offset, size)
            } else if header.has("mdat", at: 4) {
                mdatPayloads.append(offset + headerLength..<offset + size)
            }
            offset += size
        }
        guard let metaRange else { throw MediaFileError.malformed("HEIF file without a meta box") }
        guard metaRange.size <= Self.maximumMetaBytes else { throw MediaFileError.malformed("meta box too large") }
        let meta = try file.read(count: Int(metaRange.size), at: metaRange.start)
        let base = Int(metaRange.start)
        // `meta` is a full box: version and flags before its children.
        let children = try Self.boxes(meta, from: 12, to: meta.count)
        guard let iinf = children.first(where: { $0.type == "iinf" }) else { return report }
        let items = try Self.metadataItems(meta, iinf)
        guard !items.isEmpty else { return report }
        guard let iloc = children.first(where: { $0.type == "iloc" }) else { throw MediaFileError.malformed("HEIF without iloc") }
        let idat = children.first { $0.type == "idat" }
        let extents = try Self.extents(meta, iloc, of: Set(items.map(\.id)))
        // Every range is checked before any byte is written, so a file refused
        // halfway is not left half patched.
        let idatBytes = idat.map { UInt64(base + $0.payload)..<UInt64(base + $0.end) }
        var zeroed: [UInt32: [Range<UInt64>]] = [:]
        for item in items {
            for extent in extents[item.id] ?? [] {
                // Where the offset counts from, and the span the bytes must lie in:
                // the file outside `meta`, or `idat`'s payload.
                let within: Range<UInt64>
                switch extent.method {
                case 0: within = 0..<fileSize
                case 1:
                    guard let idatBytes else { throw MediaFileError.malformed("item \(item.id) in a missing idat") }
                    within = idatBytes
                default: throw MediaFileError.malformed("item \(item.id) built from other items")
                }
                let (start, past) = within.lowerBound.addingReportingOverflow(extent.offset)
                // A length of 0 means "to the end" of the file or of idat.
                let (end, beyond) = extent.length == 0 ? (within.upperBound, false) : start.addingReportingOverflow(extent.length)
                guard !past, !beyond, start <= end, end <= within.upperBound else {
                    throw MediaFileError.malformed("item \(item.id) outside its data")
                }
                if extent.method == 0, !mdatPayloads.contains(where: { $0.lowerBound <= start && end <= $0.upperBound }) {
                    throw MediaFileError.malformed("item \(item.id) outside mdat")
                }
                zeroed[item.id, default: []].append(start..<end)
            }
        }
        for item in items {
            try file.write(Array("free".utf8), at: UInt64(base + item.typeOffset))
            for range in zeroed[item.id] ?? [] { try file.writeZeros(range) }
            report.removed.append("HEIF \(item.name) item \(item.id)")
            if item.name == "Exif" { report.removedLocation = true }
        }
        report.method = .patchedInPlace
        return report
    }

    private static func boxes(_ bytes: [UInt8], from start: Int, to end: Int) throws -> [Box] {
        var boxes: [Box] = []
        var offset = start
        while offset + 8 <= end {
            guard let size32 = bytes.u32be(at: offset) else { throw MediaFileError.malformed("box header cut at \(offset)") }
            var box = Box(offset: offset, headerLength: 8, size: Int(size32), type: fourCCString(Array(bytes[offset + 4..<offset + 8])))
            if size32 == 1 {
                guard let large = bytes.u64be(at: offset + 8), large <= UInt64(end - offset) else {
                    throw MediaFileError.malformed("large box at \(offset)")
                }
                box.headerLength = 16
                box.size = Int(large)
            } else if size32 == 0 {
                box.size = end - offset
            }
            guard box.size >= box.headerLength, box.size <= end - offset else {
                throw MediaFileError.malformed("box '\(box.type)' at \(offset) has size \(box.size)")
            }
            boxes.append(box)
            offset += box.size
        }
        return boxes
    }

    private struct Item {
        var id: UInt32
        var name: String
        /// Where the item's four-letter type is, from the start of `meta`.
        var typeOffset: Int
    }

    /// The Exif and XMP items `iinf` lists (`infe` versions 2 and 3 name a type).
    private static func metadataItems(_ meta: [UInt8], _ iinf: Box) throws -> [Item] {
        guard let version = meta.u8(at: iinf.payload) else { throw MediaFileError.malformed("iinf header") }
        let entriesStart = iinf.payload + 4 + (version == 0 ? 2 : 4)
        var items: [Item] = []
        for infe in try boxes(meta, from: entriesStart, to: iinf.end) where infe.type == "infe" {
            guard let infeVersion = meta.u8(at: infe.payload), infeVersion >= 2 else { continue }
            var at = infe.payload + 4
            let id: UInt32
            if infeVersion == 2 {
                guard let short = meta.u16be(at: at) else { throw MediaFileError.malformed("infe") }
                id = UInt32(short)
                at += 2
            } else {
                guard let long = meta.u32be(at: at) else { throw MediaFileError.malformed("infe") }
                id = long
                at += 4
            }
            at += 2  // item_protection_index
            guard let typeBytes = meta.bytes(at..<at + 4), at + 4 <= infe.end else { throw MediaFileError.malformed("infe type") }
            let type = fourCCString(typeBytes)
            if type == "Exif" {
                items.append(Item(id: id, name: "Exif", typeOffset: at))
            } else if type == "mime" {
                // item_name, then content_type, both NUL-terminated.
                let strings = meta[(at + 4)..<infe.end].split(separator: 0, omittingEmptySubsequences: false)
                if strings.count > 1, String(decoding: strings[1], as: UTF8.self) == "application/rdf+xml" {
                    items.append(Item(id: id, name: "XMP", typeOffset: at))
                }
            }
        }
        return items
    }

    private struct Extent {
        var method: Int
        var offset: UInt64
        var length: UInt64
    }

    /// Where `iloc` says the wanted items' bytes are.
    private static func extents(_ meta: [UInt8], _ iloc: Box, of wanted: Set<UInt32>) throws -> [UInt32: [Extent]] {
        var at = iloc.payload
        func number(_ size: Int) throws -> UInt64 {
            defer { at += size }
            guard at + size <= iloc.end else { throw MediaFileError.malformed("iloc cut at \(at)") }
            switch size {
            case 0: return 0
            case 2: return UInt64(meta.u16be(at: at)!)
            case 4: return UInt64(meta.u32be(at: at)!)
            case 8: return meta.u64be(at: at)!
            default: throw MediaFileError.malformed("iloc field of \(size) bytes")
            }
        }
        let version = Int(try number(4) >> 24)
        guard version <= 2, at + 2 <= iloc.end else { throw MediaFileError.malformed("iloc version \(version)") }
        let sizes = (meta[at], meta[at + 1])
        at += 2
        let offsetSize = Int(sizes.0 >> 4), lengthSize = Int(sizes.0 & 15), baseSize = Int(sizes.1 >> 4)
        let indexSize = version == 0 ? 0 : Int(sizes.1 & 15)
        let count = try number(version < 2 ? 2 : 4)
        var found: [UInt32: [Extent]] = [:]
        // Fields may be zero bytes wide, so an extent can take no room at all:
        // without a cap, a few megabytes of items each claiming 65,535 empty
        // extents would keep a worker looping for hours.
        var extentsLeft = maximumExtents
        for _ in 0..<count {
            let id = UInt32(try number(version < 2 ? 2 : 4))
            let method = version == 0 ? 0 : Int(try number(2) & 15)
            _ = try number(2)  // data_reference_index
            let baseOffset = try number(baseSize)
            let extentCount = try number(2)
            guard extentCount <= extentsLeft else { throw MediaFileError.malformed("iloc lists more than \(maximumExtents) extents") }
            extentsLeft -= extentCount
            for _ in 0..<extentCount {
                _ = try number(indexSize)
                let offset = try number(offsetSize)
                let length = try number(lengthSize)
                let (start, overflow) = baseOffset.addingReportingOverflow(offset)
                guard !overflow else { throw MediaFileError.malformed("iloc offset of item \(id)") }
                if wanted.contains(id) { found[id, default: []].append(Extent(method: method, offset: start, length: length)) }
            }
        }
        return found
    }
}

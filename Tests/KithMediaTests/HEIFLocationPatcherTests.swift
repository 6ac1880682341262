import KithTestSupport
@testable import KithMedia
import Testing

/// HEIC photos as an iPhone lays them out, built byte by byte: `ftyp`, a
/// `meta` box whose `iinf` lists the picture, an Exif item and an XMP item,
/// whose `iloc` puts the picture and the Exif in `mdat` and the XMP in
/// `idat`, then `mdat`.
@Suite("HEIC location items")
struct HEIFLocationPatcherTests {
    @Test("the Exif item in mdat and the XMP item in idat become zeros typed `free`; every other byte stays")
    func patched() throws {
        let photo = HEIF()
        let bytes = photo.bytes()
        let (path, cleanup) = try temporaryFile(bytes)
        defer { cleanup() }

        let report = try MetadataStripper.strip(fileAt: path, type: .heic)
        let patched = try read(path)

        #expect(report.method == .patchedInPlace && report.removedLocation)
        #expect(report.removed == ["HEIF Exif item 2", "HEIF XMP item 3"])
        #expect(patched.count == bytes.count)
        for needle in ["GPSLatitude", "48.8584", "Exif"] {
            #expect(!patched.contains(needle), "still holds \(needle)")
        }
        let changed = bytes.indices.filter { bytes[$0] != patched[$0] }
        let allowed = photo.metadataRanges(in: bytes)
        #expect(!changed.isEmpty)
        for index in changed {
            #expect(allowed.contains { $0.contains(index) }, "byte \(index) changed outside the Exif and XMP items and their types")
        }
        #expect(patched.contains(HEIF.picture), "the picture's bytes stay")
        #expect(try MetadataStripper.strip(fileAt: path, type: .heic) == StripReport(method: .untouched), "nothing left the second time")
    }

    @Test("a HEIC with no Exif or XMP item is left exactly as it was")
    func untouched() throws {
        let bytes = HEIF(exif: false, xmp: false).bytes()
        let (path, cleanup) = try temporaryFile(bytes)
        defer { cleanup() }

        #expect(try MetadataStripper.strip(fileAt: path, type: .heic) == StripReport(method: .untouched))
        #expect(try read(path) == bytes)
    }

    @Test("odd files are refused as malformed, never trusted, never a crash", arguments: [
        ("no meta box", HEIF(meta: false)),
        ("an Exif item said to run past the end of the file", HEIF(exifLength: 1 << 30)),
        ("an Exif item said to lie inside the meta box itself", HEIF(exifOffset: 40)),
        // Zeroing ftyp's size would make it run to the end of the file and hide `meta` (found by the fuzzer).
        ("an Exif item said to lie over the ftyp box's header", HEIF(exifLength: 4, exifOffset: 0)),
        ("an XMP item in an idat that is not there", HEIF(idat: false)),
        ("an item built from other items (construction method 2)", HEIF(xmpMethod: 2)),
        ("an iloc of version 3", HEIF(ilocVersion: 3)),
        ("a box inside meta shorter than its own header", HEIF(trailingMetaBox: [0, 0, 0, 3] + Array("junk".utf8))),
        ("an iloc whose empty extents would take hours to walk", HEIF(emptyExtents: 10_000)),
    ])
    func malformed(_ name: String, _ photo: HEIF) throws {
        let bytes = photo.bytes()
        let (path, cleanup) = try temporaryFile(bytes)
        defer { cleanup() }
        #expect(throws: MediaFileError.self, "\(name)") { try MetadataStripper.strip(fileAt: path, type: .heic) }
        #expect(try read(path) == bytes, "a refused file is not left half patched")
    }

    @Test("every cut of the file and every flipped byte either patches, leaves alone or refuses — nothing else")
    func cutsAndFlips() throws {
        let bytes = HEIF().bytes()
        var variants = (0..<bytes.count).map { Array(bytes.prefix($0)) }
        for index in bytes.indices {
            var flipped = bytes
            flipped[index] ^= 0xFF
            variants.append(flipped)
        }
        var refused = 0
        for variant in variants {
            let (path, cleanup) = try temporaryFile(variant)
            defer { cleanup() }
            do {
                let report = try MetadataStripper.strip(fileAt: path, type: .heic)
                #expect(try read(path).count == variant.count, "a patch never changes the length")
                if report.method == .untouched { #expect(try read(path) == variant) }
            } catch is MediaFileError {
                refused += 1
            }
        }
        #expect(refused > bytes.count / 2, "most cuts lose the meta box and must be refused")
    }
}

/// A small HEIC file whose parts can be left out or broken one at a time.
struct HEIF: Sendable {
    var meta = true
    var exif = true
    var xmp = true
    var idat = true
    var exifLength: UInt32?
    var exifOffset: UInt32?
    var xmpMethod: UInt16 = 1
    var ilocVersion: UInt8 = 1
    var trailingMetaBox: [UInt8] = []
    /// Items added to `iloc`, each claiming this many zero-width extents.
    var emptyExtents = 0

    static let picture: [UInt8] = Array("HEVC-PICTURE-BYTES".utf8)
    static let exifPayload: [UInt8] = [0, 0, 0, 6] + Array("Exif\0\0MM\0*GPSLatitude 48.8584 N".utf8)
    static let xmpPayload: [UInt8] = Array("<x:xmpmeta><exif:GPSLatitude>48.8584</exif:GPSLatitude></x:xmpmeta>".utf8)

    func bytes() -> [UInt8] {
        let head = Fixture.ftyp("heic", ["mif1", "heic"])
        // iloc's fields have fixed widths, so the meta box's length does not
        // depend on the offsets written into it.
        let metaLength = meta ? metaBox(mdatPayloadAt: 0).count : 0
        let mdatPayloadAt = head.count + metaLength + 8
        let mdatPayload = Self.picture + (exif ? Self.exifPayload : [])
        return head + (meta ? metaBox(mdatPayloadAt: mdatPayloadAt) : []) + box("mdat", mdatPayload)
    }

    /// Where patching may change bytes: the two items' types and contents.
    func metadataRanges(in bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        for type in ["Exif", "mime"] {
            if let at = bytes.firstRange(of: Array(type.utf8)) { ranges.append(at) }
        }
        for payload in [Self.exifPayload, Self.xmpPayload] {
            if let at = bytes.firstRange(of: payload) { ranges.append(at) }
        }
        return ranges
    }

    private func metaBox(mdatPayloadAt: Int) -> [UInt8] {
        var entries = [infe(1, "hvc1")]
        if exif { entries.append(infe(2, "Exif")) }
        if xmp { entries.append(infe(3, "mime", extra: Array("application/rdf+xml\0".utf8))) }
        let iinf = fullBox("iinf", version: 0, be16(UInt16(entries.count)) + entries.flatMap { $0 })

        var items: [[UInt8]] = [ilocItem(1, method: 0, offset: UInt32(mdatPayloadAt), length: UInt32(Self.picture.count))]
        if exif {
            let length = exifLength ?? UInt32(Self.exifPayload.count)
            let offset = exifOffset ?? UInt32(mdatPayloadAt + Self.picture.count)
            items.append(ilocItem(2, method: 0, offset: offset, length: length))
        }
        if xmp { items.append(ilocItem(3, method: xmpMethod, offset: 0, length: UInt32(Self.xmpPayload.count))) }
        var sizes: [UInt8] = [0x44, 0x00]  // 4-byte offsets and lengths, no base offset, no index
        if emptyExtents > 0 {
            sizes = [0x00, 0x00]
            items = (10..<12).map { be16($0) + be16(0) + be16(0) + be16(UInt16(emptyExtents)) }
        }
        let iloc = fullBox("iloc", version: ilocVersion, sizes + be16(UInt16(items.count)) + items.flatMap { $0 })

        let hdlr = fullBox("hdlr", version: 0, [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let children = hdlr + iinf + iloc + (idat ? box("idat", Self.xmpPayload) : []) + trailingMetaBox
        return fullBox("meta", version: 0, children)
    }

    private func infe(_ id: UInt16, _ type: String, extra: [UInt8] = []) -> [UInt8] {
        fullBox("infe", version: 2, be16(id) + be16(0) + Array(type.utf8) + [0] + extra)
    }

    private func ilocItem(_ id: UInt16, method: UInt16, offset: UInt32, length: UInt32) -> [UInt8] {
        be16(id) + be16(method) + be16(0) + be16(1) + be32(offset) + be32(length)
    }

    private func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    private func fullBox(_ type: String, version: UInt8, _ payload: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }

    private func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
}

import Foundation
import KithMedia

/// Tiny real media files, built here so every test can see what went in.
/// The three photos were encoded by Chromium from a 16×8 canvas (left half
/// red, right half blue); the rest are assembled byte by byte.
public enum Fixture {
    public static let canvasJPEG = base64(
        "/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABh",
        "Y3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAAB",
        "UAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAA",
        "AAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9Y",
        "WVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAM",
        "ZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQ",
        "FxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgo",
        "KCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAIABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/",
        "xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFAEBAAAAAAAAAAAAAAAAAAAABf/EABgRAAIDAAAAAAAAAAAAAAAAAAAGQ4LC/9oADAMB",
        "AAIRAxEAPwCYS4Ekieuhdwhtk//Z"
    )
    public static let canvasPNG = base64(
        "iVBORw0KGgoAAAANSUhEUgAAABAAAAAICAYAAADwdn+XAAAAK0lEQVR4AeyQMQ0AAAjDFpQgZdLnbDjYw8FDk749WmI72ZSThSUf",
        "AO4fDAAAAP//ypdSWgAAAAZJREFUAwCpsCIBk+q1RwAAAABJRU5ErkJggg=="
    )
    /// VP8X (ICC flag set) + ICCP + lossy VP8.
    public static let canvasWebP = base64(
        "UklGRiACAABXRUJQVlA4WAoAAAAgAAAADwAABwAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABh",
        "Y3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAAB",
        "UAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAA",
        "AAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9Y",
        "WVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAM",
        "ZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDggMgAAAJABAJ0BKhAACAABQCYloAJ0ugADmAD+",
        "8QB//r93/+Ur/9Sz8bv3hf/srHFv/SsXiAAA"
    )
    /// The classic 1×1 GIF89a.
    public static let gif: [UInt8] = [
        0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF,
        0x00, 0x00, 0x00, 0x21, 0xF9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
    ]

    /// `gif` with, before its image: a NETSCAPE2.0 loop, an ICC profile, an
    /// XMP application extension naming the location (closed by XMP's
    /// "magic trailer") and a comment; after the image a private application
    /// extension; then bytes after the trailer.
    public static func gifWithLocation() -> [UInt8] {
        func application(_ identifier: String, _ blocks: [UInt8]) -> [UInt8] {
            [0x21, 0xFF, 0x0B] + Array(identifier.utf8) + blocks
        }
        let magicTrailer: [UInt8] = [0x01] + (0...255).reversed().map { UInt8($0) } + [0x00]
        let colourTableEnd = 19
        return Array(gif[0..<colourTableEnd])
            + application("NETSCAPE2.0", [0x03, 0x01, 0x00, 0x00, 0x00])
            + application("ICCRGBG1012", [0x04, 0x01, 0x02, 0x03, 0x04, 0x00])
            + application("XMP DataXMP", Array("<x:xmpmeta><rdf:Description \(xmpLocation)/></x:xmpmeta>".utf8) + magicTrailer)
            + [0x21, 0xFE, 19] + Array("shot near the tower".utf8) + [0x00]
            + gif[colourTableEnd..<gif.count - 1]
            + application("KITHDATA1.0", [0x05] + Array("Paris".utf8) + [0x00])
            + [0x3B] + Array("Paris again".utf8)
    }

    private static func base64(_ parts: String...) -> [UInt8] {
        [UInt8](Data(base64Encoded: parts.joined())!)
    }

    // MARK: - Location the photos carry

    /// 48° 51' 29.99" N, 2° 17' 40.20" E as Exif rationals, big-endian: the
    /// needle the tests search for after stripping.
    public static let latitudeRationals: [UInt8] = [
        0, 0, 0, 48, 0, 0, 0, 1, 0, 0, 0, 51, 0, 0, 0, 1, 0, 0, 0x0B, 0xB7, 0, 0, 0, 100,
    ]
    public static let longitudeRationals: [UInt8] = [
        0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0x0F, 0xB4, 0, 0, 0, 100,
    ]
    public static let thumbnail = Array("THUMBNAIL-BYTES!".utf8)
    public static let cameraMake = Array("KithCam\0".utf8)
    public static let xmpLocation = "exif:GPSLatitude=\"48,51.4998N\""
    public static let iso6709 = "+48.8583+002.2945/"

    /// A big-endian Exif TIFF block: IFD0 with Make, Orientation and a GPS IFD
    /// pointer; the GPS IFD with latitude and longitude; IFD1 with a thumbnail.
    public static func exifTIFF(orientation: UInt16? = 6, gps: Bool = true) -> [UInt8] {
        var entries: [(tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])] = [(0x010F, 2, 8, cameraMake)]
        if let orientation { entries.append((0x0112, 3, 1, be16(orientation) + [0, 0])) }
        if gps { entries.append((0x8825, 4, 1, [])) }
        let ifd0 = 8
        let ifd0Size = 2 + entries.count * 12 + 4
        let makeOffset = ifd0 + ifd0Size
        let gpsIFD = makeOffset + 8
        let gpsSize = 2 + 4 * 12 + 4
        let latitudeOffset = gpsIFD + gpsSize
        let longitudeOffset = latitudeOffset + 24
        let ifd1 = gps ? longitudeOffset + 24 : gpsIFD
        let thumbnailOffset = ifd1 + 2 + 2 * 12 + 4

        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + be32(UInt32(ifd0))
        tiff += be16(UInt16(entries.count))
        for entry in entries {
            tiff += be16(entry.tag) + be16(entry.type) + be32(entry.count)
            switch entry.tag {
            case 0x010F: tiff += be32(UInt32(makeOffset))
            case 0x8825: tiff += be32(UInt32(gpsIFD))
            default: tiff += entry.value
            }
        }
        tiff += be32(UInt32(ifd1))
        tiff += cameraMake
        if gps {
            tiff += be16(4)
            tiff += be16(1) + be16(2) + be32(2) + [UInt8(ascii: "N"), 0, 0, 0]
            tiff += be16(2) + be16(5) + be32(3) + be32(UInt32(latitudeOffset))
            tiff += be16(3) + be16(2) + be32(2) + [UInt8(ascii: "E"), 0, 0, 0]
            tiff += be16(4) + be16(5) + be32(3) + be32(UInt32(longitudeOffset))
            tiff += be32(0)
            tiff += latitudeRationals + longitudeRationals
        }
        tiff += be16(2)
        tiff += be16(0x0201) + be16(4) + be32(1) + be32(UInt32(thumbnailOffset))
        tiff += be16(0x0202) + be16(4) + be32(1) + be32(UInt32(thumbnail.count))
        tiff += be32(0)
        tiff += thumbnail
        return tiff
    }

    public static func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker] + be16(UInt16(payload.count + 2)) + payload
    }

    /// The canvas JPEG with, after SOI: an Exif APP1 (Orientation 6, GPS,
    /// thumbnail), an XMP APP1 naming the location, an APP13 IPTC block, and
    /// a comment; then the encoder's own segments unchanged.
    public static func jpegWithLocation(orientation: UInt16? = 6) -> [UInt8] {
        let exif = jpegSegment(0xE1, Array("Exif\0\0".utf8) + exifTIFF(orientation: orientation))
        let xmp = jpegSegment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:Description \(xmpLocation)/></x:xmpmeta>".utf8))
        let iptc = jpegSegment(0xED, Array("Photoshop 3.0\08BIM\u{04}\u{04}\0\0\0\0\0\u{10}Paris, Eiffel Tow".utf8))
        let comment = jpegSegment(0xFE, Array("shot near the tower".utf8))
        return [0xFF, 0xD8] + exif + xmp + iptc + comment + canvasJPEG.dropFirst(2)
    }

    public static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(ZipWriter.crc32(body))
    }

    /// The canvas PNG with tEXt, iTXt (XMP), tIME and eXIf chunks before its
    /// image data, and a private chunk after it.
    public static func pngWithLocation() -> [UInt8] {
        let ihdrEnd = 8 + 25
        return Array(canvasPNG[0..<ihdrEnd])
            + pngChunk("tEXt", Array("Comment\0shot near the tower".utf8))
            + pngChunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta \(xmpLocation)/>".utf8))
            + pngChunk("tIME", [0x07, 0xEA, 11, 30, 12, 0, 0])
            + pngChunk("eXIf", exifTIFF())
            + canvasPNG[ihdrEnd...]
    }

    /// The canvas WebP with EXIF and XMP chunks appended, their VP8X flags
    /// set and the RIFF size fixed.
    public static func webpWithLocation() -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            Array(type.utf8) + le32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : [])
        }
        var bytes = canvasWebP + chunk("EXIF", exifTIFF()) + chunk("XMP ", Array("<x:xmpmeta \(xmpLocation)/>".utf8))
        bytes[20] |= 0x08 | 0x04
        bytes.replaceSubrange(4..<8, with: le32(UInt32(bytes.count - 8)))
        return bytes
    }

    // MARK: - ISO base media

    /// An atom tree for building MP4/MOV files whose location atoms' byte
    /// ranges are known.
    public indirect enum Atom {
        case leaf([UInt8], [UInt8], location: Bool = false, large: Bool = false)
        case node([UInt8], prefix: [UInt8] = [], [Atom], trailer: [UInt8] = [])

        public static func leaf(_ type: String, _ payload: [UInt8], location: Bool = false, large: Bool = false) -> Atom {
            .leaf(Array(type.utf8), payload, location: location, large: large)
        }

        public static func node(_ type: String, prefix: [UInt8] = [], _ children: [Atom], trailer: [UInt8] = []) -> Atom {
            .node(Array(type.utf8), prefix: prefix, children, trailer: trailer)
        }

        func write(at offset: Int, into output: inout [UInt8], locations: inout [Range<Int>]) {
            switch self {
            case .leaf(let type, let payload, let location, let large):
                let headerLength = large ? 16 : 8
                let size = headerLength + payload.count
                if location { locations.append(offset..<offset + size) }
                output += large ? be32(1) + type + be64(UInt64(size)) : be32(UInt32(size)) + type
                output += payload
            case .node(let type, let prefix, let children, let trailer):
                var body = prefix
                for child in children { child.write(at: offset + 8 + body.count, into: &body, locations: &locations) }
                body += trailer
                output += be32(UInt32(8 + body.count)) + type + body
            }
        }
    }

    public static func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
        let payload = Array(major.utf8) + be32(0x200) + compatible.flatMap { Array($0.utf8) }
        return be32(UInt32(8 + payload.count)) + Array("ftyp".utf8) + payload
    }

    public static let mdatPayload: [UInt8] = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    /// ftyp, then moov holding mvhd, a trak with `loci` in its udta, a udta
    /// with `©xyz` (and the QuickTime zero terminator), an iPhone-style meta
    /// (keys + ilst, item 2 being the location), then a 64-bit-size mdat.
    public static func mp4WithLocation(major: String = "isom") -> (bytes: [UInt8], locations: [Range<Int>]) {
        let keys = quickTimeKeys(["com.apple.quicktime.make", "com.apple.quicktime.location.ISO6709"])
        let xyz: [UInt8] = [0xA9, 0x78, 0x79, 0x7A]
        let tree: [Atom] = [
            .node("moov", [
                .leaf("mvhd", [UInt8](repeating: 0x11, count: 100)),
                .node("trak", [
                    .leaf("tkhd", [UInt8](repeating: 0x22, count: 84)),
                    .node("udta", [.leaf("loci", [0, 0, 0, 0, 0x15, 0xC7] + Array("Paris\0".utf8) + [0, 0, 0x02, 0x4B, 0x3C, 0xBC, 0x00, 0x30, 0xD4, 0x00, 0, 0, 0, 0] + Array("Earth\0\0".utf8), location: true)]),
                ]),
                .node("udta", [
                    .leaf([0xA9] + Array("nam".utf8), be16(5) + be16(0x55C4) + Array("Party".utf8)),
                    .leaf(xyz, be16(UInt16(iso6709.utf8.count)) + be16(0x15C7) + Array(iso6709.utf8), location: true),
                ], trailer: [0, 0, 0, 0]),
                .node("meta", [
                    .leaf("hdlr", [0, 0, 0, 0] + Array("mhlrmdta".utf8) + [UInt8](repeating: 0, count: 13)),
                    .leaf("keys", keys),
                    .node("ilst", [
                        ilstItem(1, "Apple"),
                        ilstItem(2, "+48.8583+002.2945+035.000/"),
                    ]),
                ]),
            ]),
            .leaf("mdat", mdatPayload, large: true),
        ]
        var bytes = ftyp(major, [major, "iso2", "avc1", "mp41"])
        var locations: [Range<Int>] = []
        for atom in tree { atom.write(at: bytes.count, into: &bytes, locations: &locations) }
        // The ilst item for key 2 is a location too; find it by its payload.
        locations += ilstItem(holding: "+48.8583+002.2945+035.000/", in: bytes)
        return (bytes, locations)
    }

    /// A QuickTime `keys` payload naming `mdta` keys 1, 2, … in order.
    public static func quickTimeKeys(_ names: [String]) -> [UInt8] {
        [0, 0, 0, 0] + be32(UInt32(names.count)) + names.flatMap { be32(UInt32(8 + $0.utf8.count)) + Array("mdta\($0)".utf8) }
    }

    /// An `ilst` item for key `index` holding UTF-8 text.
    public static func ilstItem(_ index: UInt32, _ text: String) -> Atom {
        .node(be32(index), prefix: [], [.leaf("data", [0, 0, 0, 1, 0, 0, 0, 0] + Array(text.utf8))])
    }

    /// The byte range of the `ilst` item whose data atom holds `text`.
    static func ilstItem(holding text: String, in bytes: [UInt8]) -> [Range<Int>] {
        guard let at = bytes.firstRange(of: Array(text.utf8))?.lowerBound else { return [] }
        let itemStart = at - 16 - 8 // data header + version/flags/locale, item header
        return [itemStart..<itemStart + 8 + 16 + text.utf8.count]
    }

    /// A MOV with location below the top, where exiftool and cameras put
    /// it: `XMP_` in moov/udta and moov/trak/udta; a QuickTime meta with
    /// location keys in moov/trak; an ISO meta with a `©xyz` item in
    /// moov/trak/udta/meta; an XMP `uuid` atom at the top level.
    public static func movWithLocationAtDepth() -> (bytes: [UInt8], locations: [Range<Int>]) {
        let xmp = Array("<x:xmpmeta><rdf:Description \(xmpLocation)/></x:xmpmeta>".utf8)
        let xmpUUID: [UInt8] = [0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC]
        let keys = quickTimeKeys(["com.apple.quicktime.make", "com.apple.quicktime.location.ISO6709", "com.apple.quicktime.location.name"])
        let xyzItem: [UInt8] = be32(UInt32(16 + iso6709.utf8.count)) + Array("data".utf8) + [0, 0, 0, 1, 0, 0, 0, 0] + Array(iso6709.utf8)
        let tree: [Atom] = [
            .node("moov", [
                .leaf("mvhd", [UInt8](repeating: 0x11, count: 100)),
                .node("trak", [
                    .leaf("tkhd", [UInt8](repeating: 0x22, count: 84)),
                    .node("meta", [
                        .leaf("hdlr", [0, 0, 0, 0] + Array("mhlrmdta".utf8) + [UInt8](repeating: 0, count: 13)),
                        .leaf("keys", keys),
                        .node("ilst", [ilstItem(1, "Apple"), ilstItem(2, "+48.8583+002.2945+035.000/"), ilstItem(3, "Eiffel Tower")]),
                    ]),
                    .node("udta", [
                        .leaf("XMP_", xmp, location: true),
                        .node("meta", prefix: [0, 0, 0, 0], [
                            .leaf("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("mdirappl".utf8) + [UInt8](repeating: 0, count: 9)),
                            .node("ilst", [.leaf([0xA9] + Array("xyz".utf8), xyzItem, location: true)]),
                        ]),
                    ]),
                ]),
                .node("udta", [
                    .leaf([0xA9] + Array("nam".utf8), be16(5) + be16(0x55C4) + Array("Party".utf8)),
                    .leaf("XMP_", xmp, location: true),
                ]),
            ]),
            .leaf("uuid", xmpUUID + xmp, location: true),
            .leaf("mdat", mdatPayload),
        ]
        var bytes = ftyp("qt  ", ["qt  "])
        var locations: [Range<Int>] = []
        for atom in tree { atom.write(at: bytes.count, into: &bytes, locations: &locations) }
        locations += ilstItem(holding: "+48.8583+002.2945+035.000/", in: bytes) + ilstItem(holding: "Eiffel Tower", in: bytes)
        return (bytes, locations)
    }

    // MARK: - Audio and video headers

    // MARK: - Matroska

    /// An EBML element: its ID as the spec writes it, a 1-, 2- or 8-byte size,
    /// the payload.
    public static func ebmlElement(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let idBytes = be32(id).drop { $0 == 0 }
        let size: [UInt8] = switch payload.count {
        case ..<127: [0x80 | UInt8(payload.count)]
        case ..<16383: [0x40 | UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: [0x01] + be64(UInt64(payload.count)).dropFirst()
        }
        return idBytes + size + payload
    }

    /// An element whose size says "unknown", as live muxers write Segments
    /// and Clusters before they know how long they will be.
    public static func ebmlUnknownSize(_ id: UInt32, _ payload: [UInt8]) -> [UInt8] {
        be32(id).drop { $0 == 0 } + [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF] + payload
    }

    public static func simpleTag(_ name: String, _ value: String, nested: [[UInt8]] = []) -> [UInt8] {
        ebmlElement(0x67C8, ebmlElement(0x45A3, Array(name.utf8)) + ebmlElement(0x4487, Array(value.utf8)) + nested.joined())
    }

    /// A Cluster's Timestamp and two SimpleBlocks on track 1.
    public static let clusterBody: [UInt8] = ebmlElement(0xE7, [0x00])
        + ebmlElement(0xA3, [0x81, 0x00, 0x00, 0x80] + [UInt8](repeating: 0xFC, count: 40))
        + ebmlElement(0xA3, [0x81, 0x00, 0x14, 0x80] + [UInt8](repeating: 0xFC, count: 40))

    /// Info and Tracks (one Opus track) the way Chrome writes them.
    public static let matroskaInfoAndTracks: [UInt8] =
        ebmlElement(0x1549_A966, ebmlElement(0x2A_D7B1, [0x0F, 0x42, 0x40]) + ebmlElement(0x4D80, Array("Chrome".utf8))
            + ebmlElement(0x5741, Array("Chrome".utf8)))
        + ebmlElement(0x1654_AE6B, ebmlElement(0xAE, ebmlElement(0xD7, [1]) + ebmlElement(0x73C5, [1]) + ebmlElement(0x83, [2])
            + ebmlElement(0x86, Array("A_OPUS".utf8)) + ebmlElement(0xE1, ebmlElement(0xB5, [0x47, 0x3B, 0x80, 0x00]) + ebmlElement(0x9F, [1]))))

    /// An EBML header with the given DocType, then what Chrome's
    /// MediaRecorder writes: a Segment of unknown size holding Info, Tracks
    /// and two Clusters of unknown size (`after` follows the Clusters).
    public static func ebml(docType: String, after: [UInt8] = []) -> [UInt8] {
        let clusters = ebmlUnknownSize(0x1F43_B675, clusterBody) + ebmlUnknownSize(0x1F43_B675, clusterBody)
        return ebmlHeader(docType: docType) + ebmlUnknownSize(0x1853_8067, matroskaInfoAndTracks + clusters + after)
    }

    public static func ebmlHeader(docType: String) -> [UInt8] {
        let doc = Array(docType.utf8)
        let children: [UInt8] = [0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01, 0x42, 0xF2, 0x81, 0x04, 0x42, 0xF3, 0x81, 0x08]
            + [0x42, 0x82, 0x80 | UInt8(doc.count)] + doc + [0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02]
        return [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(children.count)] + children
    }

    public static let webm = ebml(docType: "webm")

    /// The place a WebM's tags name, ISO 6709 as ffmpeg writes it.
    public static let webmLocation = "+48.8577+002.2950/"

    /// A WebM as ffmpeg writes it (Segment and Cluster of known size) whose
    /// Tags (guarded by a CRC-32, as mkvmerge writes them) hold a title, a
    /// LOCATION, and an ARTIST with a nested GPS_LATITUDE; plus an
    /// Attachments element with a picture. `locations` are the byte ranges
    /// that must become Void elements.
    public static func webmWithLocation() -> (bytes: [UInt8], locations: [Range<Int>]) {
        let location = simpleTag("LOCATION", webmLocation)
        let latitude = simpleTag("gps_latitude", "48.8577")
        let tag = ebmlElement(0x7373, ebmlElement(0x63C0, []) + simpleTag("TITLE", "Party") + location
            + simpleTag("ARTIST", "Ann", nested: [latitude]))
        let tags = ebmlElement(0x1254_C367, ebmlElement(0xBF, [0xDE, 0xAD, 0xBE, 0xEF]) + tag)
        let picture = ebmlElement(0x61A7, ebmlElement(0x466E, Array("cover.jpg".utf8)) + ebmlElement(0x465C, jpegWithLocation()))
        let attachments = ebmlElement(0x1941_A469, picture)
        let body = matroskaInfoAndTracks + tags + ebmlElement(0x1F43_B675, clusterBody) + attachments
        let bytes = ebmlHeader(docType: "webm") + ebmlElement(0x1853_8067, body)
        let locations = [location, latitude, [0xBF, 0x84, 0xDE, 0xAD, 0xBE, 0xEF], attachments].map { needle in
            bytes.firstRange(of: needle)!
        }
        return (bytes, locations)
    }

    public static func ogg(firstPacket: [UInt8]) -> [UInt8] {
        Array("OggS".utf8) + [0, 0x02] + [UInt8](repeating: 0, count: 8) + le32(0x1234) + le32(0) + le32(0)
            + [1, UInt8(firstPacket.count)] + firstPacket
    }

    public static let oggOpus = ogg(firstPacket: Array("OpusHead".utf8) + [1, 1, 0x38, 0x01, 0x80, 0xBB, 0, 0, 0, 0, 0])
    public static let oggVorbis = ogg(firstPacket: [0x01] + Array("vorbis".utf8) + [UInt8](repeating: 0, count: 23))

    public static let wav: [UInt8] = {
        let samples = [UInt8](repeating: 0x80, count: 64)
        let format: [UInt8] = le16(1) + le16(1) + le32(8000) + le32(8000) + le16(1) + le16(8)
        let body = Array("WAVE".utf8) + Array("fmt ".utf8) + le32(16) + format + Array("data".utf8) + le32(64) + samples
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }()

    /// Two MPEG-1 Layer III frames, 128 kbit/s, 44.1 kHz: 417 bytes each.
    public static let mp3Frames: [UInt8] = {
        let frame = [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0x55, count: 413)
        return frame + frame
    }()

    public static let id3Tag: [UInt8] = Array("ID3".utf8) + [4, 0, 0, 0, 0, 0, 12] + [0x54, 0x49, 0x54, 0x32, 0, 0, 0, 2, 0, 0, 3, 0x48]

    /// Two ADTS AAC-LC frames of 20 bytes (44.1 kHz, stereo, no CRC).
    public static let adts: [UInt8] = {
        let frame: [UInt8] = [0xFF, 0xF1, 0x50, 0x80, 0x02, 0x9F, 0xFC] + [UInt8](repeating: 0x21, count: 13)
        return frame + frame
    }()

    public static let m4a = ftyp("M4A ", ["M4A ", "mp42", "isom"]) + be32(8) + Array("free".utf8)
    public static let mov = ftyp("qt  ", ["qt  "]) + be32(8) + Array("wide".utf8)
    public static let genericMP4 = ftyp("isom", ["isom", "iso2", "avc1", "mp41"]) + be32(8) + Array("free".utf8)
    public static let heic = ftyp("heic", ["mif1", "heic"]) + be32(8) + Array("meta".utf8)

    // MARK: - Byte helpers

    public static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    public static func be32(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    public static func be64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    public static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    public static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
}

extension Array where Element == UInt8 {
    public func contains(_ needle: [UInt8]) -> Bool { firstRange(of: needle) != nil }
    public func contains(_ needle: String) -> Bool { firstRange(of: Array(needle.utf8)) != nil }
}

import KithTestSupport
import Foundation
@testable import KithMedia
import Testing

@Suite("Location stripping")
struct MetadataStripperTests {
    // MARK: JPEG

    @Test("a JPEG loses its GPS, XMP, IPTC and thumbnail, keeps Orientation 6 and its image data byte for byte")
    func jpeg() throws {
        let original = Fixture.jpegWithLocation()
        #expect(original.contains(Fixture.latitudeRationals))
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }

        let report = try MetadataStripper.strip(fileAt: path, type: .jpeg)
        let stripped = try read(path)

        #expect(report.method == .rewritten)
        #expect(report.removedLocation)
        #expect(report.orientation == 6)
        for needle in [Fixture.latitudeRationals, Fixture.longitudeRationals, Fixture.thumbnail, Fixture.cameraMake,
                       Array(Fixture.xmpLocation.utf8), Array("Paris".utf8), Array("tower".utf8), [0x88, 0x25]] {
            #expect(!stripped.contains(needle), "still holds \(needle)")
        }
        let before = try JPEGWalk(original), after = try JPEGWalk(stripped)
        #expect(after.imageSegments == before.imageSegments)
        #expect(after.imageSegments.count >= 7) // DQT×2, SOF0, DHT×4, SOS, scan data
        #expect(after.appSegments.map(\.marker) == [0xE1, 0xE0, 0xE2]) // Exif, JFIF, ICC
        #expect(after.appSegments.filter { $0.marker != 0xE1 } == before.appSegments.filter { [0xE0, 0xE2].contains($0.marker) })
        let exif = try #require(after.appSegments.first { $0.marker == 0xE1 })
        #expect(tiffEntries(Array(exif.bytes.dropFirst(4 + 6))) == [TIFFEntry(tag: 0x0112, type: 3, count: 1, value: 6)])
        #expect(after.endsWithEOI)
    }

    @Test("a little-endian Exif keeps its byte order; Exif without orientation is dropped whole")
    func jpegExifVariants() throws {
        var little: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 2, 0]
        little += [0x12, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0] // Orientation 8
        little += [0x25, 0x88, 4, 0, 1, 0, 0, 0, 38, 0, 0, 0] // GPS IFD at 38
        little += [0, 0, 0, 0]
        little += [1, 0, 2, 0, 2, 0, 0, 0, 0x4E, 0, 0, 0, 0, 0, 0, 0] // GPS IFD: LatitudeRef N
        let withLittle = [0xFF, 0xD8] + Fixture.jpegSegment(0xE1, Array("Exif\0\0".utf8) + little) + Fixture.canvasJPEG.dropFirst(2)
        let (strippedLittle, littleReport) = try MetadataStripper.strip(withLittle, container: .jpeg)
        #expect(littleReport.orientation == 8 && littleReport.removedLocation)
        let exif = try #require(try JPEGWalk(strippedLittle).appSegments.first { $0.marker == 0xE1 })
        #expect(exif.bytes.dropFirst(4 + 6).starts(with: [0x49, 0x49, 0x2A, 0x00]))
        #expect(tiffEntries(Array(exif.bytes.dropFirst(10))) == [TIFFEntry(tag: 0x0112, type: 3, count: 1, value: 8)])

        let (strippedNone, noneReport) = try MetadataStripper.strip(Fixture.jpegWithLocation(orientation: nil), container: .jpeg)
        #expect(noneReport.orientation == nil && noneReport.removedLocation)
        #expect(try JPEGWalk(strippedNone).appSegments.map(\.marker) == [0xE0, 0xE2])
    }

    @Test("a clean JPEG is left as it is, file untouched")
    func cleanJPEG() throws {
        let (path, cleanup) = try temporaryFile(Fixture.canvasJPEG)
        defer { cleanup() }
        let report = try MetadataStripper.strip(fileAt: path, type: .jpeg)
        #expect(report == StripReport(method: .untouched))
        #expect(try read(path) == Fixture.canvasJPEG)
    }

    @Test("a motion photo's trailing video after EOI is dropped")
    func jpegTrailer() throws {
        let trailer = Fixture.mp4WithLocation().bytes
        let (stripped, report) = try MetadataStripper.strip(Fixture.canvasJPEG + trailer, container: .jpeg)
        #expect(stripped == Fixture.canvasJPEG)
        #expect(report.removed.count == 1)
    }

    @Test("a JPEG of metadata alone, with no image data to draw, is refused rather than stored as an empty photo")
    func jpegWithoutScan() throws {
        let exif = Fixture.jpegSegment(0xE1, Array("Exif\0\0".utf8) + Fixture.exifTIFF(orientation: 6))
        for bytes in [[0xFF, 0xD8] + exif, [0xFF, 0xD8] + exif + [0xFF, 0xD9]] {
            #expect(throws: MediaFileError.self) { try MetadataStripper.strip(bytes, container: .jpeg) }
        }
    }

    // MARK: PNG

    @Test("a PNG loses its text, time and location chunks, keeps Orientation 6 in eXIf and valid CRCs")
    func png() throws {
        let original = Fixture.pngWithLocation()
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }
        let report = try MetadataStripper.strip(fileAt: path, type: .png)
        let stripped = try read(path)

        #expect(report.removedLocation && report.orientation == 6 && report.method == .rewritten)
        let chunks = try pngChunks(stripped)
        let before = try pngChunks(Fixture.canvasPNG)
        #expect(chunks.map(\.type) == ["IHDR", "eXIf"] + before.dropFirst().map(\.type))
        #expect(chunks.allSatisfy { $0.crcValid })
        #expect(chunks.filter { $0.type != "eXIf" } == before)
        #expect(tiffEntries(chunks[1].data) == [TIFFEntry(tag: 0x0112, type: 3, count: 1, value: 6)])
        for needle in [Fixture.latitudeRationals, Array(Fixture.xmpLocation.utf8), Array("tower".utf8), Fixture.thumbnail] {
            #expect(!stripped.contains(needle))
        }
        #expect(MediaSniffer.identify(stripped) == .allowed(.png))
    }

    // MARK: WebP

    @Test("a WebP loses XMP, keeps Orientation 6 in a rewritten EXIF, flags and RIFF size in step")
    func webp() throws {
        let original = Fixture.webpWithLocation()
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }
        let report = try MetadataStripper.strip(fileAt: path, type: .webp)
        let stripped = try read(path)

        #expect(report.removedLocation && report.orientation == 6)
        let walk = try webpChunks(stripped)
        #expect(walk.riffSize == stripped.count - 8)
        #expect(walk.chunks.map(\.type) == ["VP8X", "ICCP", "VP8 ", "EXIF"])
        let flags = walk.chunks[0].payload[0]
        #expect(flags & 0x04 == 0, "XMP flag cleared")
        #expect(flags & 0x08 != 0, "EXIF flag kept for the orientation")
        #expect(flags & 0x20 != 0, "ICC flag untouched")
        let originalChunks = try webpChunks(original).chunks
        #expect(walk.chunks[1...2].elementsEqual(originalChunks[1...2]) { $0.type == $1.type && $0.payload == $1.payload })
        #expect(tiffEntries(walk.chunks[3].payload) == [TIFFEntry(tag: 0x0112, type: 3, count: 1, value: 6)])
        for needle in [Fixture.latitudeRationals, Array(Fixture.xmpLocation.utf8), Fixture.cameraMake] {
            #expect(!stripped.contains(needle))
        }
    }

    @Test("a WebP whose EXIF has no orientation loses the chunk and its flag")
    func webpWithoutOrientation() throws {
        var bytes = Fixture.canvasWebP + Array("EXIF".utf8) + Fixture.le32(UInt32(Fixture.exifTIFF(orientation: nil).count))
            + Fixture.exifTIFF(orientation: nil)
        bytes[20] |= 0x08
        bytes.replaceSubrange(4..<8, with: Fixture.le32(UInt32(bytes.count - 8)))
        let (stripped, _) = try MetadataStripper.strip(bytes, container: .webp)
        #expect(stripped == Fixture.canvasWebP)
    }

    // MARK: GIF

    @Test("a GIF loses its XMP, comment, private application extension and trailing bytes; keeps its loop, colour profile and frames")
    func gif() throws {
        let original = Fixture.gifWithLocation()
        #expect(original.contains(Fixture.xmpLocation))
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }
        let report = try MetadataStripper.strip(fileAt: path, type: .gif)
        let stripped = try read(path)

        #expect(report.method == .rewritten)
        #expect(report.removed.count == 4, "\(report)")
        let before = try GIFWalk(original), after = try GIFWalk(stripped)
        #expect(after.screen == before.screen)
        #expect(after.blocks.map(\.label) == ["application NETSCAPE2.0", "application ICCRGBG1012", "extension F9", "image"])
        #expect(after.blocks == before.blocks.filter { after.blocks.map(\.label).contains($0.label) })
        #expect(after.bytesAfterTrailer == 0)
        for needle in [Fixture.xmpLocation, "XMP", "tower", "Paris", "KITHDATA"] {
            #expect(!stripped.contains(needle), "still holds \(needle)")
        }
        #expect(MediaSniffer.identify(stripped) == .allowed(.gif))
        #expect(try MetadataStripper.strip(fileAt: path, type: .gif) == StripReport(method: .untouched))
    }

    @Test("a GIF cut between blocks keeps what it has; one cut inside a block or with a stray byte is refused")
    func gifDamage() throws {
        let (cut, cutReport) = try MetadataStripper.strip(Array(Fixture.gif.dropLast()), container: .gif)
        #expect(cut == Array(Fixture.gif.dropLast()) && cutReport == StripReport(method: .untouched))
        #expect(throws: MediaFileError.self) { try MetadataStripper.strip(Array(Fixture.gif.dropLast(3)), container: .gif) }
        #expect(throws: MediaFileError.self) { try MetadataStripper.strip(Array(Fixture.gif.dropLast()) + [0x42, 0x3B], container: .gif) }
        #expect(throws: MediaFileError.self) { try MetadataStripper.strip(Array(Fixture.gif.prefix(15)), container: .gif) }
    }

    // MARK: MP4 / MOV

    @Test("an MP4's ©xyz, loci and iPhone location item become free atoms; size and every other byte unchanged")
    func mp4() throws {
        let (original, locations) = Fixture.mp4WithLocation()
        #expect(locations.count == 3)
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }

        let report = try MetadataStripper.strip(fileAt: path, type: .mp4)
        let stripped = try read(path)

        #expect(report.method == .patchedInPlace && report.removedLocation)
        #expect(report.removed.count == 3)
        #expect(stripped.count == original.count)
        #expect(!stripped.contains([0xA9, 0x78, 0x79, 0x7A]))
        #expect(!stripped.contains("loci"))
        #expect(!stripped.contains(Fixture.iso6709) && !stripped.contains("+48.8583") && !stripped.contains("Paris"))
        expectFreeAtoms(at: locations, in: stripped, from: original)
        #expect(stripped.contains("Apple") && stripped.contains("Party"), "other metadata stays")
        #expect(stripped.suffix(Fixture.mdatPayload.count).elementsEqual(Fixture.mdatPayload))
        // Stripping again finds nothing more.
        #expect(try MetadataStripper.strip(fileAt: path, type: .mp4) == StripReport(method: .untouched))
    }

    @Test("a MOV's XMP_ atoms, XMP uuid and location keys and items in trak meta and trak udta meta become free atoms")
    func movLocationAtDepth() throws {
        let (original, locations) = Fixture.movWithLocationAtDepth()
        #expect(locations.count == 6)
        let (path, cleanup) = try temporaryFile(original)
        defer { cleanup() }

        let report = try MetadataStripper.strip(fileAt: path, type: .quickTime)
        let stripped = try read(path)

        #expect(report.method == .patchedInPlace && report.removedLocation)
        #expect(report.removed.count == 6, "\(report)")
        #expect(stripped.count == original.count)
        for needle in [Fixture.xmpLocation, "XMP_", "+48.8583", "Eiffel", Fixture.iso6709] {
            #expect(!stripped.contains(needle), "still holds \(needle)")
        }
        expectFreeAtoms(at: locations, in: stripped, from: original)
        #expect(stripped.contains("Apple") && stripped.contains("Party") && stripped.contains("location.name"), "other metadata and the key names stay")
        #expect(try MetadataStripper.strip(fileAt: path, type: .quickTime) == StripReport(method: .untouched))
    }

    /// Only the atoms in `locations` changed, each to a `free` atom of the
    /// same size with a zeroed payload.
    private func expectFreeAtoms(at locations: [Range<Int>], in stripped: [UInt8], from original: [UInt8],
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        for index in original.indices where original[index] != stripped[index] {
            #expect(locations.contains { $0.contains(index) }, "byte \(index) changed outside a location atom", sourceLocation: sourceLocation)
        }
        for range in locations {
            #expect(Array(stripped[range.lowerBound + 4..<range.lowerBound + 8]) == Array("free".utf8), sourceLocation: sourceLocation)
            #expect(stripped[range.lowerBound + 8..<range.upperBound].allSatisfy { $0 == 0 }, sourceLocation: sourceLocation)
            #expect(stripped[range.lowerBound..<range.lowerBound + 4] == original[range.lowerBound..<range.lowerBound + 4],
                    sourceLocation: sourceLocation)
        }
    }

    @Test("a MOV with an ISO-style meta box and a size-0 last atom is walked too")
    func movVariants() throws {
        let xyz: [UInt8] = [0xA9, 0x78, 0x79, 0x7A]
        var bytes = Fixture.ftyp("qt  ", ["qt  "])
        let payload = Fixture.be16(UInt16(Fixture.iso6709.utf8.count)) + [0, 0] + Array(Fixture.iso6709.utf8)
        let location = Fixture.be32(UInt32(8 + payload.count)) + xyz + payload
        let hdlr = Fixture.be32(33) + Array("hdlr".utf8) + [UInt8](repeating: 0, count: 25)
        let meta = Fixture.be32(UInt32(12 + hdlr.count + location.count)) + Array("meta".utf8) + [0, 0, 0, 0] + hdlr + location
        bytes += Fixture.be32(UInt32(8 + meta.count)) + Array("moov".utf8) + meta
        bytes += Fixture.be32(0) + Array("mdat".utf8) + Fixture.mdatPayload
        let (path, cleanup) = try temporaryFile(bytes)
        defer { cleanup() }
        let report = try MetadataStripper.strip(fileAt: path, type: .quickTime)
        let stripped = try read(path)
        #expect(report.removedLocation && stripped.count == bytes.count)
        #expect(!stripped.contains(xyz) && !stripped.contains(Fixture.iso6709))
    }

    @Test("an MP4 whose atom sizes lie is refused and left as it was")
    func malformedMP4() throws {
        var bytes = Fixture.mp4WithLocation().bytes
        let moov = try #require(bytes.firstRange(of: Array("moov".utf8))).lowerBound - 4
        bytes.replaceSubrange(moov..<moov + 4, with: Fixture.be32(0x7FFF_FFFF))
        let (path, cleanup) = try temporaryFile(bytes)
        defer { cleanup() }
        #expect(throws: MediaFileError.self) { try MetadataStripper.strip(fileAt: path, type: .mp4) }
        #expect(try read(path) == bytes)
    }

    @Test("a plain GIF, WAV, MP3, Ogg, AAC and a MediaRecorder-style WebM have nothing to strip")
    func nothingToDo() throws {
        for (bytes, type) in [(Fixture.gif, MediaType.gif), (Fixture.wav, .wav), (Fixture.mp3Frames, .mp3),
                              (Fixture.oggOpus, .ogg), (Fixture.webm, .webmAudio), (Fixture.adts, .aac)] {
            let (path, cleanup) = try temporaryFile(bytes)
            defer { cleanup() }
            #expect(try MetadataStripper.strip(fileAt: path, type: type) == StripReport(method: .untouched))
            #expect(try read(path) == bytes)
        }
    }

    @Test("truncated and damaged photos and videos make the stripper throw or succeed, never crash")
    func garbage() throws {
        var random = SplitMix64(seed: 0xBAD)
        let samples: [([UInt8], MediaType)] = [
            (Fixture.jpegWithLocation(), .jpeg), (Fixture.pngWithLocation(), .png),
            (Fixture.webpWithLocation(), .webp), (Fixture.mp4WithLocation().bytes, .mp4),
            (Fixture.gifWithLocation(), .gif), (Fixture.movWithLocationAtDepth().bytes, .quickTime),
            (Fixture.webmWithLocation().bytes, .webmVideo), (Fixture.webm, .webmAudio),
        ]
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for round in 0..<600 {
            var (bytes, type) = samples[round % samples.count]
            for _ in 0..<(random.next() % 4) {
                bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            if type.kind != .photo {
                let path = directory + "/\(round).\(type.fileExtension)"
                _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
                _ = try? MetadataStripper.strip(fileAt: path, type: type)
            } else {
                _ = try? MetadataStripper.strip(bytes, container: type.container)
            }
        }
    }

    @Test("Chromium decodes the stripped photos and turns the JPEG upright",
          .enabled(if: Tools.chromium, "needs chromium; `make test` installs it"))
    func decodesInABrowser() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let photos: [(String, [UInt8], MediaType.Container)] = [
            ("photo.jpg", Fixture.jpegWithLocation(), .jpeg), ("photo.png", Fixture.pngWithLocation(), .png),
            ("photo.webp", Fixture.webpWithLocation(), .webp),
        ]
        for (name, bytes, container) in photos {
            let (stripped, _) = try MetadataStripper.strip(bytes, container: container)
            _ = FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: Data(stripped))
        }
        let page = """
            <html><body><pre id="out"></pre><script>
            const names = ["photo.jpg", "photo.png", "photo.webp"], results = {};
            for (const name of names) {
              const image = new Image();
              image.onload = () => { results[name] = image.naturalWidth + "x" + image.naturalHeight; done(); };
              image.onerror = () => { results[name] = "error"; done(); };
              image.src = name;
            }
            function done() {
              if (Object.keys(results).length === names.length)
                document.getElementById("out").textContent = names.map(n => n + "=" + results[n]).join(" ");
            }
            </script></body></html>
            """
        _ = FileManager.default.createFile(atPath: "\(directory)/index.html", contents: Data(page.utf8))
        let output = try run(Tools.path("chromium")!, ["--headless=new", "--no-sandbox", "--disable-gpu",
                                                     "--virtual-time-budget=5000", "--dump-dom", "file://\(directory)/index.html"])
        print("Chromium decoded:", output.split(separator: "\n").filter { $0.contains("photo.") })
        #expect(output.contains("photo.jpg=8x16"), "Orientation 6 turns the 16×8 JPEG upright: \(output)")
        #expect(output.contains("photo.png=8x16"), "Chromium honours eXIf orientation in PNG too: \(output)")
        #expect(output.contains("photo.webp=") && !output.contains("photo.webp=error"), "\(output)")
    }
}

// MARK: - Independent structure walkers

struct JPEGWalk {
    struct Segment: Equatable { var marker: UInt8; var bytes: [UInt8] }
    /// Everything that is not APPn or COM, scan data included (marker 0).
    var imageSegments: [Segment] = []
    var appSegments: [Segment] = []
    var endsWithEOI = false

    init(_ bytes: [UInt8]) throws {
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw WalkError.bad("SOI") }
        var position = 2
        while position + 1 < bytes.count {
            guard bytes[position] == 0xFF else { throw WalkError.bad("marker at \(position)") }
            let marker = bytes[position + 1]
            if marker == 0xD9 { endsWithEOI = position + 2 == bytes.count; return }
            let length = Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let segment = Segment(marker: marker, bytes: Array(bytes[position..<position + 2 + length]))
            if (0xE0...0xEF).contains(marker) || marker == 0xFE { appSegments.append(segment) } else { imageSegments.append(segment) }
            position += 2 + length
            if marker == 0xDA {
                var end = position
                while !(bytes[end] == 0xFF && bytes[end + 1] != 0 && !(0xD0...0xD7).contains(bytes[end + 1])) { end += 1 }
                imageSegments.append(Segment(marker: 0, bytes: Array(bytes[position..<end])))
                position = end
            }
        }
        throw WalkError.bad("no EOI")
    }
}

enum WalkError: Error { case bad(String) }

struct GIFWalk {
    struct Block: Equatable { var label: String; var bytes: [UInt8] }
    /// Header, logical screen descriptor and global colour table.
    var screen: [UInt8]
    var blocks: [Block] = []
    var bytesAfterTrailer: Int?

    init(_ bytes: [UInt8]) throws {
        func colourTable(_ flags: UInt8) -> Int { flags & 0x80 == 0 ? 0 : 3 * (1 << (Int(flags & 7) + 1)) }
        var position = 13 + colourTable(bytes[10])
        screen = Array(bytes[0..<position])
        func skipSubBlocks() throws {
            while true {
                guard position < bytes.count else { throw WalkError.bad("sub-blocks past end") }
                let length = Int(bytes[position])
                position += 1 + length
                if length == 0 { return }
            }
        }
        while position < bytes.count {
            let start = position
            let label: String
            switch bytes[position] {
            case 0x3B:
                bytesAfterTrailer = bytes.count - position - 1
                return
            case 0x2C:
                position += 10 + colourTable(bytes[position + 9]) + 1
                try skipSubBlocks()
                label = "image"
            case 0x21:
                let kind = bytes[position + 1]
                position += 2
                try skipSubBlocks()
                label = kind == 0xFF ? "application " + String(decoding: bytes[start + 3..<start + 14], as: UTF8.self)
                    : kind == 0xFE ? "comment" : "extension " + String(kind, radix: 16, uppercase: true)
            default:
                throw WalkError.bad("block at \(position)")
            }
            blocks.append(Block(label: label, bytes: Array(bytes[start..<position])))
        }
    }
}

struct PNGChunk: Equatable { var type: String; var data: [UInt8]; var crcValid: Bool }

func pngChunks(_ bytes: [UInt8]) throws -> [PNGChunk] {
    var chunks: [PNGChunk] = []
    var position = 8
    while position < bytes.count {
        let length = Int(Fixture.be32Value(bytes, position))
        guard position + 12 + length <= bytes.count else { throw WalkError.bad("chunk past end") }
        let body = Array(bytes[position + 4..<position + 8 + length])
        let crc = Fixture.be32Value(bytes, position + 8 + length)
        chunks.append(PNGChunk(type: String(decoding: body.prefix(4), as: UTF8.self), data: Array(body.dropFirst(4)),
                               crcValid: ZipWriter.crc32(body) == crc))
        position += 12 + length
    }
    guard chunks.last?.type == "IEND", position == bytes.count else { throw WalkError.bad("no IEND at the end") }
    return chunks
}

func webpChunks(_ bytes: [UInt8]) throws -> (riffSize: Int, chunks: [(type: String, payload: [UInt8])]) {
    guard bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) else { throw WalkError.bad("RIFF") }
    let riffSize = Int(Fixture.le32Value(bytes, 4))
    var chunks: [(type: String, payload: [UInt8])] = []
    var position = 12
    while position < 8 + riffSize {
        let size = Int(Fixture.le32Value(bytes, position + 4))
        guard position + 8 + size <= bytes.count else { throw WalkError.bad("chunk past end") }
        chunks.append((String(decoding: bytes[position..<position + 4], as: UTF8.self), Array(bytes[position + 8..<position + 8 + size])))
        position += 8 + size + size % 2
    }
    guard position == 8 + riffSize else { throw WalkError.bad("RIFF size disagrees with chunks") }
    return (riffSize, chunks)
}

struct TIFFEntry: Equatable { var tag: UInt16; var type: UInt16; var count: UInt32; var value: UInt16 }

/// IFD0's entries, or nil if there is a next IFD (a thumbnail) or it is unreadable.
func tiffEntries(_ tiff: [UInt8]) -> [TIFFEntry]? {
    guard tiff.count >= 8 else { return nil }
    let little = tiff[0] == 0x49
    func u16(_ at: Int) -> UInt16 { little ? UInt16(tiff[at]) | UInt16(tiff[at + 1]) << 8 : UInt16(tiff[at]) << 8 | UInt16(tiff[at + 1]) }
    func u32(_ at: Int) -> UInt32 { little ? Fixture.le32Value(tiff, at) : Fixture.be32Value(tiff, at) }
    let ifd = Int(u32(4))
    let count = Int(u16(ifd))
    guard ifd + 2 + count * 12 + 4 <= tiff.count, u32(ifd + 2 + count * 12) == 0 else { return nil }
    return (0..<count).map { index in
        let entry = ifd + 2 + index * 12
        return TIFFEntry(tag: u16(entry), type: u16(entry + 2), count: u32(entry + 4), value: u16(entry + 8))
    }
}

extension Fixture {
    static func be32Value(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func le32Value(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
}

// MARK: - Files and processes

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "kith-media-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func temporaryFile(_ bytes: [UInt8]) throws -> (String, () -> Void) {
    let directory = try temporaryDirectory()
    let path = directory + "/upload"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw WalkError.bad("create \(path)") }
    return (path, { try? FileManager.default.removeItem(atPath: directory) })
}

func read(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Runs a tool and returns its standard output; throws if it exits non-zero.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> String {
    let result = try runProgram(executable, arguments)
    guard result.status == 0 else { throw WalkError.bad("\(executable) exited \(result.status): \(result.output) \(result.errors)") }
    return result.output
}

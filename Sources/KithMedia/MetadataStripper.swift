#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `MetadataStripper` did to a file, for tests and logs.
public struct StripReport: Sendable, Hashable, CustomStringConvertible {
    public enum Method: String, Sendable {
        /// Nothing to remove; the file was not opened for writing.
        case untouched
        /// A new file was written beside the old one, fsynced and renamed over it.
        case rewritten
        /// Bytes were overwritten where they lay (same size, same inode), then fsynced.
        case patchedInPlace
    }

    public var method: Method
    /// One line per thing removed ("JPEG APP1 XMP (2345 bytes)", "MP4 ©xyz atom at 1234").
    public var removed: [String]
    /// The orientation that survived (2–8), if the photo had one.
    public var orientation: UInt16?
    /// Whether a known location field (Exif GPS IFD, an MP4/MOV location atom
    /// or QuickTime location key, a Matroska location tag) was among the
    /// things removed. XMP is removed whole without being read, so it does not
    /// count even when it held GPS.
    public var removedLocation: Bool

    public init(method: Method, removed: [String] = [], orientation: UInt16? = nil, removedLocation: Bool = false) {
        self.method = method
        self.removed = removed
        self.orientation = orientation
        self.removedLocation = removedLocation
    }

    public var description: String {
        removed.isEmpty ? "nothing removed" : "\(method.rawValue): " + removed.joined(separator: "; ")
    }
}

/// Removes where a photo or video was taken, keeping how it should be turned.
///
/// Photos (JPEG, PNG, GIF, WebP) are small enough (the caller caps them) to read
/// whole: the stripped copy is written beside the file, fsynced and renamed
/// over it (`.rewritten`; the inode changes). Videos and audio are patched in
/// place with positional writes, never read whole (`.patchedInPlace`; every
/// byte keeps its offset, so sample tables pointing into `mdat` stay right).
/// Either way the caller then moves the file into content-addressed storage
/// and fsyncs that directory.
///
/// Allow-lists rather than deny-lists where the format allows it: in a JPEG
/// only the segments needed to draw the picture survive, in a PNG only the
/// chunks that affect rendering, in a GIF only the blocks that draw or loop.
/// A structure that cannot be walked throws `MediaFileError.malformed`: if we
/// cannot read it we cannot vouch that the location is gone, so the upload
/// should be refused.
public enum MetadataStripper {
    public static func strip(fileAt path: String, type: MediaType) throws -> StripReport {
        switch type.container {
        case .jpeg, .png, .gif, .webp:
            let file = try FileDescriptor(path: path, flags: O_RDONLY)
            let original = try file.readAll()
            let mode = try file.mode()
            let (bytes, report) = try strip(original, container: type.container)
            if report.method == .rewritten { try replaceFile(at: path, with: bytes, mode: mode) }
            return report
        case .heif:
            let file = try FileDescriptor(path: path, flags: O_RDWR)
            let report = try HEIFLocationPatcher(file: file).run()
            if report.method == .patchedInPlace { try file.sync() }
            return report
        case .mp4, .quickTime, .webm:
            let file = try FileDescriptor(path: path, flags: O_RDWR)
            let report = type.container == .webm
                ? try MatroskaLocationPatcher(file: file).run()
                : try ISOLocationPatcher(file: file).run()
            if report.method == .patchedInPlace { try file.sync() }
            return report
        case .adts, .mpegAudio, .ogg, .wav:
            // No standard place for coordinates in these containers. An Ogg
            // Vorbis comment or an MP3 ID3 frame can still hold a place name
            // typed in by hand; they are not walked.
            return StripReport(method: .untouched)
        }
    }

    /// The in-memory form for photos: the stripped bytes and what was removed.
    /// `method` is `.rewritten` when the bytes differ from the input.
    public static func strip(_ bytes: [UInt8], container: MediaType.Container) throws -> ([UInt8], StripReport) {
        var report = StripReport(method: .untouched)
        let output: [UInt8]
        switch container {
        case .jpeg: output = try stripJPEG(bytes, into: &report)
        case .png: output = try stripPNG(bytes, into: &report)
        case .gif: output = try stripGIF(bytes, into: &report)
        case .webp: output = try stripWebP(bytes, into: &report)
        default: return (bytes, report)
        }
        if !report.removed.isEmpty { report.method = .rewritten }
        return (report.removed.isEmpty ? bytes : output, report)
    }

    // MARK: - JPEG

    private static let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    /// Walks every marker segment, including those between progressive scans.
    /// Kept verbatim: everything that is not APPn or COM (tables, frame and
    /// scan headers, entropy-coded data), APP0 JFIF/JFXX, APP2 ICC profiles,
    /// APP14 Adobe (it decides the colour transform). The first Exif APP1 is
    /// rewritten to Orientation only. Dropped: every other APPn (XMP, IPTC,
    /// MPF, maker blocks), comments, and bytes after EOI (a phone's "motion
    /// photo" appends a whole video there).
    private static func stripJPEG(_ bytes: [UInt8], into report: inout StripReport) throws -> [UInt8] {
        guard bytes.has([0xFF, 0xD8], at: 0) else { throw MediaFileError.malformed("JPEG without SOI") }
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(bytes.count)
        var position = 2
        var sawExif = false
        // A "JPEG" of metadata alone would be stored as a photo that shows
        // nothing once its metadata is gone: it must have a scan to draw.
        var sawScan = false
        while position < bytes.count {
            guard bytes[position] == 0xFF else { throw MediaFileError.malformed("JPEG marker expected at \(position)") }
            let segmentStart = position
            var markerAt = position + 1
            while markerAt < bytes.count, bytes[markerAt] == 0xFF { markerAt += 1 } // fill bytes
            guard let marker = bytes.u8(at: markerAt) else { throw MediaFileError.malformed("JPEG ends in a marker") }
            position = markerAt + 1
            if marker == 0xD9 {
                guard sawScan else { throw MediaFileError.malformed("JPEG without image data") }
                output += bytes[segmentStart..<position]
                if position < bytes.count { report.removed.append("JPEG data after EOI (\(bytes.count - position) bytes)") }
                return output
            }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                output += bytes[segmentStart..<position]
                continue
            }
            guard let length = bytes.u16be(at: position), length >= 2, position + Int(length) <= bytes.count else {
                throw MediaFileError.malformed("JPEG segment FF\(hex(marker)) runs past the end")
            }
            let payload = position + 2
            let end = position + Int(length)
            let body = Array(bytes[payload..<end])
            position = end

            switch marker {
            case 0xE0 where body.has("JFIF\0", at: 0) || body.has("JFXX\0", at: 0),
                 0xE2 where body.has("ICC_PROFILE\0", at: 0),
                 0xEE where body.has("Adobe", at: 0):
                output += bytes[segmentStart..<end]
            case 0xE1 where body.has(exifHeader, at: 0) && !sawExif:
                sawExif = true
                let summary = Exif.summary(ofTIFF: Array(body.dropFirst(6)))
                report.removed.append(Exif.describe(summary, in: "JPEG APP1"))
                if summary?.hasGPS == true { report.removedLocation = true }
                if let orientation = summary?.orientation {
                    let segment = exifHeader + Exif.orientationOnlyTIFF(orientation, littleEndian: summary!.littleEndian)
                    output += [0xFF, 0xE1]
                    output.appendBE16(UInt16(segment.count + 2))
                    output += segment
                    report.orientation = orientation
                }
            case 0xE0...0xEF, 0xFE:
                report.removed.append("JPEG \(segmentName(marker, body)) (\(length) bytes)")
            default:
                output += bytes[segmentStart..<end]
            }

            if marker == 0xDA {
                sawScan = true
                // Entropy-coded data runs to the next marker that is not a
                // stuffed 0xFF00 or a restart marker.
                var scan = position
                while scan < bytes.count {
                    if bytes[scan] == 0xFF, let next = bytes.u8(at: scan + 1),
                       next != 0x00, next != 0xFF, !(0xD0...0xD7).contains(next) { break }
                    scan += 1
                }
                output += bytes[position..<scan]
                position = scan
            }
        }
        // Truncated after the last scan: browsers draw what is there, and no
        // metadata can follow, so keep it as it is.
        guard sawScan else { throw MediaFileError.malformed("JPEG without image data") }
        return output
    }

    private static func segmentName(_ marker: UInt8, _ body: [UInt8]) -> String {
        if marker == 0xFE { return "comment" }
        if marker == 0xE1, body.has("http://ns.adobe.com/", at: 0) { return "APP1 XMP" }
        if marker == 0xE1, body.has(exifHeader, at: 0) { return "APP1 second Exif" }
        if marker == 0xED { return "APP13 Photoshop/IPTC" }
        return "APP\(marker - 0xE0)"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    // MARK: - PNG

    /// Ancillary chunks that change how the picture (or an APNG animation) is
    /// drawn. Every other ancillary chunk is dropped: text chunks (where XMP
    /// lives), tIME, eXIf (rewritten instead, below) and private chunks whose
    /// content we cannot vouch for (C2PA manifests can carry a location).
    /// Critical chunks are always kept; a decoder needs them.
    private static let pngRenderingChunks: Set<String> = [
        "cHRM", "cICP", "gAMA", "iCCP", "mDCV", "mDCv", "cLLI", "cLLi", "sBIT", "sRGB", "bKGD", "hIST",
        "tRNS", "pHYs", "sPLT", "acTL", "fcTL", "fdAT", "oFFs", "pCAL", "sCAL", "sTER",
    ]

    private static func stripPNG(_ bytes: [UInt8], into report: inout StripReport) throws -> [UInt8] {
        guard bytes.has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0) else {
            throw MediaFileError.malformed("PNG without signature")
        }
        var output = Array(bytes[0..<8])
        output.reserveCapacity(bytes.count)
        var position = 8
        while true {
            guard let length = bytes.u32be(at: position), length < 0x8000_0000,
                  let typeBytes = bytes.bytes(position + 4..<position + 8),
                  position + 12 + Int(length) <= bytes.count else {
                throw MediaFileError.malformed("PNG chunk at \(position) runs past the end")
            }
            let type = fourCCString(typeBytes)
            let end = position + 12 + Int(length)
            let isCritical = typeBytes[0] & 0x20 == 0
            if type == "eXIf" {
                let summary = Exif.summary(ofTIFF: Array(bytes[position + 8..<end - 4]))
                report.removed.append(Exif.describe(summary, in: "PNG eXIf"))
                if summary?.hasGPS == true { report.removedLocation = true }
                if let orientation = summary?.orientation {
                    let data = Exif.orientationOnlyTIFF(orientation, littleEndian: summary!.littleEndian)
                    output += pngChunk("eXIf", data)
                    report.orientation = orientation
                }
            } else if isCritical || pngRenderingChunks.contains(type) {
                output += bytes[position..<end]
            } else {
                report.removed.append("PNG \(type) chunk (\(length) bytes)")
            }
            position = end
            if type == "IEND" {
                if position < bytes.count { report.removed.append("PNG data after IEND (\(bytes.count - position) bytes)") }
                return output
            }
        }
    }

    private static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        var chunk: [UInt8] = []
        chunk.appendBE32(UInt32(data.count))
        let body = Array(type.utf8) + data
        chunk += body
        chunk.appendBE32(ZipWriter.crc32(body))
        return chunk
    }

    // MARK: - WebP

    private static let webpKnownChunks: Set<String> = ["VP8X", "ICCP", "ANIM", "ANMF", "ALPH", "VP8 ", "VP8L"]

    /// Drops the XMP chunk and unknown chunks, rewrites EXIF to Orientation
    /// only (or drops it), keeps the VP8X flags in step (EXIF 0x08, XMP 0x04)
    /// and recomputes the RIFF size. Bytes past the RIFF size are dropped.
    private static func stripWebP(_ bytes: [UInt8], into report: inout StripReport) throws -> [UInt8] {
        guard bytes.has("RIFF", at: 0), bytes.has("WEBP", at: 8), let riffSize = bytes.u32le(at: 4),
              riffSize >= 4, 8 + Int(riffSize) <= bytes.count else {
            throw MediaFileError.malformed("WebP RIFF header or size")
        }
        let riffEnd = 8 + Int(riffSize)
        var chunks: [[UInt8]] = []
        var keepExif = false
        var position = 12
        while position < riffEnd {
            guard let typeBytes = bytes.bytes(position..<position + 4), let size = bytes.u32le(at: position + 4),
                  position + 8 + Int(size) <= riffEnd else {
                throw MediaFileError.malformed("WebP chunk at \(position) runs past the RIFF size")
            }
            let type = fourCCString(typeBytes)
            let payload = position + 8
            let end = min(riffEnd, payload + Int(size) + Int(size & 1))
            if type == "EXIF" {
                let summary = Exif.summary(ofTIFF: Array(bytes[payload..<payload + Int(size)]))
                report.removed.append(Exif.describe(summary, in: "WebP EXIF"))
                if summary?.hasGPS == true { report.removedLocation = true }
                if let orientation = summary?.orientation {
                    let data = Exif.orientationOnlyTIFF(orientation, littleEndian: summary!.littleEndian)
                    var chunk = Array("EXIF".utf8)
                    chunk.appendLE32(UInt32(data.count))
                    chunks.append(chunk + data)
                    report.orientation = orientation
                    keepExif = true
                }
            } else if webpKnownChunks.contains(type) {
                chunks.append(Array(bytes[position..<end]))
            } else {
                report.removed.append("WebP \(type) chunk (\(size) bytes)")
            }
            position = end
        }
        if riffEnd < bytes.count { report.removed.append("WebP data after RIFF (\(bytes.count - riffEnd) bytes)") }
        if report.removed.isEmpty { return bytes }

        if var first = chunks.first, first.has("VP8X", at: 0), first.count > 8 {
            first[8] &= ~(0x04 | (keepExif ? 0 : 0x08))
            chunks[0] = first
        }
        let body = chunks.joined()
        var output = Array("RIFF".utf8)
        output.appendLE32(UInt32(4 + body.count))
        output += Array("WEBP".utf8)
        output += body
        return output
    }

    // MARK: - GIF

    /// Application extensions that change what is shown: the loop count
    /// (Netscape's, and the older AnimExts one) and an ICC colour profile,
    /// which JPEG, PNG and WebP keep too.
    private static let gifRenderingApplications: Set<String> = ["NETSCAPE2.0", "ANIMEXTS1.0", "ICCRGBG1012"]

    /// Walks the block stream. Kept verbatim: the header, logical screen and
    /// colour tables, every image with its LZW data, graphic control
    /// extensions (frame delays, transparency), plain text extensions (they
    /// draw) and the application extensions above. Dropped: every other
    /// application extension (XMP is one, "XMP DataXMP"), comments, unknown
    /// extensions, and bytes after the trailer.
    private static func stripGIF(_ bytes: [UInt8], into report: inout StripReport) throws -> [UInt8] {
        guard bytes.has("GIF87a", at: 0) || bytes.has("GIF89a", at: 0), let screenFlags = bytes.u8(at: 10),
              13 + gifColourTableLength(screenFlags) <= bytes.count else {
            throw MediaFileError.malformed("GIF header or global colour table")
        }
        var position = 13 + gifColourTableLength(screenFlags)
        var output = Array(bytes[0..<position])
        output.reserveCapacity(bytes.count)
        while let introducer = bytes.u8(at: position) {
            let start = position
            switch introducer {
            case 0x3B:
                output.append(0x3B)
                if position + 1 < bytes.count { report.removed.append("GIF data after trailer (\(bytes.count - position - 1) bytes)") }
                return output
            case 0x2C:
                guard let imageFlags = bytes.u8(at: position + 9) else { throw MediaFileError.malformed("GIF image descriptor cut at \(position)") }
                // Descriptor, local colour table, LZW minimum code size, then data sub-blocks.
                position = try gifSubBlocksEnd(bytes, from: position + 10 + gifColourTableLength(imageFlags) + 1)
                output += bytes[start..<position]
            case 0x21:
                guard let label = bytes.u8(at: position + 1) else { throw MediaFileError.malformed("GIF extension cut at \(position)") }
                position = try gifSubBlocksEnd(bytes, from: position + 2)
                let application = label == 0xFF ? gifApplicationIdentifier(bytes, at: start + 2) : ""
                switch label {
                case 0xF9, 0x01:
                    output += bytes[start..<position]
                case 0xFF where gifRenderingApplications.contains(application):
                    output += bytes[start..<position]
                case 0xFF:
                    report.removed.append("GIF application extension \(application.debugDescription) (\(position - start) bytes)")
                case 0xFE:
                    report.removed.append("GIF comment (\(position - start) bytes)")
                default:
                    report.removed.append("GIF extension \(hex(label)) (\(position - start) bytes)")
                }
            default:
                throw MediaFileError.malformed("GIF block expected at \(position), found \(hex(introducer))")
            }
        }
        // Cut before the trailer: decoders draw the frames that are whole, and
        // no metadata can follow, so keep it as it is.
        return output
    }

    /// 3 × 2^(n+1) bytes when the table flag (0x80) is set, else none.
    private static func gifColourTableLength(_ flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }

    /// Where a run of data sub-blocks (a length byte, that many bytes, …,
    /// a zero length) ends. XMP's raw packet is followed by a "magic
    /// trailer" that makes it walk as sub-blocks too.
    private static func gifSubBlocksEnd(_ bytes: [UInt8], from start: Int) throws -> Int {
        var position = start
        while true {
            guard let length = bytes.u8(at: position) else { throw MediaFileError.malformed("GIF sub-blocks from \(start) run past the end") }
            position += 1 + Int(length)
            if length == 0 { return position }
        }
    }

    /// The 8-byte identifier and 3-byte authentication code of the
    /// application extension whose first sub-block starts at `offset`.
    private static func gifApplicationIdentifier(_ bytes: [UInt8], at offset: Int) -> String {
        guard let length = bytes.u8(at: offset), let identifier = bytes.bytes(offset + 1..<offset + 1 + min(Int(length), 11)) else { return "" }
        return fourCCString(identifier)
    }
}

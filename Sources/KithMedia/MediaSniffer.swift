/// Decides what a file is from its first bytes, against Kith's allow-list.
///
/// Why bytes and not the name or the browser's `Content-Type`: both are chosen
/// by the uploader, and a file we later serve must never turn out to be HTML,
/// SVG or a program. So every check is positive and structural (signature plus
/// the sizes and fields that follow it), and anything not recognised is
/// `.unknown` — including renamed text, HTML, SVG, ZIP, PDF and executables.
///
/// Every read is bounds-checked: truncated or hostile input gives `.unknown`,
/// never a trap.
public enum MediaSniffer {
    /// How many leading bytes to pass. Fewer works for most files (a JPEG needs
    /// 6, a PNG 33), but the `ftyp` box, an EBML header, an Ogg first page or
    /// two MPEG audio frames after a small ID3 tag all fit in this; a file
    /// shorter than this is passed whole.
    public static let prefixLength = 64 * 1024

    public enum Result: Sendable, Hashable {
        case allowed(MediaType)
        /// HEIC/HEIF/AVIF stills: recognised so the page can say "choose JPEG or
        /// take the photo again" instead of a generic refusal.
        case heic
        case unknown
    }

    /// The type of a file from its first bytes (see `prefixLength`). WebM and
    /// generic MP4 brands are reported as video; use `identify(_:expecting:)`
    /// where the form asked for audio.
    public static func identify(_ prefix: [UInt8]) -> Result {
        if let image = identifyImage(prefix) { return .allowed(image) }
        if let isoResult = identifyISOMedia(prefix) { return isoResult }
        if isWebM(prefix) { return .allowed(.webmVideo) }
        if let audio = identifyAudio(prefix) { return .allowed(audio) }
        return .unknown
    }

    /// As `identify(_:)`, but containers that hold either sound or picture
    /// (WebM, MP4 with a generic brand) are reported as the kind the caller
    /// expects: a voice note recorded by Chrome is WebM, by Safari MP4. A
    /// container that is only ever one kind keeps its own (a JPEG stays a photo,
    /// an `M4A ` brand stays audio), so the caller still compares `kind`.
    public static func identify(_ prefix: [UInt8], expecting expected: MediaKind) -> Result {
        let result = identify(prefix)
        guard case .allowed(let type) = result, type.kind != expected else { return result }
        switch (type, expected) {
        case (.webmVideo, .audio): return .allowed(.webmAudio)
        case (.mp4, .audio): return .allowed(.m4a)
        default: return result
        }
    }

    // MARK: - Images

    private static func identifyImage(_ bytes: [UInt8]) -> MediaType? {
        if isJPEG(bytes) { return .jpeg }
        if isPNG(bytes) { return .png }
        if isGIF(bytes) { return .gif }
        if isWebP(bytes) { return .webp }
        return nil
    }

    /// SOI, then a marker segment with a sane length. The markers a real JPEG
    /// starts with: APPn, DQT, SOFn, DHT, DRI, COM.
    private static func isJPEG(_ bytes: [UInt8]) -> Bool {
        guard bytes.has([0xFF, 0xD8, 0xFF], at: 0), let marker = bytes.u8(at: 3),
              let length = bytes.u16be(at: 4), length >= 2 else { return false }
        switch marker {
        case 0xE0...0xEF, 0xDB, 0xC4, 0xDD, 0xFE: return true
        case 0xC0...0xCF: return marker != 0xC8 && marker != 0xCC
        default: return false
        }
    }

    /// Signature, then IHDR as the first chunk with its fixed length, non-zero
    /// dimensions and a valid CRC.
    private static func isPNG(_ bytes: [UInt8]) -> Bool {
        guard bytes.has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0),
              bytes.u32be(at: 8) == 13, bytes.has("IHDR", at: 12),
              let width = bytes.u32be(at: 16), let height = bytes.u32be(at: 20), width > 0, height > 0,
              let body = bytes.bytes(12..<29), let crc = bytes.u32be(at: 29) else { return false }
        return ZipWriter.crc32(body) == crc
    }

    private static func isGIF(_ bytes: [UInt8]) -> Bool {
        guard bytes.has("GIF87a", at: 0) || bytes.has("GIF89a", at: 0),
              let width = bytes.u16le(at: 6), let height = bytes.u16le(at: 8) else { return false }
        return width > 0 && height > 0
    }

    /// RIFF/WEBP whose first chunk is one of the three WebP bitstream headers
    /// and fits inside the RIFF size.
    private static func isWebP(_ bytes: [UInt8]) -> Bool {
        guard bytes.has("RIFF", at: 0), bytes.has("WEBP", at: 8), let riffSize = bytes.u32le(at: 4),
              let chunkSize = bytes.u32le(at: 16) else { return false }
        guard bytes.has("VP8 ", at: 12) || bytes.has("VP8L", at: 12) || bytes.has("VP8X", at: 12) else { return false }
        return UInt64(chunkSize) + 8 + 4 <= UInt64(riffSize) && riffSize >= 12
    }

    // MARK: - ISO base media (MP4, MOV, M4A, HEIC)

    private static let heicBrands: Set<String> = [
        "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif", "avis",
    ]
    private static let audioBrands: Set<String> = ["M4A ", "M4B ", "F4A "]
    private static let quickTimeBrands: Set<String> = ["qt  "]
    private static let videoBrands: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9",
        "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "f4v ", "dash", "mmp4", "MSNV",
        "3gp4", "3gp5", "3gp6", "3gp7", "3gp8", "3gp9", "3g2a", "3g2b", "3g2c", "3gg6", "3ge6", "3ge7",
    ]

    /// The `ftyp` box must come first, be at least 16 bytes (major brand,
    /// minor version), hold whole 4-byte compatible brands, and lie wholly in
    /// the prefix. The major brand decides; if it is unfamiliar, the first
    /// familiar compatible brand does. HEIF brands win over video ones so a
    /// still image in an MP4-ish wrapper is never served as a video.
    private static func identifyISOMedia(_ bytes: [UInt8]) -> Result? {
        guard bytes.has("ftyp", at: 4), let size = bytes.u32be(at: 0), size >= 16, size <= 4096,
              size % 4 == 0, Int(size) <= bytes.count else { return nil }
        let brands = stride(from: 8, to: Int(size), by: 4).compactMap { offset -> String? in
            offset == 12 ? nil : bytes.bytes(offset..<offset + 4).map(fourCCString)
        }
        guard let major = brands.first else { return nil }
        if heicBrands.contains(major) { return .heic }
        if let verdict = verdict(forBrand: major) { return verdict }
        if brands.contains(where: heicBrands.contains) { return .heic }
        for brand in brands.dropFirst() {
            if let verdict = verdict(forBrand: brand) { return verdict }
        }
        return .unknown
    }

    private static let hevcBrands: Set<String> = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]

    /// For a file `identify` called `.heic`: the type it is stored as when
    /// its pictures are HEVC (what phones take), or nil for AVIF and other
    /// codecs, which Kith does not promise to decode.
    public static func heifType(_ prefix: [UInt8]) -> MediaType? {
        guard identify(prefix) == .heic, let size = prefix.u32be(at: 0) else { return nil }
        let brands = stride(from: 8, to: Int(size), by: 4).compactMap { offset -> String? in
            offset == 12 ? nil : prefix.bytes(offset..<offset + 4).map(fourCCString)
        }
        return brands.contains(where: hevcBrands.contains) ? .heic : nil
    }

    private static func verdict(forBrand brand: String) -> Result? {
        if audioBrands.contains(brand) { return .allowed(.m4a) }
        if quickTimeBrands.contains(brand) { return .allowed(.quickTime) }
        if videoBrands.contains(brand) { return .allowed(.mp4) }
        return nil
    }

    // MARK: - WebM

    /// An EBML header element (1A 45 DF A3) read child by child until its
    /// DocType (42 82), which must say "webm". Matroska proper is refused:
    /// browsers do not promise to play it.
    private static func isWebM(_ bytes: [UInt8]) -> Bool {
        guard bytes.has([0x1A, 0x45, 0xDF, 0xA3], at: 0), let header = bytes.ebmlSize(at: 4),
              let headerSize = header.size, headerSize < UInt64(bytes.count) else { return false }
        var offset = 4 + header.length
        let end = offset + Int(headerSize)
        guard end <= bytes.count else { return false }
        while offset < end {
            guard let (id, idLength) = bytes.ebmlID(at: offset), let field = bytes.ebmlSize(at: offset + idLength),
                  let size = field.size, size < UInt64(end) else { return false }
            let payload = offset + idLength + field.length
            guard payload + Int(size) <= end else { return false }
            if id == 0x4282 {
                // DocType is a string, possibly NUL-padded.
                let value = bytes[payload..<payload + Int(size)].prefix { $0 != 0 }
                return Array(value) == Array("webm".utf8)
            }
            offset = payload + Int(size)
        }
        return false
    }

    // MARK: - Audio

    private static func identifyAudio(_ bytes: [UInt8]) -> MediaType? {
        if isWAV(bytes) { return .wav }
        if isOggAudio(bytes) { return .ogg }
        if let tagged = identifyID3Tagged(bytes) { return tagged }
        if adtsFrameLength(bytes, at: 0).map({ adtsFrameLength(bytes, at: $0) != nil }) == true { return .aac }
        if mpegFrameLength(bytes, at: 0).map({ mpegFrameLength(bytes, at: $0) != nil }) == true { return .mp3 }
        return nil
    }

    /// RIFF/WAVE whose first chunk has a printable four-character id and fits
    /// in the RIFF size; usually "fmt ", sometimes JUNK or LIST first.
    private static func isWAV(_ bytes: [UInt8]) -> Bool {
        guard bytes.has("RIFF", at: 0), bytes.has("WAVE", at: 8), let riffSize = bytes.u32le(at: 4),
              let id = bytes.bytes(12..<16), let chunkSize = bytes.u32le(at: 16) else { return false }
        guard id.allSatisfy({ (0x20...0x7E).contains($0) }) else { return false }
        return UInt64(chunkSize) + 8 + 4 <= UInt64(riffSize)
    }

    /// The first Ogg page (version 0, beginning-of-stream flag) whose first
    /// packet is an Opus or Vorbis identification header. Theora video, FLAC
    /// and Speex streams are not on the allow-list.
    private static func isOggAudio(_ bytes: [UInt8]) -> Bool {
        guard bytes.has("OggS", at: 0), bytes.u8(at: 4) == 0, let flags = bytes.u8(at: 5), flags & 0x02 != 0,
              let segmentCount = bytes.u8(at: 26), segmentCount > 0 else { return false }
        let packet = 27 + Int(segmentCount)
        guard packet <= bytes.count else { return false }
        return bytes.has("OpusHead", at: packet) || bytes.has([0x01] + Array("vorbis".utf8), at: packet)
    }

    /// An ID3v2 header (version 2–4, syncsafe size) followed, when it lies in
    /// the prefix, by an MPEG audio or ADTS frame (zero padding skipped). When
    /// the tag is longer than the prefix (cover art), the tag alone decides:
    /// ID3v2 is only ever written in front of audio.
    private static func identifyID3Tagged(_ bytes: [UInt8]) -> MediaType? {
        guard bytes.has("ID3", at: 0), let major = bytes.u8(at: 3), (2...4).contains(major),
              let revision = bytes.u8(at: 4), revision != 0xFF, let flags = bytes.u8(at: 5),
              let sizeBytes = bytes.bytes(6..<10), sizeBytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        guard flags & 0x0F == 0 else { return nil }
        let tagSize = sizeBytes.reduce(0) { $0 << 7 | Int($1) }
        var audio = 10 + tagSize + (major == 4 && flags & 0x10 != 0 ? 10 : 0)
        while audio < bytes.count, bytes[audio] == 0 { audio += 1 }
        if audio + 4 > bytes.count { return .mp3 }
        if mpegFrameLength(bytes, at: audio) != nil { return .mp3 }
        if adtsFrameLength(bytes, at: audio) != nil { return .aac }
        return nil
    }

    /// The length of the MPEG-1/2/2.5 audio frame (layers I–III) whose header
    /// is at `offset`, or nil if the header is not valid: sync, no reserved
    /// version/layer/rate, no free-format or invalid bitrate.
    static func mpegFrameLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard let b1 = bytes.u8(at: offset), b1 == 0xFF, let b2 = bytes.u8(at: offset + 1), b2 & 0xE0 == 0xE0,
              let b3 = bytes.u8(at: offset + 2) else { return nil }
        let version = (b2 >> 3) & 0x03 // 0: 2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
        let layer = (b2 >> 1) & 0x03 // 1: III, 2: II, 3: I, 0: reserved (ADTS uses it)
        let bitrateIndex = Int(b3 >> 4)
        let rateIndex = Int((b3 >> 2) & 0x03)
        let padding = Int((b3 >> 1) & 0x01)
        guard version != 1, layer != 0, bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3 else { return nil }
        let isMPEG1 = version == 3
        let table: [Int]
        switch (isMPEG1, layer) {
        case (true, 3): table = [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
        case (true, 2): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
        case (true, _): table = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        case (false, 3): table = [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
        case (false, _): table = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        }
        let baseRate = [44100, 48000, 32000][rateIndex]
        let sampleRate = version == 3 ? baseRate : version == 2 ? baseRate / 2 : baseRate / 4
        let bitrate = table[bitrateIndex] * 1000
        switch layer {
        case 3: return (12 * bitrate / sampleRate + padding) * 4
        case 2: return 144 * bitrate / sampleRate + padding
        default: return (isMPEG1 ? 144 : 72) * bitrate / sampleRate + padding
        }
    }

    /// The length of the ADTS (raw AAC) frame at `offset`: sync FFF, layer 0,
    /// a defined sampling rate and a frame length covering its own header.
    static func adtsFrameLength(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard bytes.u8(at: offset) == 0xFF, let b2 = bytes.u8(at: offset + 1), b2 & 0xF6 == 0xF0,
              let b3 = bytes.u8(at: offset + 2), let b4 = bytes.u8(at: offset + 3),
              let b5 = bytes.u8(at: offset + 4), let b6 = bytes.u8(at: offset + 5) else { return nil }
        guard (b3 >> 2) & 0x0F < 13 else { return nil }
        let headerLength = b2 & 0x01 == 1 ? 7 : 9
        let length = Int(b4 & 0x03) << 11 | Int(b5) << 3 | Int(b6 >> 5)
        return length > headerLength ? length : nil
    }
}

import KithTestSupport
import KithMedia
import Testing

@Suite("Media sniffing")
struct MediaSnifferTests {
    static let allowed: [(String, [UInt8], MediaType)] = [
        ("JPEG", Fixture.canvasJPEG, .jpeg),
        ("JPEG with Exif, XMP and IPTC", Fixture.jpegWithLocation(), .jpeg),
        ("PNG", Fixture.canvasPNG, .png),
        ("GIF", Fixture.gif, .gif),
        ("WebP", Fixture.canvasWebP, .webp),
        ("MP4", Fixture.genericMP4, .mp4),
        ("MP4 with moov and mdat", Fixture.mp4WithLocation().bytes, .mp4),
        ("3GP", Fixture.ftyp("3gp4", ["isom", "3gp4"]), .mp4),
        ("MP4 with an unfamiliar major brand", Fixture.ftyp("xyzw", ["xyzw", "mp42"]), .mp4),
        ("MOV", Fixture.mov, .quickTime),
        ("WebM", Fixture.webm, .webmVideo),
        ("M4A", Fixture.m4a, .m4a),
        ("raw AAC (ADTS)", Fixture.adts, .aac),
        ("MP3 frames", Fixture.mp3Frames, .mp3),
        ("MP3 with an ID3v2 tag", Fixture.id3Tag + Fixture.mp3Frames, .mp3),
        ("Ogg Opus", Fixture.oggOpus, .ogg),
        ("Ogg Vorbis", Fixture.oggVorbis, .ogg),
        ("WAV", Fixture.wav, .wav),
    ]

    @Test("every allowed type is identified from its bytes", arguments: allowed.indices)
    func allowedTypes(index: Int) {
        let (name, bytes, expected) = Self.allowed[index]
        #expect(MediaSniffer.identify(bytes) == .allowed(expected), "\(name)")
    }

    @Test("a voice note in WebM or MP4 is audio when audio is expected; a photo stays a photo")
    func expectingAudio() {
        #expect(MediaSniffer.identify(Fixture.webm, expecting: .audio) == .allowed(.webmAudio))
        #expect(MediaSniffer.identify(Fixture.webm, expecting: .video) == .allowed(.webmVideo))
        #expect(MediaSniffer.identify(Fixture.genericMP4, expecting: .audio) == .allowed(.m4a))
        #expect(MediaSniffer.identify(Fixture.m4a, expecting: .video) == .allowed(.m4a))
        #expect(MediaSniffer.identify(Fixture.canvasJPEG, expecting: .audio) == .allowed(.jpeg))
        #expect(MediaSniffer.identify(Fixture.mov, expecting: .audio) == .allowed(.quickTime))
        #expect(MediaType.webmAudio.mimeType == "audio/webm" && MediaType.webmAudio.kind == .audio)
    }

    @Test("HEIC, HEIF and AVIF stills are recognised so the page can ask for JPEG")
    func heic() {
        let brands: [(String, [String])] = [
            ("heic", ["mif1", "heic"]), ("heix", ["mif1", "heix"]), ("mif1", ["mif1", "heic"]),
            ("msf1", ["msf1", "hevc"]), ("hevc", ["hevc"]), ("heim", ["heim"]), ("heis", ["heis"]),
            ("hevx", ["hevx"]), ("avif", ["avif", "mif1", "miaf"]), ("miaf", ["miaf", "mif1"]),
        ]
        for (major, compatible) in brands {
            #expect(MediaSniffer.identify(Fixture.ftyp(major, compatible)) == .heic, "\(major)")
        }
        #expect(MediaSniffer.identify(Fixture.heic) == .heic)
    }

    static let refused: [(String, [UInt8])] = [
        ("HTML renamed .jpg", Array("<!DOCTYPE html><html><script>alert(1)</script></html>".utf8)),
        ("HTML with a BOM", [0xEF, 0xBB, 0xBF] + Array("<html><body>hi</body></html>".utf8)),
        ("SVG", Array("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><script/></svg>".utf8)),
        ("PDF", Array("%PDF-1.7\n%\u{E2}\u{E3}\n1 0 obj<<>>endobj\n".utf8)),
        ("ZIP", [0x50, 0x4B, 0x03, 0x04, 0x14, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 30)),
        ("Windows EXE", [0x4D, 0x5A, 0x90, 0x00, 0x03, 0, 0, 0, 0x04, 0, 0, 0, 0xFF, 0xFF, 0, 0]),
        ("ELF", [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0] + [UInt8](repeating: 0, count: 56)),
        ("plain text", Array("Happy birthday! Here is the photo you asked for.".utf8)),
        ("empty", []),
        ("BMP", Array("BM".utf8) + [UInt8](repeating: 0, count: 60)),
        ("Matroska that is not WebM", Fixture.ebml(docType: "matroska")),
        ("Ogg Theora video", Fixture.ogg(firstPacket: [0x80] + Array("theora".utf8) + [UInt8](repeating: 0, count: 35))),
        ("AVI", Array("RIFF".utf8) + Fixture.le32(100) + Array("AVI LIST".utf8) + [UInt8](repeating: 0, count: 92)),
        ("JPEG 2000 in ftyp", Fixture.ftyp("jp2 ", ["jp2 "])),
        ("ftyp shorter than a brand", Fixture.be32(12) + Array("ftypisom".utf8) + [0, 0, 0, 0]),
        ("ftyp longer than the file", Fixture.be32(64) + Array("ftypisom".utf8) + [0, 0, 2, 0] + Array("isom".utf8)),
        ("WebP whose first chunk is not a bitstream", Array("RIFF".utf8) + Fixture.le32(30) + Array("WEBPEXIF".utf8) + Fixture.le32(4) + [0, 0, 0, 0]),
        ("PNG with a broken IHDR CRC", Array(Fixture.canvasPNG[0..<29]) + [0, 0, 0, 0]),
        ("one lonely MPEG sync", [0xFF, 0xFB, 0x90, 0x00] + [UInt8](repeating: 0x3C, count: 100)),
        ("ID3 with a bad size byte", Array("ID3".utf8) + [4, 0, 0, 0, 0, 0x80, 0]),
        ("ID3 followed by HTML", Fixture.id3Tag + Array("<html><body>".utf8)),
    ]

    @Test("renamed documents, programs and look-alikes are unknown", arguments: refused.indices)
    func refusals(index: Int) {
        let (name, bytes) = Self.refused[index]
        #expect(MediaSniffer.identify(bytes) == .unknown, "\(name)")
        for kind in MediaKind.allCases {
            #expect(MediaSniffer.identify(bytes, expecting: kind) == .unknown, "\(name) as \(kind)")
        }
    }

    @Test("every cut of every sample is either its own type or unknown, never another type")
    func truncations() {
        let samples = Self.allowed.map { ($0.1, MediaSniffer.Result.allowed($0.2)) } + [(Fixture.heic, .heic)]
        for (bytes, full) in samples {
            for length in 0..<bytes.count {
                let result = MediaSniffer.identify(Array(bytes[0..<length]))
                #expect(result == full || result == .unknown, "cut at \(length) gave \(result)")
            }
        }
    }

    @Test("random bytes and randomly damaged samples never crash the sniffer")
    func garbage() {
        var random = SplitMix64(seed: 0x5EED)
        let samples = Self.allowed.map(\.1) + Self.refused.map(\.1)
        for round in 0..<4000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = samples[Int(random.next() % UInt64(samples.count))]
                for _ in 0..<(1 + random.next() % 6) where !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count + 1))))
            }
            _ = MediaSniffer.identify(bytes)
            _ = MediaSniffer.identify(bytes, expecting: .audio)
        }
        // Sizes and lengths at their extremes.
        _ = MediaSniffer.identify([0xFF, 0xFF, 0xFF, 0xFF] + Array("ftyp".utf8) + [UInt8](repeating: 0xFF, count: 64))
        _ = MediaSniffer.identify([0x1A, 0x45, 0xDF, 0xA3, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        _ = MediaSniffer.identify(Array("ID3".utf8) + [4, 0, 0, 0x7F, 0x7F, 0x7F, 0x7F])
    }
}

/// A small deterministic generator, so a failing garbage round can be replayed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

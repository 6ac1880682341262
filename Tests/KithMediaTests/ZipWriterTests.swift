import KithTestSupport
import Foundation
@testable import KithMedia
import Testing

@Suite("Zip writer")
struct ZipWriterTests {
    @Test("CRC-32 matches the standard check values and a bit-by-bit reference")
    func crc() {
        #expect(ZipWriter.crc32([]) == 0)
        #expect(ZipWriter.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(ZipWriter.crc32(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        var random = SplitMix64(seed: 42)
        for length in [1, 7, 8, 9, 15, 16, 17, 1000, 4099] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var reference: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                reference ^= UInt32(byte)
                for _ in 0..<8 { reference = reference & 1 == 1 ? (reference >> 1) ^ 0xEDB8_8320 : reference >> 1 }
            }
            #expect(ZipWriter.crc32(bytes) == ~reference, "length \(length)")
        }
    }

    @Test("an archive of bytes and chunked files reads back in Python and unzip: names, CRCs, bytes")
    func roundTrip() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let video = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        _ = FileManager.default.createFile(atPath: "\(directory)/video", contents: Data(video))
        _ = FileManager.default.createFile(atPath: "\(directory)/empty", contents: Data())
        let expected: [(String, [UInt8])] = [
            ("index.html", Array("<!doctype html><title>Für Lena 🎂</title>".utf8)),
            ("css/kith.css", Array("body { color: #222 }\n".utf8)),
            ("media/Geburtstag – Lena.mp4", video),
            ("media/empty.txt", []),
            ("media/ünïcødé 写真.jpg", Fixture.canvasJPEG),
        ]
        let archive = "\(directory)/keepsake.zip"
        let fd = open(archive, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        let writer = ZipWriter(fileDescriptor: fd, modificationTime: 1_795_000_000)
        writer.chunkSize = 4093 // many chunks, a ragged last one
        try writer.add(name: expected[0].0, bytes: expected[0].1)
        try writer.add(name: expected[1].0, bytes: expected[1].1)
        try writer.add(name: expected[2].0, contentsOf: "\(directory)/video")
        try writer.add(name: expected[3].0, contentsOf: "\(directory)/empty")
        try writer.add(name: expected[4].0, bytes: expected[4].1)
        let length = try writer.finish()
        close(fd)
        #expect(length == UInt64(try read(archive).count))

        let entries = try pythonEntries(archive)
        #expect(entries.map(\.name) == expected.map(\.0))
        for (entry, (_, bytes)) in zip(entries, expected) {
            #expect(entry.crc == ZipWriter.crc32(bytes) && entry.bytes == bytes, "\(entry.name)")
            #expect(entry.date == "2026-11-18 11:06:40", "\(entry.date)")
        }
        let listing = try run("/usr/bin/unzip", ["-t", archive])
        #expect(listing.contains("No errors detected"))
        try run("/usr/bin/unzip", ["-q", archive, "-d", "\(directory)/out"])
        #expect(try read("\(directory)/out/media/Geburtstag – Lena.mp4") == video)
    }

    @Test("names that could escape the folder, or repeat, are refused", arguments: [
        "../evil.html", "/etc/passwd", "media\\..\\x", "a/../../b", "", "a//b", "dir/", "./x", ".", "..",
        "C:evil", "nul\u{0}byte", "line\nbreak", "media/../index.html",
    ])
    func unsafeNames(name: String) throws {
        let writer = ZipWriter { _ in }
        #expect(throws: MediaFileError.unsafeEntryName(name)) { try writer.add(name: name, bytes: [1]) }
    }

    @Test("a repeated name, even in another case, is refused; the archive stays usable")
    func duplicates() throws {
        var output: [UInt8] = []
        let writer = ZipWriter { output += $0 }
        try writer.add(name: "media/Photo.jpg", bytes: [1])
        #expect(throws: MediaFileError.self) { try writer.add(name: "media/photo.JPG", bytes: [2]) }
        try writer.add(name: "media/photo2.jpg", bytes: [2])
        try writer.finish()
        #expect(throws: MediaFileError.self) { try writer.add(name: "late.txt", bytes: [3]) }
        let path = try temporaryFile(output)
        defer { path.1() }
        #expect(try pythonEntries(path.0).map(\.name) == ["media/Photo.jpg", "media/photo2.jpg"])
    }

    @Test("a sink that fails stops the writer")
    func failingSink() throws {
        struct Gone: Error {}
        var calls = 0
        let writer = ZipWriter { _ in calls += 1; if calls > 1 { throw Gone() } }
        #expect(throws: Gone.self) { try writer.add(name: "a.txt", bytes: [1, 2, 3]) }
        #expect(throws: MediaFileError.self) { try writer.finish() }
    }

    @Test("ZIP64 records (sizes, offsets, end of directory) read back when forced on small entries")
    func forcedZip64() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: "\(directory)/clip", contents: Data(Fixture.mdatPayload))
        var output: [UInt8] = []
        let writer = ZipWriter { output += $0 }
        writer.zip64Limit = 0
        try writer.add(name: "index.html", bytes: Array("<p>hi</p>".utf8))
        try writer.add(name: "media/clip.mp4", contentsOf: "\(directory)/clip")
        try writer.finish()
        #expect(output.contains([0x50, 0x4B, 0x06, 0x06]) && output.contains([0x50, 0x4B, 0x06, 0x07]))
        _ = FileManager.default.createFile(atPath: "\(directory)/a.zip", contents: Data(output))
        let entries = try pythonEntries("\(directory)/a.zip")
        #expect(entries.map(\.name) == ["index.html", "media/clip.mp4"])
        #expect(entries.last?.bytes == Fixture.mdatPayload)
        #expect(try run("/usr/bin/unzip", ["-t", "\(directory)/a.zip"]).contains("No errors detected"))
    }

    @Test("more than 65,535 entries switch to ZIP64 and all read back")
    func manyEntries() throws {
        var output: [UInt8] = []
        let writer = ZipWriter { output += $0 }
        for index in 0..<70_000 { try writer.add(name: "n/\(index)", bytes: index % 1000 == 0 ? Array("\(index)".utf8) : []) }
        try writer.finish()
        #expect(output.contains([0x50, 0x4B, 0x06, 0x06]))
        let (path, cleanup) = try temporaryFile(output)
        defer { cleanup() }
        let script = "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); n=z.namelist(); "
            + "print(len(n), n[-1], z.read('n/69000').decode(), z.testzip())"
        #expect(try run("/usr/bin/env", ["python3", "-c", script, path]) == "70000 n/69999 69000 None\n")
    }

    /// A real archive past 4 GiB without 4 GiB on disk: the source is a
    /// sparse file, and the sink seeks over all-zero chunks so the archive is
    /// sparse too. Python then checks every CRC across the whole thing.
    @Test("a 4 GiB video entry produces a ZIP64 archive Python verifies end to end")
    func pastFourGiB() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = "\(directory)/big.mp4"
        let size: Int64 = (4 << 30) + 4096
        let input = open(source, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        #expect(ftruncate(input, off_t(size)) == 0)
        let head = Fixture.mp4WithLocation().bytes
        #expect(pwrite(input, head, head.count, 0) == head.count)
        #expect(pwrite(input, [1, 2, 3, 4], 4, off_t(size - 4)) == 4)
        close(input)

        let archive = "\(directory)/keepsake.zip"
        let output = open(archive, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(output) }
        var position: off_t = 0
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let writer = ZipWriter { chunk in
            let isHole = chunk.count == zeros.count && memcmp(chunk, zeros, chunk.count) == 0
            if !isHole { #expect(pwrite(output, chunk, chunk.count, position) == chunk.count) }
            position += off_t(chunk.count)
        }
        try writer.add(name: "index.html", bytes: Array("<video src=media/big.mp4>".utf8))
        try writer.add(name: "media/big.mp4", contentsOf: source)
        try writer.add(name: "media/after.txt", bytes: Array("past four gibibytes".utf8))
        let length = try writer.finish()
        #expect(ftruncate(output, position) == 0)
        #expect(length == UInt64(position) && length > 0x1_0000_0000)

        let script = """
            import zipfile, sys
            z = zipfile.ZipFile(sys.argv[1])
            print(z.testzip())
            for i in z.infolist(): print(i.filename, i.file_size, i.header_offset > 0xFFFFFFFF)
            print(z.read('media/after.txt').decode())
            """
        let report = try run("/usr/bin/env", ["python3", "-c", script, archive])
        #expect(report == "None\nindex.html 25 False\nmedia/big.mp4 \(size) False\nmedia/after.txt 19 True\npast four gibibytes\n")
    }

    @Test("DOS timestamps: the epoch clamps to 1980, a known instant converts exactly")
    func dosTime() {
        #expect(ZipWriter.dosDateTime(0) == (0x21, 0))
        // 2026-11-18 11:06:40 UTC
        let (date, time) = ZipWriter.dosDateTime(1_795_000_000)
        #expect(date == UInt16((2026 - 1980) << 9 | 11 << 5 | 18))
        #expect(time == UInt16(11 << 11 | 6 << 5 | 40 / 2))
        // Leap day, last second of the day: seconds are stored halved.
        #expect(ZipWriter.dosDateTime(951_868_799) == (UInt16(20 << 9 | 2 << 5 | 29), UInt16(23 << 11 | 59 << 5 | 29)))
    }
}

struct ZipEntry { var name: String; var crc: UInt32; var bytes: [UInt8]; var date: String }

/// The archive as Python's zipfile sees it, after `zipfile -t` checks every CRC.
func pythonEntries(_ archive: String) throws -> [ZipEntry] {
    let check = try run("/usr/bin/env", ["python3", "-m", "zipfile", "-t", archive])
    #expect(check.contains("Done testing"), "\(check)")
    let script = """
        import zipfile, sys
        z = zipfile.ZipFile(sys.argv[1])
        for i in z.infolist():
            d = i.date_time
            print(i.filename.encode().hex(), i.CRC, z.read(i).hex() or '-', '%04d-%02d-%02d_%02d:%02d:%02d' % d)
        """
    return try run("/usr/bin/env", ["python3", "-c", script, archive]).split(separator: "\n").map { line in
        let fields = line.split(separator: " ")
        return ZipEntry(name: String(decoding: hexBytes(fields[0]), as: UTF8.self), crc: UInt32(fields[1])!,
                        bytes: fields[2] == "-" ? [] : hexBytes(fields[2]),
                        date: fields[3].replacingOccurrences(of: "_", with: " "))
    }
}

func hexBytes(_ text: Substring) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
}

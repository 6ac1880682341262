import Foundation
import Testing

@testable import KithHTTP

/// A fresh directory for one test's uploads, removed with everything in it afterwards.
private final class UploadDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("kith-multipart-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        path = url.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var entries: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

private let boundary = "----KithFormBoundary7MA4YWxkTrZu0gW"

/// One part: its header lines, then its content.
private func part(_ headers: String, _ content: [UInt8]) -> [UInt8] {
    Array((headers + "\r\n\r\n").utf8) + content
}

private func part(_ headers: String, _ content: String) -> [UInt8] {
    part(headers, Array(content.utf8))
}

private func field(_ name: String, _ value: String) -> [UInt8] {
    part("Content-Disposition: form-data; name=\"\(name)\"", value)
}

private func body(_ parts: [[UInt8]], preamble: String = "", epilogue: String = "", close: Bool = true) -> [UInt8] {
    var bytes = Array(preamble.utf8)
    for (index, content) in parts.enumerated() {
        bytes += Array(((index == 0 ? "" : "\r\n") + "--\(boundary)\r\n").utf8)
        bytes += content
    }
    if close { bytes += Array(((parts.isEmpty ? "" : "\r\n") + "--\(boundary)--" + epilogue).utf8) }
    return bytes
}

private func feed(_ parser: inout MultipartParser, _ bytes: [UInt8], chunk: Int) throws {
    var start = 0
    while start < bytes.count {
        let end = min(start + chunk, bytes.count)
        try bytes[start..<end].withUnsafeBytes { try parser.feed($0) }
        start = end
    }
}

private func makeParser(
    _ directory: UploadDirectory, limits: MultipartParser.Limits = MultipartParser.Limits()
) -> MultipartParser {
    MultipartParser(boundary: boundary, temporaryDirectory: directory.path, limits: limits)
}

private func parse(_ bytes: [UInt8], with parser: inout MultipartParser, chunk: Int = .max) throws -> FormData {
    try feed(&parser, bytes, chunk: chunk)
    return try parser.finish()
}

/// Feeds the body, expecting the parse to fail, and returns the error.
private func failure(
    _ bytes: [UInt8], in directory: UploadDirectory, chunk: Int = .max,
    limits: MultipartParser.Limits = MultipartParser.Limits()
) -> FormError? {
    var parser = makeParser(directory, limits: limits)
    do {
        try feed(&parser, bytes, chunk: chunk)
        _ = try parser.finish()
        return nil
    } catch {
        return error as? FormError
    }
}

private func contents(_ path: String) -> [UInt8] {
    FileManager.default.contents(atPath: path).map { Array($0) } ?? []
}

/// Deterministic bytes with every value, many CRs, and near-delimiters.
private func noise(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    var bytes = [UInt8]()
    bytes.reserveCapacity(count)
    while bytes.count < count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        let value = UInt8(truncatingIfNeeded: state >> 56)
        if value < 3 {
            // Never a whole delimiter: a NUL cannot continue a boundary.
            bytes += Array("\r\n--\(boundary.dropLast(Int(value) + 1))".utf8) + [0]
        } else {
            bytes.append(value < 12 ? 13 : value)
        }
    }
    return Array(bytes.prefix(count))
}

private let fileContent = Array("first line\r\n--\(boundary.dropLast())\r\nlast line\r".utf8)

private let sample = body(
    [
        field("title", "Hello"),
        field("notes", "Line 1\r\nLine 2\r\n--\(boundary.dropLast()) is not a boundary\r"),
        part(
            "Content-Disposition: form-data; name=\"attachment\"; filename=\"notes.txt\"\r\nContent-Type: text/plain",
            fileContent),
    ],
    preamble: "This preamble is ignored.\r\n",
    epilogue: "\r\nSo is this epilogue, even --\(boundary)\r\n"
)

private func checkSample(_ form: FormData) {
    #expect(form.fields.map(\.name) == ["title", "notes"])
    #expect(form["title"] == "Hello")
    #expect(form["notes"] == "Line 1\r\nLine 2\r\n--\(boundary.dropLast()) is not a boundary\r")
    #expect(form.allFiles.count == 1)
    guard let file = form.file("attachment") else { return }
    #expect(file.fieldName == "attachment")
    #expect(file.filename == "notes.txt")
    #expect(file.contentType == "text/plain")
    #expect(file.size == Int64(fileContent.count))
    #expect(contents(file.path) == fileContent)
}

@Suite("Multipart boundary")
struct MultipartBoundaryTests {
    @Test("The boundary is read from the Content-Type, quoted or not")
    func fromContentType() {
        #expect(MultipartParser.boundary(fromContentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartParser.boundary(fromContentType: "Multipart/Form-Data;boundary=\"a b:c\"") == "a b:c")
        #expect(MultipartParser.boundary(fromContentType: "multipart/form-data; charset=utf-8; BOUNDARY=x") == "x")
        #expect(
            MultipartParser.boundary(fromContentType: "multipart/form-data; boundary=----WebKitFormBoundaryAbC123")
                == "----WebKitFormBoundaryAbC123")
        #expect(MultipartParser.boundary(fromContentType: "multipart/form-data; boundary=\(String(repeating: "b", count: 70))") != nil)
    }

    @Test("Invalid boundaries and other media types give nil")
    func invalid() {
        let invalid = [
            "multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary=\"\"",
            "multipart/form-data; boundary=\(String(repeating: "b", count: 71))",
            "multipart/form-data; boundary=\"ends with space \"", "multipart/form-data; boundary=semi\"colon",
            "multipart/form-data; boundary=\"unclosed", "multipart/form-data; boundary=tab\there",
            "multipart/mixed; boundary=abc", "application/x-www-form-urlencoded", "",
            "multipart/form-data; boundary=ü",
        ]
        for contentType in invalid {
            #expect(MultipartParser.boundary(fromContentType: contentType) == nil, "\(contentType)")
        }
        #expect(MultipartParser(contentType: "text/plain", temporaryDirectory: "unused") == nil)
    }
}

@Suite("Multipart parsing")
struct MultipartParsingTests {
    @Test("Two text fields and a file, with preamble and epilogue ignored")
    func basic() throws {
        let directory = try UploadDirectory()
        var parser = makeParser(directory)
        let form = try parse(sample, with: &parser)
        checkSample(form)
        let file = try #require(form.file("attachment"))
        #expect(file.path.hasPrefix(directory.path + "/kith-upload-"))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(directory.entries.count == 1)
        parser.discard()
        #expect(directory.entries.isEmpty)
        parser.discard()
    }

    @Test("Every chunk size from one byte up gives the same result")
    func everyChunkSize() throws {
        let directory = try UploadDirectory()
        for chunk in 1...sample.count {
            var parser = makeParser(directory)
            let form = try parse(sample, with: &parser, chunk: chunk)
            checkSample(form)
            parser.discard()
        }
        #expect(directory.entries.isEmpty)
    }

    @Test("A delimiter split across two chunks at any point is still found")
    func straddling() throws {
        let directory = try UploadDirectory()
        for split in 0...sample.count {
            var parser = MultipartParser(boundary: boundary, temporaryDirectory: directory.path)
            try sample[..<split].withUnsafeBytes { try parser.feed($0) }
            try sample[split...].withUnsafeBytes { try parser.feed($0) }
            checkSample(try parser.finish())
            parser.discard()
        }
        #expect(directory.entries.isEmpty)
    }

    @Test("A 5 MiB file is streamed to disk with bounded buffering")
    func largeFile() throws {
        let directory = try UploadDirectory()
        let content = noise(count: 5 << 20, seed: 42)
        let bytes = body([
            field("caption", "big"),
            part("Content-Disposition: form-data; name=\"video\"; filename=\"big.bin\"", content),
        ])
        for chunk in [64 * 1024, 65_521, 1 << 20] {
            var parser = makeParser(directory)
            let form = try parse(bytes, with: &parser, chunk: chunk)
            let file = try #require(form.file("video"))
            #expect(file.size == Int64(content.count))
            #expect(contents(file.path) == content)
            #expect(form["caption"] == "big")
            #expect(file.contentType == "application/octet-stream")
            #expect(parser.bufferedHighWaterMark <= 64 * 1024 + 8 * 1024)
            parser.discard()
        }
        #expect(directory.entries.isEmpty)
    }

    @Test("Text fields, near-delimiters and CRs survive a byte-at-a-time feed around a file")
    func noisyText() throws {
        let directory = try UploadDirectory()
        let content = noise(count: 3000, seed: 7)
        let text = "\r\r\n-\r\n--\r\n--\(boundary.prefix(5))\r"
        let bytes = body([
            field("a", text),
            part("Content-Disposition: form-data; name=\"f\"; filename=\"n.bin\"", content),
            field("b", text),
        ])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser, chunk: 1)
        #expect(form.values("a") == [text])
        #expect(form["b"] == text)
        #expect(contents(try #require(form.file("f")).path) == content)
        parser.discard()
    }

    @Test("Several files under one name are all kept, in order")
    func severalFiles() throws {
        let directory = try UploadDirectory()
        let bytes = body([
            part("Content-Disposition: form-data; name=\"docs\"; filename=\"a.txt\"", "A"),
            part("Content-Disposition: form-data; name=\"docs\"; filename=\"b.txt\"", "BB"),
        ])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser)
        #expect(form.files("docs").map(\.filename) == ["a.txt", "b.txt"])
        #expect(form.files("docs").map(\.size) == [1, 2])
        #expect(Set(form.allFiles.map(\.path)).count == 2)
        parser.discard()
        #expect(directory.entries.isEmpty)
    }

    @Test("A file input left empty yields no file and no temporary file")
    func emptyFileInput() throws {
        let directory = try UploadDirectory()
        let bytes = body([
            part(
                "Content-Disposition: form-data; name=\"avatar\"; filename=\"\"\r\nContent-Type: application/octet-stream",
                ""),
            field("name", "Ada"),
        ])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser, chunk: 7)
        #expect(form.allFiles.isEmpty)
        #expect(form["avatar"] == nil)
        #expect(form["name"] == "Ada")
        #expect(directory.entries.isEmpty)
    }

    @Test("An empty named file and content without a name are both files")
    func emptyButRealFiles() throws {
        let directory = try UploadDirectory()
        let bytes = body([
            part("Content-Disposition: form-data; name=\"a\"; filename=\"empty.txt\"", ""),
            part("Content-Disposition: form-data; name=\"b\"; filename=\"\"", "data"),
        ])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser)
        let empty = try #require(form.file("a"))
        #expect(empty.size == 0)
        #expect(FileManager.default.fileExists(atPath: empty.path))
        let unnamed = try #require(form.file("b"))
        #expect(unnamed.filename == "")
        #expect(contents(unnamed.path) == Array("data".utf8))
        parser.discard()
        #expect(directory.entries.isEmpty)
    }

    @Test("A body with no parts is an empty form")
    func noParts() throws {
        let directory = try UploadDirectory()
        for bytes in [Array("--\(boundary)--".utf8), Array("--\(boundary)--\r\n".utf8)] {
            var parser = makeParser(directory)
            #expect(try parse(bytes, with: &parser).isEmpty)
        }
    }

    @Test("Transport padding after a delimiter is allowed")
    func padding() throws {
        let directory = try UploadDirectory()
        let bytes = Array("--\(boundary) \t\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(boundary)--".utf8)
        var parser = makeParser(directory)
        #expect(try parse(bytes, with: &parser, chunk: 1)["a"] == "1")
    }

    @Test("Header names are case-insensitive and a quoted name may hold an escaped quote")
    func headers() throws {
        let directory = try UploadDirectory()
        let bytes = body([
            part("content-disposition: Form-Data; Name=\"say \\\"hi\\\"\"", "x"),
            part("X-Other: 1\r\nCONTENT-TYPE: image/png\r\nContent-Disposition: form-data; name=img; filename=p.png", "png"),
        ])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser)
        #expect(form["say \"hi\""] == "x")
        #expect(form.file("img")?.contentType == "image/png")
        #expect(form.file("img")?.filename == "p.png")
        parser.discard()
    }

    @Test("Uploaded file names are reduced to a safe last component")
    func filenames() throws {
        let directory = try UploadDirectory()
        let cases: [(String, String)] = [
            ("filename=\"../../etc/passwd\"", "passwd"),
            ("filename=\"C:\\Users\\me\\cv.pdf\"", "cv.pdf"),
            ("filename=\"naive.txt\"; filename*=UTF-8''na%C3%AFve.txt", "naïve.txt"),
            ("filename*=UTF-8''na%C3%AFve.txt; filename=\"naive.txt\"", "naïve.txt"),
            ("filename*=utf-8'en'%E2%82%AC%20rates.txt", "€ rates.txt"),
            ("filename*=ISO-8859-1''caf%E9.txt", "café.txt"),
            ("filename*=UTF-8''bad%FF; filename=\"fallback.txt\"", "fallback.txt"),
            ("filename*=KOI8-R''x; filename=\"fallback.txt\"", "fallback.txt"),
            ("filename*=UTF-8''%2E%2E%2Fup.txt", "up.txt"),
            ("filename=\"a\\\"b.txt\"", "a\"b.txt"),
            ("filename=\"tab\there.txt\"", "tabhere.txt"),
            ("filename=\"evil\u{202E}txt.exe\"", "eviltxt.exe"),
            ("filename=unquoted.txt", "unquoted.txt"),
            ("filename=\"..\"", ""),
            ("filename=\"  spaced.txt  \"", "spaced.txt"),
            ("filename=\"résumé.pdf\"", "résumé.pdf"),
            ("filename=\"\(String(repeating: "é", count: 200)).txt\"", String(repeating: "é", count: 127)),
        ]
        for (parameters, expected) in cases {
            let bytes = body([part("Content-Disposition: form-data; name=\"f\"; \(parameters)", "x")])
            var parser = makeParser(directory)
            let form = try parse(bytes, with: &parser)
            #expect(form.file("f")?.filename == expected, "\(parameters)")
            parser.discard()
        }
        #expect(directory.entries.isEmpty)
    }

    @Test("Discarding removes files the application left, not ones it moved away")
    func discardAfterMove() throws {
        let directory = try UploadDirectory()
        let bytes = body([
            part("Content-Disposition: form-data; name=\"keep\"; filename=\"k.txt\"", "keep"),
            part("Content-Disposition: form-data; name=\"drop\"; filename=\"d.txt\"", "drop"),
        ])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser)
        let kept = directory.path + "/kept.txt"
        try FileManager.default.moveItem(atPath: try #require(form.file("keep")).path, toPath: kept)
        parser.discard()
        #expect(directory.entries == ["kept.txt"])
        #expect(contents(kept) == Array("keep".utf8))
        #expect(try parser.finish().allFiles.count == 2)
    }
}

@Suite("Multipart errors")
struct MultipartErrorTests {
    @Test("A missing close delimiter is a 400 and leaves no temporary file")
    func incomplete() throws {
        let directory = try UploadDirectory()
        let full = body([field("a", "1"), part("Content-Disposition: form-data; name=\"f\"; filename=\"f.bin\"", noise(count: 200_000, seed: 1))])
        let truncations = [
            Array(full.dropLast(2)),  // "--" of the close delimiter missing
            Array(full.prefix(150_000)),  // inside the file, after it reached the disk
            body([field("a", "1")], close: false),
            Array("--\(boundary)\r\n".utf8),
            Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n".utf8),
            Array("just a preamble".utf8),
            [],
        ]
        for bytes in truncations {
            let error = failure(bytes, in: directory, chunk: 4096)
            #expect(error?.status == .badRequest)
            #expect(error?.message == "The upload was incomplete.")
            #expect(directory.entries.isEmpty)
        }
    }

    @Test("Too many parts is a 413 and removes files already written")
    func tooManyParts() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxParts: 2)
        let file = part("Content-Disposition: form-data; name=\"f\"; filename=\"f.bin\"", noise(count: 100_000, seed: 2))
        var parser = MultipartParser(boundary: boundary, temporaryDirectory: directory.path, limits: limits)
        let bytes = body([file, field("a", "1"), field("b", "2")])
        #expect(throws: FormError.self) { try feed(&parser, bytes, chunk: 1000) }
        #expect(directory.entries.isEmpty)
        // The failure sticks.
        let again = #expect(throws: FormError.self) { try feed(&parser, [1, 2, 3], chunk: 3) }
        #expect(again == .tooManyFields)
        let atFinish = #expect(throws: FormError.self) { try parser.finish() }
        #expect(atFinish?.status == .contentTooLarge)

        var exact = makeParser(directory, limits: limits)
        #expect(try parse(body([file, field("a", "1")]), with: &exact).allFiles.count == 1)
        exact.discard()
    }

    @Test("More files than the limit is a 413; empty file inputs do not count")
    func tooManyFiles() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxFiles: 2)
        let empty = part("Content-Disposition: form-data; name=\"none\"; filename=\"\"", "")
        let file = part("Content-Disposition: form-data; name=\"f\"; filename=\"f.txt\"", "x")
        var parser = makeParser(directory, limits: limits)
        #expect(try parse(body([empty, file, empty, file, empty]), with: &parser).allFiles.count == 2)
        parser.discard()
        #expect(failure(body([file, file, file]), in: directory, chunk: 5, limits: limits) == .tooManyFiles)
        #expect(directory.entries.isEmpty)
    }

    @Test("A file over the per-file limit is a 413 and leaves no temporary file")
    func fileTooLarge() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxFileBytes: 100_000)
        let content = noise(count: 100_000, seed: 3)
        var parser = makeParser(directory, limits: limits)
        let form = try parse(
            body([part("Content-Disposition: form-data; name=\"f\"; filename=\"ok.bin\"", content)]), with: &parser)
        #expect(form.file("f")?.size == 100_000)
        parser.discard()

        let bytes = body([part("Content-Disposition: form-data; name=\"f\"; filename=\"big.bin\"", content + [0])])
        for chunk in [1, 4096, .max] {
            let error = failure(bytes, in: directory, chunk: chunk, limits: limits)
            #expect(error?.status == .contentTooLarge)
            #expect(error?.message == "An uploaded file is larger than the 100000-byte limit.")
            #expect(directory.entries.isEmpty)
        }
    }

    @Test("Files together over the total limit are a 413 and all are removed")
    func filesTooLarge() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxFileBytes: 1 << 20, maxTotalFileBytes: 1 << 20)
        let half = noise(count: (1 << 19) + 1, seed: 4)
        let bytes = body([
            part("Content-Disposition: form-data; name=\"a\"; filename=\"a.bin\"", half),
            part("Content-Disposition: form-data; name=\"b\"; filename=\"b.bin\"", half),
        ])
        let error = failure(bytes, in: directory, chunk: 10_000, limits: limits)
        #expect(error?.status == .contentTooLarge)
        #expect(error?.message == "The uploaded files together are larger than the 1 MB limit.")
        #expect(directory.entries.isEmpty)
    }

    @Test("Text fields over the in-memory limit are a 413")
    func fieldsTooLarge() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxFieldBytes: 10)
        var parser = makeParser(directory, limits: limits)
        #expect(try parse(body([field("a", "12345"), field("b", "67890")]), with: &parser)["b"] == "67890")
        let error = failure(body([field("a", "12345"), field("b", "678901")]), in: directory, limits: limits)
        #expect(error == .fieldsTooLarge)
    }

    @Test("Part headers over the limit are a 413")
    func headersTooLarge() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxHeaderBytes: 100)
        let long = "Content-Disposition: form-data; name=\"a\"\r\nX-Padding: \(String(repeating: "p", count: 100))"
        let error = failure(body([part(long, "1")]), in: directory, chunk: 1, limits: limits)
        #expect(error?.status == .contentTooLarge)
    }

    @Test("A field name over the limit is a 413")
    func nameTooLong() throws {
        let directory = try UploadDirectory()
        let limits = MultipartParser.Limits(maxNameBytes: 3)
        #expect(failure(body([field("abcd", "1")]), in: directory, limits: limits) == .nameTooLong)
    }

    @Test("Text that is not UTF-8 is kept readable and flagged for its field")
    func invalidText() throws {
        let directory = try UploadDirectory()
        let bytes = body([part("Content-Disposition: form-data; name=\"a\"", [0x61, 0xC3, 0x28])])
        var parser = makeParser(directory)
        let form = try parse(bytes, with: &parser)
        #expect(form["a"] == "a\u{FFFD}(")
        #expect(form.unreadable == ["a"])
    }

    @Test("Malformed part headers and framing are a 400")
    func malformed() throws {
        let directory = try UploadDirectory()
        let bodies: [[UInt8]] = [
            body([part("Content-Type: text/plain", "no disposition")]),
            body([part("Content-Disposition: attachment; name=\"a\"", "x")]),
            body([part("Content-Disposition: form-data; filename=\"x\"", "no name")]),
            body([part("Content-Disposition: form-data; name=\"a", "unclosed quote")]),
            body([part("Content-Disposition: form-data; name=\"a\" junk", "junk after quote")]),
            body([part("Content-Disposition form-data; name=\"a\"", "no colon")]),
            body([part("Content-Disposition: form-data;\r\n name=\"a\"", "folded")]),
            body([part(": form-data; name=\"a\"", "empty header name")]),
            body([part("", "no headers at all")]),
            Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\n\r\n1\r\n--\(boundary)--".utf8),
            Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--\(boundary)X\r\n".utf8),
            Array("--\(boundary)-\r\n".utf8),
            Array("--\(boundary)\rX".utf8),
        ]
        for bytes in bodies {
            for chunk in [1, .max] {
                let error = failure(bytes, in: directory, chunk: chunk)
                #expect(error?.status == .badRequest, "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(directory.entries.isEmpty)
    }

    @Test("A directory that cannot be written to is a 500")
    func unwritableDirectory() throws {
        let directory = try UploadDirectory()
        let bytes = body([part("Content-Disposition: form-data; name=\"f\"; filename=\"f.txt\"", "x")])
        var parser = MultipartParser(boundary: boundary, temporaryDirectory: directory.path + "/missing")
        let error = #expect(throws: FormError.self) { try feed(&parser, bytes, chunk: .max) }
        #expect(error?.status == .internalServerError)
    }
}

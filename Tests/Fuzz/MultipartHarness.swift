import KithHTTP

/// The streaming `multipart/form-data` parser, writing file parts to disk.
///
/// Input: a control byte (read sizes), the Content-Type value up to the first
/// LF, then the body. Limits are small so that every limit can be hit. Besides
/// whole versus split reads agreeing, the parser must leave no temporary file
/// behind once it has thrown, or once `discard()` has run.
enum MultipartHarness: FuzzHarness {
    static let name = "multipart"

    static let limits = MultipartParser.Limits(
        maxParts: 16, maxFiles: 4, maxHeaderBytes: 512, maxNameBytes: 64,
        maxFieldBytes: 1024, maxFileBytes: 1024, maxTotalFileBytes: 2048)

    static func run(_ input: UnsafeRawBufferPointer) {
        guard let (control, rest) = input.controlByteAndRest else { return }
        let lineEnd = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.count
        let contentType = String(decoding: rest[..<lineEnd], as: UTF8.self)
        let body = UnsafeRawBufferPointer(rebasing: rest[min(lineEnd + 1, rest.count)...])
        // Without a valid boundary the request is answered 400 before any parsing.
        guard MultipartParser.boundary(fromContentType: contentType) != nil else { return }

        let whole = Outcome(contentType: contentType, body: body, reads: .whole)
        let split = Outcome(contentType: contentType, body: body, reads: ReadSizes(seed: control))
        require(whole == split, "one read gave \(whole), split reads gave \(split)")
    }

    struct File: Equatable {
        var fieldName, filename, contentType: String
        var size: Int64
        var content: [UInt8]
    }

    /// The form a body gave, file contents included, or the error it gave.
    struct Outcome: Equatable {
        var fields: [[String]] = []
        var unreadable: Set<String> = []
        var files: [File] = []
        var error: FormError?

        init(contentType: String, body: UnsafeRawBufferPointer, reads: ReadSizes) {
            let limits = MultipartHarness.limits
            let directory = ScratchDirectory.path
            guard var parser = MultipartParser(contentType: contentType, temporaryDirectory: directory, limits: limits)
            else { fatalError("a valid boundary was refused: \(contentType)") }
            var reads = reads
            var offset = 0
            do throws(FormError) {
                while offset < body.count {
                    let count = min(reads.next()!, body.count - offset)
                    try parser.feed(UnsafeRawBufferPointer(rebasing: body[offset..<offset + count]))
                    offset += count
                }
                let form = try parser.finish()
                fields = form.fields.map { [$0.name, $0.value] }
                unreadable = form.unreadable
                for file in form.allFiles {
                    let content = ScratchDirectory.read(file.path)
                    require(Int64(content.count) == file.size, "a file of \(file.size) bytes holds \(content.count)")
                    require(file.size <= limits.maxFileBytes, "a file over the limit was kept")
                    files.append(
                        File(
                            fieldName: file.fieldName, filename: file.filename, contentType: file.contentType,
                            size: file.size, content: content))
                }
            } catch {
                self.error = error
                let left = ScratchDirectory.entries
                require(left.isEmpty, "\(error) left temporary files: \(left)")
            }
            parser.discard()
            let left = ScratchDirectory.entries
            require(left.isEmpty, "discard() left temporary files: \(left)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A streaming `multipart/form-data` parser (RFC 7578, framing from RFC 2046).
///
/// Feed it the body in chunks of any size as they arrive. Text fields are
/// kept in memory (bounded by `Limits.maxFieldBytes` in total); a part with a
/// `filename` goes straight to a new temporary file, so apart from text fields
/// the parser holds at most a 64 KiB write buffer and one part's headers,
/// whatever the size of the upload.
///
/// Ownership of temporary files: every file the parser creates stays on disk
/// until `discard()`, including the ones returned by `finish()`. An error
/// thrown by `feed` or `finish` has already deleted them. The parser owns an
/// open file descriptor while a file part is in flight, so do not copy it and
/// keep using both copies.
public struct MultipartParser: Sendable {
    public struct Limits: Sendable {
        /// Maximum number of parts (text fields and files together).
        public var maxParts: Int
        /// Maximum number of files; a file input left empty does not count.
        public var maxFiles: Int
        /// Maximum size of one part's header section.
        public var maxHeaderBytes: Int
        /// Maximum length of a field name, in UTF-8 bytes.
        public var maxNameBytes: Int
        /// Maximum bytes of all text fields together, which are held in memory.
        public var maxFieldBytes: Int
        /// Maximum size of one file.
        public var maxFileBytes: Int64
        /// Maximum size of all files together.
        public var maxTotalFileBytes: Int64

        public init(
            maxParts: Int = 1000,
            maxFiles: Int = 1000,
            maxHeaderBytes: Int = 8 * 1024,
            maxNameBytes: Int = 256,
            maxFieldBytes: Int = 1 << 20,
            maxFileBytes: Int64 = 512 << 20,
            maxTotalFileBytes: Int64 = 1 << 30
        ) {
            self.maxParts = maxParts
            self.maxFiles = maxFiles
            self.maxHeaderBytes = maxHeaderBytes
            self.maxNameBytes = maxNameBytes
            self.maxFieldBytes = maxFieldBytes
            self.maxFileBytes = maxFileBytes
            self.maxTotalFileBytes = maxTotalFileBytes
        }
    }

    private enum State: Sendable {
        /// Before the first delimiter.
        case preamble
        /// Inside a part's content.
        case body
        /// Just after a delimiter: `--` closes, optional padding then CRLF opens a part.
        case delimiterEnd
        case padding
        case closing
        case lineFeed
        case headers
        /// After the close delimiter; everything is ignored.
        case epilogue
        /// `finish()` has returned.
        case finished
    }

    private enum Part: Sendable {
        case field(name: String)
        case file(name: String, filename: String, contentType: String)
    }

    private static let writeBufferCapacity = 64 * 1024
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")

    /// `CRLF--boundary`. The boundary alphabet excludes CR, so CR occurs only
    /// at index 0; the scanner relies on that.
    private let delimiter: [UInt8]
    private let directory: String
    private let limits: Limits

    private var state = State.preamble
    private var failure: FormError?
    /// The end of the last chunk, when it is a proper prefix of the delimiter
    /// and the next chunk must decide whether it is content.
    private var held: [UInt8]
    private var headerBuffer: [UInt8] = []
    private var paddingLength = 0
    private var partCount = 0
    private var part: Part?
    private var form = FormData()

    private var text: [UInt8] = []
    private var textTotal = 0

    private var descriptor: Int32 = -1
    private var filePath: String?
    private var fileSize: Int64 = 0
    private var fileTotal: Int64 = 0
    private var writeBuffer: [UInt8] = []
    private var createdPaths: [String] = []

    /// The most bytes ever held in the parser's own buffers (partial
    /// delimiter, part headers, file write buffer); text field content is
    /// bounded separately by `maxFieldBytes`.
    private(set) var bufferedHighWaterMark = 0

    /// Disk space this request's files draw on; nil for no budget.
    var reservation: UploadReservation?
    /// A field that must open the form, with the value it must have (a CSRF
    /// token). Checked as soon as the first part ends, so a form without it
    /// is refused before any of its files reach the disk.
    private var requiredFirstField: (name: String, accepts: @Sendable (String) -> Bool)?

    /// Requires the form to open with the field `name`, whose value
    /// `accepts` approves; anything else fails with `refusal` before a file
    /// part is written.
    public mutating func requireFirstField(_ name: String, refusal: FormError, accepts: @escaping @Sendable (String) -> Bool) {
        requiredFirstField = (name, accepts)
        firstFieldRefusal = refusal
    }

    private var firstFieldRefusal = FormError(.forbidden, "The form was refused.")

    /// - Parameters:
    ///   - boundary: a valid boundary, as returned by `boundary(fromContentType:)`.
    ///   - temporaryDirectory: an existing directory, writable by this process,
    ///     on the file system where uploads will finally be kept, so they can
    ///     be moved there without copying.
    public init(boundary: String, temporaryDirectory: String, limits: Limits = Limits()) {
        precondition(Self.isValidBoundary(Array(boundary.utf8)), "invalid multipart boundary")
        delimiter = [Self.cr, Self.lf, UInt8(ascii: "-"), UInt8(ascii: "-")] + Array(boundary.utf8)
        var directory = temporaryDirectory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
        self.limits = limits
        // The first delimiter may open the body without a preceding CRLF;
        // pretending one was received lets it match like every other.
        held = [Self.cr, Self.lf]
    }

    /// A parser for a request whose `Content-Type` is `multipart/form-data`
    /// with a valid boundary; nil otherwise (answer 400 or 415).
    public init?(contentType: String, temporaryDirectory: String, limits: Limits = Limits()) {
        guard let boundary = Self.boundary(fromContentType: contentType) else { return nil }
        self.init(boundary: boundary, temporaryDirectory: temporaryDirectory, limits: limits)
    }

    /// The `boundary` parameter of a `multipart/form-data` media type, quoted
    /// or not; nil for another media type or a boundary that RFC 2046 §5.1.1
    /// does not allow (1 to 70 characters from its restricted set).
    public static func boundary(fromContentType contentType: String) -> String? {
        guard let parsed = ParameterizedHeaderValue(Array(contentType.utf8)[...]),
            parsed.value == Array("multipart/form-data".utf8)
        else { return nil }
        guard let raw = parsed.parameter("boundary"), isValidBoundary(raw) else { return nil }
        return String(decoding: raw, as: UTF8.self)
    }

    static func isValidBoundary(_ bytes: [UInt8]) -> Bool {
        guard (1...70).contains(bytes.count), bytes.last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "A")...UInt8(ascii: "Z"):
                true
            case UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: "_"),
                UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"),
                UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: " "):
                true
            default:
                false
            }
        }
    }

    // MARK: Feeding

    /// Consumes the next bytes of the body. After an error every temporary
    /// file is gone and later calls throw the same error.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) throws(FormError) {
        if let failure { throw failure }
        let input = bytes.assumingMemoryBound(to: UInt8.self)
        do throws(FormError) {
            var index = 0
            while index < input.count {
                switch state {
                case .preamble, .body:
                    index = try scanContent(input, from: index)
                case .headers:
                    index = try scanHeaders(input, from: index)
                case .delimiterEnd, .padding, .closing, .lineFeed:
                    try step(input[index])
                    index += 1
                case .epilogue, .finished:
                    return
                }
            }
        } catch {
            fail(error)
            throw error
        }
    }

    /// Checks that the close delimiter arrived and returns the form. The
    /// files it lists stay on disk until `discard()`.
    public mutating func finish() throws(FormError) -> FormData {
        if let failure { throw failure }
        if requiredFirstField != nil {
            fail(firstFieldRefusal)
            throw firstFieldRefusal
        }
        switch state {
        case .epilogue:
            state = .finished
            return form
        case .finished:
            return form
        default:
            let error = FormError(.badRequest, "The upload was incomplete.")
            fail(error)
            throw error
        }
    }

    /// Deletes every temporary file created so far, whether or not it was
    /// handed out by `finish()`, and closes the one being written. Files the
    /// application has moved away are unaffected. Safe to call repeatedly.
    public mutating func discard() {
        if descriptor >= 0 {
            _ = close(descriptor)
            descriptor = -1
        }
        for path in createdPaths { _ = unlink(path) }
        createdPaths.removeAll()
        filePath = nil
        writeBuffer = []
        text = []
        headerBuffer = []
    }

    private mutating func fail(_ error: FormError) {
        failure = error
        discard()
    }

    // MARK: Framing

    /// Passes content to the current part (or drops preamble) up to the next
    /// delimiter, and returns the index after what it consumed.
    private mutating func scanContent(_ input: UnsafeBufferPointer<UInt8>, from start: Int) throws(FormError) -> Int {
        let count = input.count
        let length = delimiter.count
        var index = start
        if !held.isEmpty {
            let matched = held.count
            let wanted = length - matched
            let available = min(wanted, count - index)
            var k = 0
            while k < available && input[index + k] == delimiter[matched + k] { k += 1 }
            if k == wanted {
                held.removeAll(keepingCapacity: true)
                try endPart()
                state = .delimiterEnd
                return index + wanted
            }
            if k == available {
                held.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<index + available]))
                noteBuffered()
                return count
            }
            // The held bytes begin with CR, which occurs nowhere else in the
            // delimiter, so no delimiter can begin inside them: they are content.
            try emitHeld()
        }
        guard let base = input.baseAddress else { return count }
        let contentStart = index
        while index < count {
            guard let found = memchr(base + index, Int32(Self.cr), count - index) else { break }
            let position = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            let available = min(length, count - position)
            var k = 1
            while k < available && input[position + k] == delimiter[k] { k += 1 }
            if k == length {
                try emit(UnsafeBufferPointer(rebasing: input[contentStart..<position]))
                try endPart()
                state = .delimiterEnd
                return position + length
            }
            if k == available {
                try emit(UnsafeBufferPointer(rebasing: input[contentStart..<position]))
                held.append(contentsOf: UnsafeBufferPointer(rebasing: input[position..<count]))
                noteBuffered()
                return count
            }
            index = position + 1
        }
        try emit(UnsafeBufferPointer(rebasing: input[contentStart..<count]))
        return count
    }

    /// The few bytes between a delimiter and the next part's headers.
    private mutating func step(_ byte: UInt8) throws(FormError) {
        switch (state, byte) {
        case (.delimiterEnd, UInt8(ascii: "-")):
            state = .closing
        case (.closing, UInt8(ascii: "-")):
            state = .epilogue
        case (.delimiterEnd, UInt8(ascii: " ")), (.delimiterEnd, UInt8(ascii: "\t")):
            paddingLength = 1
            state = .padding
        case (.padding, UInt8(ascii: " ")), (.padding, UInt8(ascii: "\t")):
            paddingLength += 1
            guard paddingLength <= limits.maxHeaderBytes else { throw .partHeadersTooLarge }
        case (.delimiterEnd, Self.cr), (.padding, Self.cr):
            state = .lineFeed
        case (.lineFeed, Self.lf):
            partCount += 1
            guard partCount <= limits.maxParts else { throw .tooManyFields }
            headerBuffer.removeAll(keepingCapacity: true)
            state = .headers
        default:
            throw .malformed
        }
    }

    /// Collects a part's header section up to its empty line, then starts the part.
    private mutating func scanHeaders(_ input: UnsafeBufferPointer<UInt8>, from start: Int) throws(FormError) -> Int {
        guard let base = input.baseAddress else { return input.count }
        var index = start
        while index < input.count {
            let found = memchr(base + index, Int32(Self.lf), input.count - index)
            let end = found.map { UnsafeRawPointer(base).distance(to: UnsafeRawPointer($0)) + 1 } ?? input.count
            guard headerBuffer.count + (end - index) <= limits.maxHeaderBytes else { throw .partHeadersTooLarge }
            headerBuffer.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<end]))
            noteBuffered()
            index = end
            // A bare LF would make the end of the section ambiguous.
            if found != nil && (headerBuffer.count < 2 || headerBuffer[headerBuffer.count - 2] != Self.cr) {
                throw .malformed
            }
            if found != nil && headerSectionComplete {
                try beginPart()
                headerBuffer.removeAll(keepingCapacity: true)
                state = .body
                return index
            }
        }
        return index
    }

    private var headerSectionComplete: Bool {
        let b = headerBuffer
        let n = b.count
        if n == 2 { return b[0] == Self.cr && b[1] == Self.lf }
        return n >= 4 && b[n - 4] == Self.cr && b[n - 3] == Self.lf && b[n - 2] == Self.cr && b[n - 1] == Self.lf
    }

    // MARK: Parts

    private mutating func beginPart() throws(FormError) {
        var disposition: ArraySlice<UInt8>?
        var contentType: ArraySlice<UInt8>?
        let bytes = headerBuffer
        var lineStart = 0
        while true {
            guard let lineEnd = bytes[lineStart...].firstIndex(of: Self.lf),
                lineEnd > lineStart, bytes[lineEnd - 1] == Self.cr
            else { throw .malformed }
            let line = bytes[lineStart..<(lineEnd - 1)]
            lineStart = lineEnd + 1
            if line.isEmpty { break }
            // Obsolete line folding (a line starting with whitespace) is refused like a bare CR.
            guard let first = line.first, first != UInt8(ascii: " "), first != UInt8(ascii: "\t"),
                !line.contains(Self.cr),
                let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                line[..<colon].allSatisfy(HTTPParser.CharacterClass.isTchar)
            else { throw .malformed }
            let value = HTTPParser.CharacterClass.trimmed(line[(colon + 1)...])
            let name = line[..<colon]
            if ParameterizedHeaderValue.equalsLowercase(name, "content-disposition") {
                if disposition == nil { disposition = value }
            } else if ParameterizedHeaderValue.equalsLowercase(name, "content-type") {
                if contentType == nil { contentType = value }
            }
        }

        guard let disposition, let parsed = ParameterizedHeaderValue(disposition),
            parsed.value == Array("form-data".utf8),
            let rawName = parsed.parameter("name")
        else { throw .malformed }
        guard let name = String(validating: rawName, as: UTF8.self) else { throw .invalidCharacters }
        guard name.utf8.count <= limits.maxNameBytes else { throw .nameTooLong }

        let extendedFilename = parsed.parameter("filename*")
        let plainFilename = parsed.parameter("filename")
        if extendedFilename == nil && plainFilename == nil {
            if let required = requiredFirstField, required.name != name { throw firstFieldRefusal }
            part = .field(name: name)
            text.removeAll(keepingCapacity: true)
            return
        }
        if requiredFirstField != nil { throw firstFieldRefusal }
        let rawFilename: String
        if let extended = extendedFilename.flatMap(Self.decodeExtendedValue) {
            rawFilename = extended
        } else if let plainFilename {
            guard let decoded = String(validating: plainFilename, as: UTF8.self) else { throw .invalidCharacters }
            rawFilename = decoded
        } else {
            rawFilename = ""
        }
        var type = "application/octet-stream"
        if let contentType, !contentType.isEmpty {
            guard let decoded = String(validating: contentType, as: UTF8.self) else { throw .invalidCharacters }
            type = decoded
        }
        part = .file(name: name, filename: UploadedFile.sanitizedFilename(rawFilename), contentType: type)
        fileSize = 0
    }

    /// An RFC 8187 (formerly 5987) `charset'language'percent-encoded` value.
    /// Browsers do not send these but other clients do. UTF-8 (required by
    /// RFC 8187) and ISO-8859-1 (required by RFC 5987) are understood; any
    /// other charset makes the value unusable (nil).
    static func decodeExtendedValue(_ raw: [UInt8]) -> String? {
        guard let firstQuote = raw.firstIndex(of: UInt8(ascii: "'")),
            let secondQuote = raw[(firstQuote + 1)...].firstIndex(of: UInt8(ascii: "'"))
        else { return nil }
        let charset = raw[..<firstQuote].map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
        let encoded = Array(raw[(secondQuote + 1)...])
        let decoded = encoded.withUnsafeBufferPointer { buffer in
            try? PercentDecoding.decodeBytes(buffer, plusAsSpace: false)
        }
        guard let decoded else { return nil }
        if charset == Array("utf-8".utf8) {
            return String(validating: decoded, as: UTF8.self)
        }
        if charset == Array("iso-8859-1".utf8) {
            var scalars = String.UnicodeScalarView()
            for byte in decoded { scalars.append(Unicode.Scalar(byte)) }
            return String(scalars)
        }
        return nil
    }

    private mutating func endPart() throws(FormError) {
        guard state == .body, let current = part else { return }
        part = nil
        switch current {
        case .field(let name):
            if let required = requiredFirstField {
                guard let value = String(validating: text, as: UTF8.self), required.accepts(value) else { throw firstFieldRefusal }
                requiredFirstField = nil
            }
            if let value = String(validating: text, as: UTF8.self) {
                form.append(name, value)
            } else {
                form.append(name, unreadable: String(decoding: text, as: UTF8.self))
            }
            text.removeAll(keepingCapacity: true)
        case .file(let name, let filename, let contentType):
            // A file input left empty: browsers still send the part, with no name and no content.
            if filename.isEmpty && fileSize == 0 { return }
            try flush()
            if descriptor < 0 { try createFile() }
            let status = close(descriptor)
            let closeError = errno
            descriptor = -1
            if status != 0 && closeError != EINTR { throw .storage }
            guard let path = filePath else { throw .storage }
            filePath = nil
            form.append(
                file: UploadedFile(
                    fieldName: name, filename: filename, contentType: contentType, path: path, size: fileSize))
        }
    }

    // MARK: Content

    /// Counts `count` more bytes against the current part's limits.
    private mutating func admit(_ count: Int) throws(FormError) {
        switch part {
        case .field:
            guard textTotal + count <= limits.maxFieldBytes else { throw .fieldsTooLarge }
            textTotal += count
        case .file:
            let size = Int64(count)
            guard fileSize + size <= limits.maxFileBytes else {
                throw FormError(
                    .contentTooLarge, "An uploaded file is larger than the \(describe(limits.maxFileBytes)) limit.")
            }
            guard fileTotal + size <= limits.maxTotalFileBytes else {
                throw FormError(
                    .contentTooLarge,
                    "The uploaded files together are larger than the \(describe(limits.maxTotalFileBytes)) limit.")
            }
            try reservation?.take(size)
            fileSize += size
            fileTotal += size
        case nil:
            break
        }
    }

    private mutating func emit(_ bytes: UnsafeBufferPointer<UInt8>) throws(FormError) {
        guard state == .body, !bytes.isEmpty else { return }
        try admit(bytes.count)
        switch part {
        case .field:
            text.append(contentsOf: bytes)
        case .file:
            if writeBuffer.count + bytes.count > Self.writeBufferCapacity {
                try flush()
                if bytes.count >= Self.writeBufferCapacity {
                    try writeDirectly(bytes)
                    return
                }
            }
            if writeBuffer.capacity < Self.writeBufferCapacity {
                writeBuffer.reserveCapacity(Self.writeBufferCapacity)
            }
            writeBuffer.append(contentsOf: bytes)
            noteBuffered()
        case nil:
            break
        }
    }

    private mutating func emitHeld() throws(FormError) {
        defer { held.removeAll(keepingCapacity: true) }
        guard state == .body else { return }
        try admit(held.count)
        switch part {
        case .field:
            text.append(contentsOf: held)
        case .file:
            if writeBuffer.count + held.count > Self.writeBufferCapacity { try flush() }
            writeBuffer.append(contentsOf: held)
            noteBuffered()
        case nil:
            break
        }
    }

    private mutating func flush() throws(FormError) {
        guard !writeBuffer.isEmpty else { return }
        if descriptor < 0 { try createFile() }
        let fd = descriptor
        guard writeBuffer.withUnsafeBytes({ Self.writeAll(fd, $0) }) else { throw .storage }
        writeBuffer.removeAll(keepingCapacity: true)
    }

    /// Writes to the current file, creating it on first use so that an empty
    /// file input never touches the disk.
    private mutating func writeDirectly(_ bytes: UnsafeBufferPointer<UInt8>) throws(FormError) {
        if descriptor < 0 { try createFile() }
        guard Self.writeAll(descriptor, UnsafeRawBufferPointer(bytes)) else { throw .storage }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard var pointer = bytes.baseAddress else { return true }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(fd, pointer, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            pointer += written
            remaining -= written
        }
        return true
    }

    private mutating func createFile() throws(FormError) {
        guard createdPaths.count < limits.maxFiles else { throw .tooManyFiles }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let name = "kith-upload-" + hex(generator.next()) + hex(generator.next())
            let path = directory == "/" ? "/" + name : directory + "/" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd >= 0 {
                descriptor = fd
                filePath = path
                createdPaths.append(path)
                return
            }
            if errno != EEXIST && errno != EINTR { break }
        }
        throw .storage
    }

    private func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    private func describe(_ bytes: Int64) -> String {
        if bytes >= 1 << 30 && bytes % (1 << 30) == 0 { return "\(bytes >> 30) GB" }
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KB" }
        return "\(bytes)-byte"
    }

    private mutating func noteBuffered() {
        bufferedHighWaterMark = max(bufferedHighWaterMark, held.count + headerBuffer.count + writeBuffer.count)
    }
}

extension FormError {
    static let partHeadersTooLarge = FormError(.contentTooLarge, "A part of the form has headers that are too long.")
    static let tooManyFiles = FormError(.contentTooLarge, "Too many files were uploaded at once.")
    static let storage = FormError(.internalServerError, "The upload could not be stored.")
}

/// A header value of the form `value; name=token; name="quoted \" string"`
/// (Content-Type, Content-Disposition), with the leading value and parameter
/// names lowercased and parameter values as raw bytes.
struct ParameterizedHeaderValue {
    var value: [UInt8]
    var parameters: [(name: [UInt8], value: [UInt8])] = []

    /// The first parameter of that (lowercase) name.
    func parameter(_ name: String) -> [UInt8]? {
        let wanted = Array(name.utf8)
        return parameters.first { $0.name == wanted }?.value
    }

    /// Nil when the value is malformed.
    init?(_ bytes: ArraySlice<UInt8>) {
        var index = bytes.startIndex
        let end = bytes.endIndex
        func skipSpace() {
            while index < end && (bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t")) {
                index += 1
            }
        }
        skipSpace()
        let valueStart = index
        while index < end && bytes[index] != UInt8(ascii: ";") { index += 1 }
        value = HTTPParser.CharacterClass.trimmed(bytes[valueStart..<index]).map(HTTPParser.CharacterClass.lowercased)
        guard !value.isEmpty else { return nil }

        while index < end {
            index += 1  // past ';'
            skipSpace()
            if index == end { break }
            let nameStart = index
            while index < end && HTTPParser.CharacterClass.isTchar(bytes[index]) { index += 1 }
            let name = bytes[nameStart..<index].map(HTTPParser.CharacterClass.lowercased)
            skipSpace()
            guard !name.isEmpty, index < end, bytes[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            skipSpace()
            var parameterValue: [UInt8] = []
            if index < end && bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < end {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        index += 1
                        break
                    }
                    // Only `\"` and `\\` are treated as escapes: old browsers send Windows
                    // paths such as `C:\dir\file.txt` unescaped, and those must survive.
                    if byte == UInt8(ascii: "\\"), index + 1 < end,
                        bytes[index + 1] == UInt8(ascii: "\"") || bytes[index + 1] == UInt8(ascii: "\\")
                    {
                        parameterValue.append(bytes[index + 1])
                        index += 2
                        continue
                    }
                    parameterValue.append(byte)
                    index += 1
                }
                guard closed else { return nil }
                skipSpace()
                guard index == end || bytes[index] == UInt8(ascii: ";") else { return nil }
            } else {
                let valueStart = index
                while index < end && bytes[index] != UInt8(ascii: ";") { index += 1 }
                parameterValue = Array(HTTPParser.CharacterClass.trimmed(bytes[valueStart..<index]))
            }
            parameters.append((name, parameterValue))
        }
    }


    static func equalsLowercase(_ bytes: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        bytes.count == lowercase.utf8.count && zip(bytes, lowercase.utf8).allSatisfy { HTTPParser.CharacterClass.lowercased($0) == $1 }
    }


}

/// Why a form body or query string was refused. `status` is 400 for data no
/// browser would send, 413 for data over a limit, and 500 when an upload
/// could not be written to disk; `message` is safe to show to the user.
public struct FormError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPStatus
    public var message: String

    public init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status.code) \(message)" }

    static let invalidCharacters = FormError(.badRequest, "The form contains invalid characters.")
    static let malformed = FormError(.badRequest, "The form data is malformed.")
    static let tooManyFields = FormError(.contentTooLarge, "The form has too many fields.")
    static let nameTooLong = FormError(.contentTooLarge, "A form field name is too long.")
    static let fieldsTooLarge = FormError(.contentTooLarge, "The form’s text is too long.")

    init(_ error: PercentDecodingError) {
        switch error {
        case .invalidUTF8: self = .invalidCharacters
        case .invalidEscape: self = .malformed
        }
    }
}

/// A file received in a `multipart/form-data` body, already on disk.
///
/// The file belongs to the request: the engine deletes it once the handler
/// has finished. To keep it, move it (`rename(2)`) elsewhere on the same file
/// system before returning; copying is needed only across file systems.
public struct UploadedFile: Sendable, Equatable {
    /// The form field the file was sent in.
    public var fieldName: String
    /// The name the client gave, reduced by `sanitizedFilename(_:)`; may be
    /// empty. Show it, but never use it as a path.
    public var filename: String
    /// The media type the client claimed (`application/octet-stream` when it
    /// claimed none). Clients can lie: inspect the bytes before trusting it.
    public var contentType: String
    /// The temporary file holding the content.
    public var path: String
    /// The content's length in bytes.
    public var size: Int64

    public init(fieldName: String, filename: String, contentType: String, path: String, size: Int64) {
        self.fieldName = fieldName
        self.filename = filename
        self.contentType = contentType
        self.path = path
        self.size = size
    }

    /// The last path component of a client-supplied file name, without
    /// control characters or bidirectional overrides, at most 255 UTF-8 bytes.
    ///
    /// Older browsers send the full local path (`C:\Users\me\cv.pdf`), and
    /// hostile clients send `../../etc/passwd`; both reduce to the last
    /// component. Bidirectional controls are removed because they make
    /// `cod.exe` display as `exe.doc`.
    public static func sanitizedFilename(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F: continue
            case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: continue
            case 0x2F, 0x5C: scalars.removeAll()  // a separator: keep only what follows
            default: scalars.append(scalar)
            }
        }
        var name = Substring(String(scalars))
        while let first = name.first, first == " " { name.removeFirst() }
        while let last = name.last, last == " " { name.removeLast() }
        if name == "." || name == ".." { return "" }
        var result = ""
        for character in name {
            if result.utf8.count + character.utf8.count > 255 { break }
            result.append(character)
        }
        return result
    }
}

/// The fields of a submitted form, in the order they were sent, with any
/// uploaded files.
public struct FormData: Sendable {
    /// Bounds for `application/x-www-form-urlencoded` data.
    public struct Limits: Sendable {
        /// Maximum number of name/value pairs.
        public var maxFields: Int
        /// Maximum length of a decoded name, in UTF-8 bytes.
        public var maxNameBytes: Int
        /// Maximum length of the encoded input.
        public var maxBytes: Int

        public init(maxFields: Int = 1000, maxNameBytes: Int = 256, maxBytes: Int = 1 << 20) {
            self.maxFields = maxFields
            self.maxNameBytes = maxNameBytes
            self.maxBytes = maxBytes
        }
    }

    /// Every text field in arrival order; a name sent twice appears twice.
    public private(set) var fields: [(name: String, value: String)]
    /// Every uploaded file in arrival order.
    public private(set) var allFiles: [UploadedFile]
    /// Fields whose value arrived as bytes that are not text (invalid UTF-8
    /// or a broken `%` escape). Their value is kept with the unreadable parts
    /// replaced (U+FFFD), so a form can be shown again with an error next to
    /// that field instead of refusing the whole request.
    public private(set) var unreadable: Set<String> = []

    public init(fields: [(name: String, value: String)] = [], files: [UploadedFile] = []) {
        self.fields = fields
        self.allFiles = files
    }

    /// The first value sent under that name.
    public subscript(name: String) -> String? {
        for field in fields where field.name == name { return field.value }
        return nil
    }

    /// Every value sent under that name (checkboxes, multiple selects), in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name == name }.map(\.value)
    }

    /// Every file sent under that name, in order.
    public func files(_ name: String) -> [UploadedFile] {
        allFiles.filter { $0.fieldName == name }
    }

    /// The first file sent under that name.
    public func file(_ name: String) -> UploadedFile? {
        allFiles.first { $0.fieldName == name }
    }

    /// The distinct field names, in order of first appearance.
    public var names: [String] {
        var seen = Set<String>()
        return fields.compactMap { seen.insert($0.name).inserted ? $0.name : nil }
    }

    public var isEmpty: Bool { fields.isEmpty && allFiles.isEmpty }

    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// A value that could not be read as text; `lossy` is what could be.
    mutating func append(_ name: String, unreadable lossy: String) {
        fields.append((name, lossy))
        unreadable.insert(name)
    }

    mutating func append(file: UploadedFile) {
        allFiles.append(file)
    }

    /// Parses `application/x-www-form-urlencoded` data: a form body, or a
    /// query string without its `?`.
    ///
    /// Follows the WHATWG URL standard's splitting: pairs are separated by
    /// `&` only, empty pairs (`a&&b`) are skipped, a pair without `=` has an
    /// empty value, and an empty name is kept. Unlike that standard, a bad
    /// `%` escape or invalid UTF-8 is an error rather than repaired.
    public static func parseURLEncoded(
        _ bytes: UnsafeRawBufferPointer, limits: Limits = Limits()
    ) throws(FormError) -> FormData {
        try parseURLEncoded(bytes.assumingMemoryBound(to: UInt8.self), limits: limits)
    }

    public static func parseURLEncoded(
        _ bytes: some Collection<UInt8>, limits: Limits = Limits()
    ) throws(FormError) -> FormData {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(FormError) -> FormData in try parseURLEncoded(buffer, limits: limits) }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        let result = copy.withUnsafeBufferPointer { buffer in
            Result { () throws(FormError) -> FormData in try parseURLEncoded(buffer, limits: limits) }
        }
        return try result.get()
    }

    public static func parseURLEncoded(
        _ text: some StringProtocol, limits: Limits = Limits()
    ) throws(FormError) -> FormData {
        try parseURLEncoded(text.utf8, limits: limits)
    }

    static func parseURLEncoded(_ buffer: UnsafeBufferPointer<UInt8>, limits: Limits) throws(FormError) -> FormData {
        guard buffer.count <= limits.maxBytes else { throw .fieldsTooLarge }
        var form = FormData()
        var start = 0
        while start <= buffer.count {
            var end = start
            while end < buffer.count && buffer[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                var equals = start
                while equals < end && buffer[equals] != UInt8(ascii: "=") { equals += 1 }
                guard form.fields.count < limits.maxFields else { throw .tooManyFields }
                let rawName = UnsafeBufferPointer(rebasing: buffer[start..<equals])
                let rawValue = UnsafeBufferPointer(rebasing: buffer[min(equals + 1, end)..<end])
                let name: String
                do throws(PercentDecodingError) {
                    name = try PercentDecoding.decode(rawName, plusAsSpace: true)
                } catch {
                    throw FormError(error)
                }
                guard name.utf8.count <= limits.maxNameBytes else { throw .nameTooLong }
                // Names are ours; values are what people typed, and an
                // unreadable one becomes an error beside its field.
                do throws(PercentDecodingError) {
                    form.append(name, try PercentDecoding.decode(rawValue, plusAsSpace: true))
                } catch {
                    form.append(name, unreadable: PercentDecoding.decodeLossy(rawValue, plusAsSpace: true))
                }
            }
            start = end + 1
        }
        return form
    }
}

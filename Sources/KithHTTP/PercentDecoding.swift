/// Why percent-decoding failed.
public enum PercentDecodingError: Error, Sendable, Equatable {
    /// A `%` not followed by two hexadecimal digits, at this byte offset of the input.
    case invalidEscape(offset: Int)
    /// The decoded bytes are not valid UTF-8.
    case invalidUTF8
}

/// Strict percent-decoding (RFC 3986 §2.1) into UTF-8 text.
///
/// Both failures throw instead of being repaired: a lossy replacement would
/// silently store text the user never typed, while an error lets the form be
/// shown again with a message. Other characters, including control characters
/// such as NUL, are decoded as they are; callers that hand text to the file
/// system or to C must check for them themselves.
public enum PercentDecoding {
    /// Decodes one path segment. `+` stays `+` (it means space only in forms),
    /// and `%2F` becomes `/`: split the path on `/` before decoding, never after.
    public static func decodePathSegment(_ bytes: some Collection<UInt8>) throws(PercentDecodingError) -> String {
        try decode(bytes, plusAsSpace: false)
    }

    public static func decodePathSegment(_ text: some StringProtocol) throws(PercentDecodingError) -> String {
        try decode(text.utf8, plusAsSpace: false)
    }

    /// Decodes one name or value of `application/x-www-form-urlencoded` data
    /// (a form body or a query string), where `+` means space.
    public static func decodeFormComponent(_ bytes: some Collection<UInt8>) throws(PercentDecodingError) -> String {
        try decode(bytes, plusAsSpace: true)
    }

    public static func decodeFormComponent(_ text: some StringProtocol) throws(PercentDecodingError) -> String {
        try decode(text.utf8, plusAsSpace: true)
    }

    /// Decodes to raw bytes without requiring UTF-8, for encodings that name
    /// their own charset (RFC 5987 `filename*=ISO-8859-1''…`).
    static func decodeBytes(_ source: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) throws(PercentDecodingError) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(source.count)
        var i = 0
        while i < source.count {
            let byte = source[i]
            if byte == UInt8(ascii: "%") {
                guard i + 2 < source.count,
                    let high = hexValue(source[i + 1]),
                    let low = hexValue(source[i + 2])
                else { throw .invalidEscape(offset: i) }
                output.append(high << 4 | low)
                i += 3
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        return output
    }

    /// What can be read of a value that does not decode: broken escapes kept
    /// as typed, invalid UTF-8 replaced with U+FFFD. Only for showing a value
    /// back beside an error, never for storing it.
    static func decodeLossy(_ source: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(source.count)
        var i = 0
        while i < source.count {
            let byte = source[i]
            if byte == UInt8(ascii: "%"), i + 2 < source.count, let high = hexValue(source[i + 1]), let low = hexValue(source[i + 2]) {
                output.append(high << 4 | low)
                i += 3
            } else {
                output.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                i += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decode(_ source: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool) throws(PercentDecodingError) -> String {
        // Most names and values need no decoding at all: validate in place.
        var plain = true
        for byte in source where byte == UInt8(ascii: "%") || (plusAsSpace && byte == UInt8(ascii: "+")) {
            plain = false
            break
        }
        if plain {
            guard let text = String(validating: source, as: UTF8.self) else { throw .invalidUTF8 }
            return text
        }
        let bytes = try decodeBytes(source, plusAsSpace: plusAsSpace)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return text
    }

    static func decode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) throws(PercentDecodingError) -> String {
        let contiguous = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(PercentDecodingError) -> String in try decode(buffer, plusAsSpace: plusAsSpace) }
        }
        if let contiguous { return try contiguous.get() }
        let copy = Array(bytes)
        let result = copy.withUnsafeBufferPointer { buffer in
            Result { () throws(PercentDecodingError) -> String in try decode(buffer, plusAsSpace: plusAsSpace) }
        }
        return try result.get()
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}

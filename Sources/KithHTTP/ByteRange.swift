/// What to send for a `Range` request header (RFC 9110 §14.2) against a
/// representation of known length. Evaluating `If-Range` is the caller's job:
/// when it fails, do not consult the `Range` header at all.
///
/// Only a single range is served. A request for several ranges gets the
/// whole representation with 200, which RFC 9110 §14.2 permits ("a server
/// MAY ignore the Range header field") and which spares us
/// `multipart/byteranges`. A `Range` header that does not parse is ignored
/// the same way, as §14.2 requires; so is a unit other than `bytes`.
public enum ByteRange: Sendable, Equatable {
    /// Send the whole representation: 200.
    case full
    /// Send these bytes (inclusive offsets, never empty, within the length):
    /// 206 with `Content-Range: bytes first-last/length`.
    case partial(ClosedRange<Int64>)
    /// 416 with `Content-Range: bytes */length`.
    case unsatisfiable

    public init(header: String?, length: Int64) {
        guard let header, length >= 0 else {
            self = .full
            return
        }
        self = Self.evaluate(Array(header.utf8)[...], length: length) ?? .full
    }

    /// The `Content-Range` value to send with this outcome; nil for `.full`.
    public func contentRange(length: Int64) -> String? {
        switch self {
        case .full: nil
        case .partial(let range): "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
        case .unsatisfiable: "bytes */\(length)"
        }
    }

    public var status: HTTPStatus {
        switch self {
        case .full: .ok
        case .partial: .partialContent
        case .unsatisfiable: .rangeNotSatisfiable
        }
    }

    /// Nil when the header is to be ignored.
    private static func evaluate(_ bytes: ArraySlice<UInt8>, length: Int64) -> ByteRange? {
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")),
            bytes[..<equals].count == 5,
            zip(bytes[..<equals], "bytes".utf8).allSatisfy({ ($0 | 0x20) == $1 })
        else { return nil }

        // A list may contain empty elements, which recipients must accept (RFC 9110 §5.6.1.2).
        let specs = bytes[(equals + 1)...]
            .split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map(HTTPParser.CharacterClass.trimmed)
            .filter { !$0.isEmpty }
        guard specs.count == 1, let spec = specs.first,
            let dash = spec.firstIndex(of: UInt8(ascii: "-"))
        else { return nil }

        let firstDigits = spec[..<dash]
        let lastDigits = spec[(dash + 1)...]
        if firstDigits.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = number(lastDigits) else { return nil }
            if suffix == 0 { return .unsatisfiable }
            // RFC 9110 calls this satisfiable, but no byte can be sent: send the (empty) whole.
            if length == 0 { return .full }
            return .partial(max(0, length - suffix)...(length - 1))
        }
        guard let first = number(firstDigits) else { return nil }
        var last = length - 1
        if !lastDigits.isEmpty {
            guard let requested = number(lastDigits), requested >= first else { return nil }
            last = min(requested, length - 1)
        }
        guard first < length else { return .unsatisfiable }
        return .partial(first...last)
    }

    /// A run of decimal digits; values past `Int64.max` saturate, which
    /// clamps to the length like any other large offset.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard !digits.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            value = value > (Int64.max - digit) / 10 ? Int64.max : value * 10 + digit
        }
        return value
    }

}

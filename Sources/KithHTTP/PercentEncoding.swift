/// Percent-encoding for building URLs (RFC 3986). Decoding lives in
/// `PercentDecoding`, where malformed input has to be refused.
public enum PercentEncoding {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Keeps unreserved characters and the sub-delimiters a path segment allows.
    public static func encodePathSegment(_ text: String) -> String {
        encode(text) { c in isUnreserved(c) || c == UInt8(ascii: "@") || c == UInt8(ascii: ":") }
    }

    /// For query and form components: only unreserved characters stay as they are.
    public static func encodeQueryComponent(_ text: String) -> String {
        encode(text, keep: isUnreserved)
    }

    private static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
    }

    private static func encode(_ text: String, keep: (UInt8) -> Bool) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            if keep(c) {
                bytes.append(c)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(c >> 4)])
                bytes.append(hex[Int(c & 0xF)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// JSON string literals for the few small JSON texts Kith writes by hand
/// (VAPID claims, push messages, live-update events). It lives here, the
/// lowest module all its users already share.
public enum JSONString {
    /// `text` as a JSON string literal, quotes included: quotes, backslashes
    /// and control characters escaped, and U+2028/2029, which JavaScript
    /// before ES2019 refuses inside a string. Everything else, including
    /// characters beyond the BMP, passes through as UTF-8.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// The SQL a database speaks. Store SQL is written once for both; the few
/// places that must differ (bookkeeping queries, placeholders) ask this.
public enum SQLDialect: String, Sendable, Hashable {
    case sqlite
    case postgres
}

extension SQL {
    /// The text as `dialect` wants it: `?` placeholders for SQLite, `$1…$n`
    /// for PostgreSQL, numbered in argument order. A `?` inside a quoted
    /// string, a quoted identifier or a comment is text, not a placeholder.
    public func text(for dialect: SQLDialect) -> String {
        guard dialect == .postgres, !arguments.isEmpty else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + arguments.count * 2)
        var number = 0
        var quote: UInt8? = nil
        var inLineComment = false
        var blockDepth = 0
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if inLineComment {
                if byte == UInt8(ascii: "\n") { inLineComment = false }
            } else if blockDepth > 0 {
                if byte == UInt8(ascii: "*") && next == UInt8(ascii: "/") {
                    blockDepth -= 1
                    output += [byte, next]
                    index += 2
                    continue
                }
            } else if let open = quote {
                // A doubled quote inside stays inside: the closing test sees
                // the first and the reopening test the second.
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: "-") && next == UInt8(ascii: "-") {
                inLineComment = true
            } else if byte == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                blockDepth += 1
                output += [byte, next]
                index += 2
                continue
            } else if byte == UInt8(ascii: "?") {
                number += 1
                output.append(UInt8(ascii: "$"))
                output += Array(String(number).utf8)
                index += 1
                continue
            }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}

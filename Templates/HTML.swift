/// A piece of HTML. Interpolating a `String` (or any text) escapes it;
/// interpolating `HTML` splices it as it is. The only way to turn arbitrary
/// text into HTML without escaping is `HTML.unsafeRaw`, named so that every
/// use stands out in review.
///
/// Output is built directly as UTF-8 bytes: escaping copies the runs between
/// special characters in bulk, which is what keeps a page render in the
/// low microseconds.
public struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var bytes: [UInt8]

    public init() { bytes = [] }

    /// Literal template text is trusted: it was written by us, in source.
    public init(stringLiteral literal: StaticString) {
        bytes = literal.withUTF8Buffer { Array($0) }
    }

    public init(stringInterpolation: consuming StringInterpolation) {
        bytes = stringInterpolation.finish()
    }

    /// Inserts text without escaping. Only for HTML produced by a trusted
    /// renderer (the Markdown renderer, a generated SVG), never for input.
    public static func unsafeRaw(_ trustedHTML: String) -> HTML {
        var html = HTML()
        html.bytes = Array(trustedHTML.utf8)
        return html
    }

    /// Escaped text as HTML.
    public static func text(_ text: String) -> HTML {
        var html = HTML()
        Escaping.append(text, to: &html.bytes)
        return html
    }

    public static let empty = HTML()

    public mutating func append(_ other: HTML) { bytes.append(contentsOf: other.bytes) }

    /// Room for a page whose size is known roughly, so appending rows does
    /// not reallocate the page again and again.
    public mutating func reserveCapacity(_ minimumCapacity: Int) { bytes.reserveCapacity(minimumCapacity) }

    public var string: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { string }
    public var isEmpty: Bool { bytes.isEmpty }

    /// Writes into an array kept longer than what is written, in place:
    /// `Array.append(contentsOf:)` costs about a hundred instructions a call
    /// whatever it copies, and a page makes dozens of such calls. The zeros
    /// past `count` are cut off once, in `finish`.
    public struct StringInterpolation: StringInterpolationProtocol {
        private var storage: [UInt8]
        private var count = 0

        public init(literalCapacity: Int, interpolationCount: Int) {
            storage = [UInt8](repeating: 0, count: Swift.max(64, literalCapacity + interpolationCount * 16))
        }

        /// The bytes written, leaving the interpolation empty.
        mutating func finish() -> [UInt8] {
            var written: [UInt8] = []
            swap(&written, &storage)
            written.removeLast(written.count - count)
            count = 0
            return written
        }

        /// Room for `extra` more bytes past `count`, at least doubling.
        private mutating func makeRoom(_ extra: Int) {
            let needed = count + extra
            guard needed > storage.count else { return }
            storage.append(contentsOf: repeatElement(0, count: Swift.max(needed, storage.count * 2) - storage.count))
        }

        @inline(__always)
        mutating func write(_ source: UnsafeBufferPointer<UInt8>) {
            guard let base = source.baseAddress, !source.isEmpty else { return }
            makeRoom(source.count)
            let offset = count
            storage.withUnsafeMutableBufferPointer { target in
                (target.baseAddress! + offset).update(from: base, count: source.count)
            }
            count += source.count
        }

        @inline(__always)
        mutating func write(_ byte: UInt8) {
            makeRoom(1)
            storage[count] = byte
            count += 1
        }

        mutating func write(_ text: StaticString) {
            text.withUTF8Buffer { write($0) }
        }

        mutating func write(_ bytes: [UInt8]) {
            bytes.withUnsafeBufferPointer { write($0) }
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            write(literal)
        }

        /// Text is escaped.
        public mutating func appendInterpolation(_ text: String) {
            Escaping.forEachPiece(of: text) { write($0) }
        }

        public mutating func appendInterpolation(_ text: Substring) {
            appendInterpolation(String(text))
        }

        public mutating func appendInterpolation(_ html: HTML) {
            write(html.bytes)
        }

        public mutating func appendInterpolation(_ html: HTML?) {
            if let html { write(html.bytes) }
        }

        public mutating func appendInterpolation(_ parts: [HTML]) {
            for part in parts { write(part.bytes) }
        }

        public mutating func appendInterpolation<N: BinaryInteger>(_ number: N) {
            var digits = String(number)
            digits.withUTF8 { write($0) }
        }

        // The common integers skip `String(number)`, which goes through a
        // generic conversion and an allocation: ids are on every row of a list.
        public mutating func appendInterpolation(_ number: Int) {
            Escaping.withDecimal(Int64(number)) { write($0) }
        }

        public mutating func appendInterpolation(_ number: Int64) {
            Escaping.withDecimal(number) { write($0) }
        }

        /// ` name="value"`, escaped; nothing when the value is nil. Boolean
        /// attributes use `attribute(_:when:)`.
        public mutating func appendInterpolation(attribute name: StaticString, _ value: String?) {
            guard let value else { return }
            write(0x20)
            write(name)
            write("=\"")
            appendInterpolation(value)
            write(0x22)
        }

        /// ` name` when `condition` holds (`disabled`, `checked`, `required`).
        public mutating func appendInterpolation(attribute name: StaticString, when condition: Bool) {
            guard condition else { return }
            write(0x20)
            write(name)
        }
    }
}

extension Array where Element == HTML {
    public func joined(separator: HTML = HTML()) -> HTML {
        var result = HTML()
        for (index, part) in enumerated() {
            if index > 0 { result.append(separator) }
            result.append(part)
        }
        return result
    }
}

/// The one place text becomes HTML-safe. All five characters are escaped
/// everywhere, so the same function is right for text and for quoted attribute values.
public enum Escaping {
    public static func append(_ text: String, to output: inout [UInt8]) {
        forEachPiece(of: text) { output.append(contentsOf: $0) }
    }

    /// Hands `write` the escaped text in pieces: runs of the input that need
    /// nothing, copied in bulk, and the replacements between them.
    @inline(__always)
    static func forEachPiece(of text: String, _ write: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.withUTF8 { input in
            guard let base = input.baseAddress else { return }
            var runStart = 0
            var index = 0
            let count = input.count
            while index < count {
                // Eight bytes at a time while none of them is special: most
                // text has nothing to escape, and is copied in one run.
                if index + 8 <= count,
                    !hasSpecialByte(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                {
                    index += 8
                    continue
                }
                let replacement: StaticString
                switch input[index] {
                case 0x26: replacement = "&amp;"
                case 0x3C: replacement = "&lt;"
                case 0x3E: replacement = "&gt;"
                case 0x22: replacement = "&quot;"
                case 0x27: replacement = "&#39;"
                default:
                    index += 1
                    continue
                }
                if index > runStart {
                    write(UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                }
                replacement.withUTF8Buffer { write($0) }
                index += 1
                runStart = index
            }
            if runStart < count {
                write(UnsafeBufferPointer(start: base + runStart, count: count - runStart))
            }
        }
    }

    /// Whether any byte of `word` is one of the five escaped characters. Each
    /// test is the classic "has a zero byte" check on `word` XOR the character
    /// repeated; it may answer yes wrongly (a borrow from a real match), never
    /// no wrongly, and a yes is checked byte by byte.
    @inline(__always)
    static func hasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func has(_ byte: UInt64) -> UInt64 {
            let v = word ^ (byte &* ones)
            return (v &- ones) & ~v & highs
        }
        return (has(0x26) | has(0x3C) | has(0x3E) | has(0x22) | has(0x27)) != 0
    }

    /// The decimal digits of `value`, from a buffer on the stack.
    @inline(__always)
    static func withDecimal(_ value: Int64, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = 0x30 &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = 0x2D
            }
            body(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    public static func escape(_ text: String) -> String {
        var bytes: [UInt8] = []
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

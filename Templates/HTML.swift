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

    public init(stringInterpolation: StringInterpolation) {
        bytes = stringInterpolation.bytes
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

    public var string: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { string }
    public var isEmpty: Bool { bytes.isEmpty }

    public struct StringInterpolation: StringInterpolationProtocol {
        var bytes: [UInt8]

        public init(literalCapacity: Int, interpolationCount: Int) {
            bytes = []
            bytes.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: StaticString) {
            literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// Text is escaped.
        public mutating func appendInterpolation(_ text: String) {
            Escaping.append(text, to: &bytes)
        }

        public mutating func appendInterpolation(_ text: Substring) {
            Escaping.append(String(text), to: &bytes)
        }

        public mutating func appendInterpolation(_ html: HTML) {
            bytes.append(contentsOf: html.bytes)
        }

        public mutating func appendInterpolation(_ html: HTML?) {
            if let html { bytes.append(contentsOf: html.bytes) }
        }

        public mutating func appendInterpolation(_ parts: [HTML]) {
            for part in parts { bytes.append(contentsOf: part.bytes) }
        }

        public mutating func appendInterpolation<N: BinaryInteger>(_ number: N) {
            bytes.append(contentsOf: String(number).utf8)
        }

        /// ` name="value"`, escaped; nothing when the value is nil. Boolean
        /// attributes use `attribute(_:when:)`.
        public mutating func appendInterpolation(attribute name: StaticString, _ value: String?) {
            guard let value else { return }
            bytes.append(0x20)
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: [0x3D, 0x22])
            Escaping.append(value, to: &bytes)
            bytes.append(0x22)
        }

        /// ` name` when `condition` holds (`disabled`, `checked`, `required`).
        public mutating func appendInterpolation(attribute name: StaticString, when condition: Bool) {
            guard condition else { return }
            bytes.append(0x20)
            name.withUTF8Buffer { bytes.append(contentsOf: $0) }
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
        var text = text
        text.withUTF8 { input in
            guard let base = input.baseAddress else { return }
            var runStart = 0
            for index in 0..<input.count {
                let replacement: StaticString
                switch input[index] {
                case 0x26: replacement = "&amp;"
                case 0x3C: replacement = "&lt;"
                case 0x3E: replacement = "&gt;"
                case 0x22: replacement = "&quot;"
                case 0x27: replacement = "&#39;"
                default: continue
                }
                if index > runStart {
                    output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                }
                replacement.withUTF8Buffer { output.append(contentsOf: $0) }
                runStart = index + 1
            }
            if runStart < input.count {
                output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: input.count - runStart))
            }
        }
    }

    public static func escape(_ text: String) -> String {
        var bytes: [UInt8] = []
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

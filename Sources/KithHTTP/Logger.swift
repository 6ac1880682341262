import Glibc
import KithSync

/// logfmt lines to standard error. Lines are collected in memory and written
/// by the event loops once per wake-up, so a request does not cost its own
/// `write` system call.
public final class Logger: Sendable {
    private let buffer = Lock<[UInt8]>([])
    private let descriptor: Int32
    public let enabled: Bool

    public init(descriptor: Int32 = 2, enabled: Bool = true) {
        self.descriptor = descriptor
        self.enabled = enabled
    }

    /// `fields` are written as `key=value`, quoting values that need it.
    public func log(_ fields: KeyValuePairs<String, String>) {
        guard enabled else { return }
        var line: [UInt8] = []
        line.reserveCapacity(128)
        for (key, value) in fields {
            if !line.isEmpty { line.append(0x20) }
            line += key.utf8
            line.append(0x3D)
            if Self.needsQuotes(value) {
                line += Self.quoted(value).utf8
            } else {
                line += value.utf8
            }
        }
        line.append(0x0A)
        buffer.withLock { $0 += line }
    }

    /// Writes what has been collected. Called by the loops; also safe anywhere.
    public func flush() {
        let pending = buffer.withLock { bytes -> [UInt8] in
            if bytes.isEmpty { return [] }
            defer { bytes.removeAll(keepingCapacity: true) }
            return bytes
        }
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }

    static func needsQuotes(_ value: String) -> Bool {
        value.isEmpty || value.utf8.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
    }

    /// logfmt quoting, not JSON's (that is `JSONString`, in a module the
    /// engine does not depend on): control characters and DEL come out as
    /// `\u{…}`, so a hostile value can neither break the line nor send the
    /// terminal an escape sequence.
    static func quoted(_ value: String) -> String {
        guard needsQuotes(value) else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

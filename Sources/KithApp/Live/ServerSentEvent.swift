/// One event in the `text/event-stream` format (WHATWG HTML §9.2). Every line
/// of a multi-line payload gets its own `data:` prefix, and no field may carry
/// a bare CR or LF that would end it early.
struct ServerSentEvent: Sendable {
    var id: String?
    var event: String?
    var data: String

    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.utf8.count + 64)
        if let id { Self.field("id", Self.singleLine(id), into: &out) }
        if let event { Self.field("event", Self.singleLine(event), into: &out) }
        // Split on CRLF, CR and LF alike: the parser on the other side does.
        var line: [UInt8] = []
        var previousWasCR = false
        for byte in data.utf8 {
            if byte == 0x0A && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                Self.field("data", line, into: &out)
                line.removeAll(keepingCapacity: true)
            } else {
                line.append(byte)
            }
        }
        Self.field("data", line, into: &out)
        out.append(0x0A)
        return out
    }

    /// A comment line: ignored by clients, keeps proxies from timing out.
    static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)

    private static func field(_ name: String, _ value: [UInt8], into out: inout [UInt8]) {
        out += name.utf8
        out += [0x3A, 0x20]
        out += value
        out.append(0x0A)
    }

    private static func singleLine(_ text: String) -> [UInt8] {
        text.utf8.filter { $0 != 0x0A && $0 != 0x0D }
    }
}

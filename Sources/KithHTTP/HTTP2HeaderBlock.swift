import CNghttp2

/// A response's header fields as nghttp2 takes them: every name and value
/// side by side in one buffer, with their spans. Fields known ahead of time
/// (a static asset's, the connection's) are kept as blocks and joined with
/// one copy, so a response costs no String work for them.
struct HTTP2HeaderBlock: Sendable {
    private var bytes: [UInt8] = []
    private var spans: [Span] = []

    private struct Span {
        let name: Int
        let nameLength: Int
        let valueLength: Int
    }

    init() {}

    init(_ fields: [(name: String, value: String)]) {
        for field in fields { add(field.name.lowercased(), field.value) }
    }

    var isEmpty: Bool { spans.isEmpty }

    mutating func reserve(bytes byteCount: Int, fields: Int) {
        bytes.reserveCapacity(byteCount)
        spans.reserveCapacity(fields)
    }

    /// Adds a field whose name is already lower-case, as HTTP/2 requires.
    mutating func add(_ name: String, _ value: String) {
        let start = bytes.count
        var name = name
        var value = value
        name.withUTF8 { bytes.append(contentsOf: $0) }
        value.withUTF8 { bytes.append(contentsOf: $0) }
        let nameLength = name.utf8.count
        spans.append(Span(name: start, nameLength: nameLength, valueLength: bytes.count - start - nameLength))
    }

    mutating func add(_ other: HTTP2HeaderBlock) {
        let shift = bytes.count
        bytes.append(contentsOf: other.bytes)
        for span in other.spans {
            spans.append(Span(name: span.name + shift, nameLength: span.nameLength, valueLength: span.valueLength))
        }
    }

    /// The fields as nghttp2's name/value array, valid only inside `body`
    /// (nghttp2 copies what it keeps).
    func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeMutablePointer(mutating: buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!)
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: max(spans.count, 1)) { nva in
                for (index, span) in spans.enumerated() {
                    nva.initializeElement(
                        at: index,
                        to: nghttp2_nv(
                            name: base + span.name, value: base + span.name + span.nameLength,
                            namelen: span.nameLength, valuelen: span.valueLength,
                            flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
                }
                return body(nva.baseAddress!, spans.count)
            }
        }
    }
}

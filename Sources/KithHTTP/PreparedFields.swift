/// Response fields serialized ahead of time for both protocols from one
/// list: the HTTP/1.1 lines and the lower-cased HTTP/2 pairs can then never
/// disagree, and neither is parsed back out of the other per request.
public struct PreparedFields: Sendable {
    public static let none = PreparedFields([])

    /// `Name: value\r\n` for each field, in order.
    let lines: [UInt8]
    /// The same fields for HTTP/2, names lower-cased.
    let block: HTTP2HeaderBlock

    public init(_ fields: [(name: String, value: String)]) {
        lines = Array(fields.map { "\($0.name): \($0.value)\r\n" }.joined().utf8)
        block = HTTP2HeaderBlock(fields)
    }
}

/// A field every response on a connection gets unless the handler set its
/// own: the configured security headers, and under TLS
/// `Strict-Transport-Security`. Built once per server, in both forms.
struct ConnectionField: Sendable {
    /// As configured, for the `HTTPHeaders.contains` check.
    let name: String
    let line: [UInt8]
    let block: HTTP2HeaderBlock

    init(name: String, value: String) {
        self.name = name
        line = Array("\(name): \(value)\r\n".utf8)
        block = HTTP2HeaderBlock([(name, value)])
    }
}

/// The fields responses on one kind of connection get, by the response's
/// kind: the one decision both protocols' head writers take.
struct ConnectionFields: Sendable {
    let document: [ConnectionField]
    let subresource: [ConnectionField]

    subscript(kind: Response.Kind) -> [ConnectionField] {
        switch kind {
        case .document: document
        case .subresource: subresource
        }
    }

    /// For plain connections and for TLS ones, which add `Strict-Transport-Security`
    /// to every response: it is about the host, whatever the response.
    static func forConnections(_ configuration: ServerConfiguration) -> (plain: ConnectionFields, secure: ConnectionFields) {
        func fields(_ headers: HTTPHeaders) -> [ConnectionField] {
            headers.map { ConnectionField(name: $0.name, value: $0.value) }
        }
        let every = fields(configuration.defaultHeaders)
        let documentOnly = fields(configuration.documentHeaders)
        let strict = configuration.tls?.strictTransportSecurity.map {
            ConnectionField(name: "Strict-Transport-Security", value: $0)
        }
        let secureEvery = every + (strict.map { [$0] } ?? [])
        return (
            ConnectionFields(document: documentOnly + every, subresource: every),
            ConnectionFields(document: documentOnly + secureEvery, subresource: secureEvery)
        )
    }
}

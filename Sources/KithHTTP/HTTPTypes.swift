/// The request method, as the token the client sent. Methods are case-sensitive
/// (RFC 9110 §9.1), so `get` is not `GET`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    public var description: String { rawValue }
    /// Safe methods change nothing, so they need no CSRF check.
    public var isSafe: Bool { self == .get || self == .head || self == .options }
}

public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
    public let code: Int
    public let reason: String
    public init(_ code: Int, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static let `continue` = HTTPStatus(100, "Continue")
    public static let ok = HTTPStatus(200, "OK")
    public static let created = HTTPStatus(201, "Created")
    public static let noContent = HTTPStatus(204, "No Content")
    public static let partialContent = HTTPStatus(206, "Partial Content")
    public static let movedPermanently = HTTPStatus(301, "Moved Permanently")
    public static let found = HTTPStatus(302, "Found")
    public static let seeOther = HTTPStatus(303, "See Other")
    public static let notModified = HTTPStatus(304, "Not Modified")
    public static let badRequest = HTTPStatus(400, "Bad Request")
    public static let unauthorized = HTTPStatus(401, "Unauthorized")
    public static let forbidden = HTTPStatus(403, "Forbidden")
    public static let notFound = HTTPStatus(404, "Not Found")
    public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
    public static let requestTimeout = HTTPStatus(408, "Request Timeout")
    public static let conflict = HTTPStatus(409, "Conflict")
    public static let gone = HTTPStatus(410, "Gone")
    public static let lengthRequired = HTTPStatus(411, "Length Required")
    public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
    public static let uriTooLong = HTTPStatus(414, "URI Too Long")
    public static let unsupportedMediaType = HTTPStatus(415, "Unsupported Media Type")
    public static let rangeNotSatisfiable = HTTPStatus(416, "Range Not Satisfiable")
    public static let expectationFailed = HTTPStatus(417, "Expectation Failed")
    public static let unprocessableContent = HTTPStatus(422, "Unprocessable Content")
    public static let tooManyRequests = HTTPStatus(429, "Too Many Requests")
    public static let headerFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
    public static let internalServerError = HTTPStatus(500, "Internal Server Error")
    public static let notImplemented = HTTPStatus(501, "Not Implemented")
    public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
    public static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")

    public var description: String { "\(code) \(reason)" }

    public var isRedirection: Bool { (300..<400).contains(code) }
}

/// Header fields in arrival order. Names compare case-insensitively; the
/// parser has already rejected names and values that are not valid tokens or
/// field content, so nothing here needs re-checking.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)]

    public init() { fields = [] }
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every field of that name with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name, value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.equal($0.name, name) }
    }

    /// The first value of that name.
    public subscript(name: String) -> String? {
        for field in fields where Self.equal(field.name, name) { return field.value }
        return nil
    }

    @usableFromInline
    static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c | 0x20 : c }

    public func values(_ name: String) -> [String] {
        fields.filter { Self.equal($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison without allocating.
    @inlinable
    public static func equal(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        return x.elementsEqual(y) { $0 == $1 || lower($0) == lower($1) }
    }
}

/// How the body of a request is delimited (RFC 9112 §6).
public enum BodyFraming: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
}

/// Everything before the body, as the parser (or an HTTP/2 stream) made it.
///
/// The fields live in one immutable box: a head passes from the parser to
/// the exchange, the request and its handler, and a struct of strings and an
/// array cost a reference-count operation per field at every copy.
public struct RequestHead: Sendable {
    @usableFromInline
    final class Storage: Sendable {
        @usableFromInline let method: HTTPMethod
        @usableFromInline let target: String
        @usableFromInline let path: String
        @usableFromInline let query: String?
        @usableFromInline let minorVersion: Int
        @usableFromInline let headers: HTTPHeaders
        @usableFromInline let framing: BodyFraming
        @usableFromInline let keepAlive: Bool
        @usableFromInline let expectsContinue: Bool

        init(
            method: HTTPMethod, target: String, path: String, query: String?, minorVersion: Int,
            headers: HTTPHeaders, framing: BodyFraming, keepAlive: Bool, expectsContinue: Bool
        ) {
            self.method = method
            self.target = target
            self.path = path
            self.query = query
            self.minorVersion = minorVersion
            self.headers = headers
            self.framing = framing
            self.keepAlive = keepAlive
            self.expectsContinue = expectsContinue
        }
    }

    @usableFromInline let storage: Storage

    @inlinable public var method: HTTPMethod { storage.method }
    /// The request target exactly as sent (origin form, or `*`, or absolute form).
    @inlinable public var target: String { storage.target }
    /// The path part of the target, still percent-encoded.
    @inlinable public var path: String { storage.path }
    /// The query part after `?`, still percent-encoded; nil when there is no `?`.
    @inlinable public var query: String? { storage.query }
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    @inlinable public var minorVersion: Int { storage.minorVersion }
    @inlinable public var headers: HTTPHeaders { storage.headers }
    @inlinable public var framing: BodyFraming { storage.framing }
    /// Whether the connection may serve another request after this one.
    @inlinable public var keepAlive: Bool { storage.keepAlive }
    /// `Expect: 100-continue` was sent.
    @inlinable public var expectsContinue: Bool { storage.expectsContinue }

    public init(
        method: HTTPMethod, target: String, path: String, query: String?, minorVersion: Int,
        headers: HTTPHeaders, framing: BodyFraming, keepAlive: Bool, expectsContinue: Bool
    ) {
        storage = Storage(
            method: method, target: target, path: path, query: query, minorVersion: minorVersion,
            headers: headers, framing: framing, keepAlive: keepAlive, expectsContinue: expectsContinue)
    }
}

/// Why a request could not be parsed. Every case ends the connection: after a
/// framing error the server cannot know where the next request would start.
public struct HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPStatus
    /// A short public explanation, shown on the error page.
    public var message: String

    public init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(status.code) \(message)" }
}

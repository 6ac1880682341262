/// A complete request as a handler sees it: the head, the matched route's
/// parameters, and the body already read (forms parsed, uploads on disk).
public struct Request: Sendable {
    public var head: RequestHead
    /// The route that matched, for logs and for building URLs.
    public var route: Route
    public var parameters: PathParameters
    /// The decoded query string.
    public var query: FormData
    /// Form fields and uploaded files from an urlencoded or multipart body.
    public var form: FormData
    /// The raw body for any other content type (empty for forms).
    public var body: [UInt8]
    /// The peer's address as text ("127.0.0.1", "::1").
    public var remoteAddress: String
    /// Where the deciding router keeps this route's handler; -1 when unknown.
    var routeIndex = -1

    public init(
        head: RequestHead, route: Route, parameters: PathParameters = PathParameters(),
        query: FormData = FormData(), form: FormData = FormData(), body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.head = head
        self.route = route
        self.parameters = parameters
        self.query = query
        self.form = form
        self.body = body
        self.remoteAddress = remoteAddress
    }

    public var method: HTTPMethod { head.method }
    public var path: String { head.path }
    public var headers: HTTPHeaders { head.headers }

    /// Cookies from every `Cookie` header; the first of a name wins.
    public var cookies: [String: String] {
        var all: [String: String] = [:]
        for header in head.headers.values("Cookie") {
            for (name, value) in Cookies.parse(header) where all[name] == nil { all[name] = value }
        }
        return all
    }

    /// A typed path parameter; a value that does not parse is a 404, since
    /// `/tallies/abc` names no tally.
    public func parameter<T: PathParameter>(_ name: String, as type: T.Type = T.self) throws(HTTPError) -> T {
        guard let text = parameters[name], let value = T(pathComponent: text) else { throw .notFound() }
        return value
    }
}

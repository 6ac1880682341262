/// A complete request as a handler sees it: the head, the matched route's
/// parameters, and the body already read (forms parsed, uploads on disk).
///
/// Immutable once built, and held in one shared box: a request passes from
/// the I/O thread to a worker, into the app's context and its helpers, and as
/// a plain struct of a dozen strings and arrays each of those copies cost a
/// reference-count operation per field.
public struct Request: Sendable {
    @usableFromInline
    final class Storage: Sendable {
        @usableFromInline let head: RequestHead
        @usableFromInline let route: Route
        @usableFromInline let parameters: PathParameters
        @usableFromInline let query: FormData
        @usableFromInline let form: FormData
        @usableFromInline let body: [UInt8]
        @usableFromInline let remoteAddress: String
        let routeIndex: Int

        init(
            head: RequestHead, route: Route, parameters: PathParameters, query: FormData, form: FormData, body: [UInt8],
            remoteAddress: String, routeIndex: Int
        ) {
            self.head = head
            self.route = route
            self.parameters = parameters
            self.query = query
            self.form = form
            self.body = body
            self.remoteAddress = remoteAddress
            self.routeIndex = routeIndex
        }
    }

    @usableFromInline let storage: Storage

    @inlinable public var head: RequestHead { storage.head }
    /// The route that matched, for logs and for building URLs.
    @inlinable public var route: Route { storage.route }
    @inlinable public var parameters: PathParameters { storage.parameters }
    /// The decoded query string.
    @inlinable public var query: FormData { storage.query }
    /// Form fields and uploaded files from an urlencoded or multipart body.
    @inlinable public var form: FormData { storage.form }
    /// The raw body for any other content type (empty for forms).
    @inlinable public var body: [UInt8] { storage.body }
    /// The peer's address as text ("127.0.0.1", "::1").
    @inlinable public var remoteAddress: String { storage.remoteAddress }
    /// Where the deciding router keeps this route's handler; -1 when unknown.
    var routeIndex: Int { storage.routeIndex }

    public init(
        head: RequestHead, route: Route, parameters: PathParameters = PathParameters(),
        query: FormData = FormData(), form: FormData = FormData(), body: [UInt8] = [], remoteAddress: String = ""
    ) {
        self.init(head: head, route: route, parameters: parameters, query: query, form: form, body: body, remoteAddress: remoteAddress, routeIndex: -1)
    }

    init(
        head: RequestHead, route: Route, parameters: PathParameters, query: FormData, form: FormData, body: [UInt8],
        remoteAddress: String, routeIndex: Int
    ) {
        storage = Storage(
            head: head, route: route, parameters: parameters, query: query, form: form, body: body,
            remoteAddress: remoteAddress, routeIndex: routeIndex)
    }

    @inlinable public var method: HTTPMethod { storage.head.method }
    @inlinable public var path: String { storage.head.path }
    @inlinable public var headers: HTTPHeaders { storage.head.headers }

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

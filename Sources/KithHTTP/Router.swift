/// A value that can stand in one path segment, in both directions: parsed
/// from a request and written into a URL.
public protocol PathParameter: Sendable {
    init?(pathComponent: String)
    var pathComponent: String { get }
}

extension Int64: PathParameter {
    public init?(pathComponent: String) {
        // Only canonical decimal: `/t/007` and `/t/+7` are not tally 7.
        guard let value = Int64(pathComponent), value >= 0, String(value) == pathComponent else { return nil }
        self = value
    }
    public var pathComponent: String { String(self) }
}

extension Int: PathParameter {
    public init?(pathComponent: String) {
        guard let value = Int64(pathComponent: pathComponent), let narrowed = Int(exactly: value) else { return nil }
        self = narrowed
    }
    public var pathComponent: String { String(self) }
}

extension String: PathParameter {
    public init?(pathComponent: String) {
        guard !pathComponent.isEmpty else { return nil }
        self = pathComponent
    }
    public var pathComponent: String { PercentEncoding.encodePathSegment(self) }
}

/// `/occasions/:occasion/gifts/:gift`: literal segments and named parameters.
/// A final `*name` segment captures the rest of the path.
public struct RoutePattern: Sendable, Hashable, CustomStringConvertible {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    public let segments: [Segment]
    public let description: String

    public init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "a route pattern starts with /: \(pattern)")
        description = pattern
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        segments = parts.enumerated().map { index, part in
            if part.hasPrefix(":") { return .parameter(String(part.dropFirst())) }
            if part.hasPrefix("*") {
                precondition(index == parts.count - 1, "a *rest segment must be last: \(pattern)")
                return .rest(String(part.dropFirst()))
            }
            return .literal(String(part))
        }
    }

    public var parameterNames: [String] {
        segments.compactMap {
            switch $0 {
            case .parameter(let name), .rest(let name): name
            case .literal: nil
            }
        }
    }

    /// Matches already-split, percent-decoded segments.
    func match(_ path: [String]) -> PathParameters? {
        var parameters = PathParameters()
        var index = 0
        for segment in segments {
            switch segment {
            case .literal(let text):
                guard index < path.count, path[index] == text else { return nil }
            case .parameter(let name):
                guard index < path.count else { return nil }
                parameters.values.append((name, path[index]))
            case .rest(let name):
                guard index < path.count else { return nil }
                // Joined by hand: the generic `joined(separator:)` walked
                // the segments unspecialized, at a cost above the rest of routing.
                var rest = path[index]
                for segment in path[(index + 1)...] {
                    rest += "/"
                    rest += segment
                }
                parameters.values.append((name, rest))
                return parameters
            }
            index += 1
        }
        return index == path.count ? parameters : nil
    }

    /// Builds a path from values in parameter order. A wrong count is a bug in
    /// the caller, caught by the first test that renders the link.
    public func path(_ values: [any PathParameter]) -> String {
        precondition(values.count == parameterNames.count, "\(description) takes \(parameterNames.count) parameters")
        if segments.isEmpty { return "/" }
        var result = ""
        var next = values.makeIterator()
        for segment in segments {
            result += "/"
            switch segment {
            case .literal(let text): result += text
            case .parameter, .rest: result += next.next()!.pathComponent
            }
        }
        return result
    }
}

public struct PathParameters: Sendable {
    public var values: [(name: String, value: String)] = []
    public init() {}
    public subscript(name: String) -> String? { values.first { $0.name == name }?.value }
}

/// How much body a route accepts and in what shape. The engine enforces it
/// while reading, before any handler runs: an oversized body is answered 413
/// without being read.
public struct BodyPolicy: Sendable {
    /// Total bytes of body accepted.
    public var maxBytes: Int
    /// Bytes held in memory: an urlencoded or raw body whole, the text fields
    /// of a multipart one. Small on every route, so that a body nobody will
    /// read cannot cost the server its memory.
    public var maxBufferedBytes: Int
    /// Whether multipart file parts are accepted (streamed to disk), and how large each may be.
    public var maxFileBytes: Int
    public var maxFiles: Int
    /// Whether a route that takes files also takes an urlencoded form (a
    /// form whose file is optional). Otherwise such a route answers 415 to
    /// anything but multipart, before reading.
    public var acceptsURLEncoded: Bool

    /// The in-memory ceiling of every route that does not name its own.
    public static let defaultBufferedBytes = 64 * 1024

    public init(
        maxBytes: Int, maxBufferedBytes: Int? = nil, maxFileBytes: Int = 0, maxFiles: Int = 0, acceptsURLEncoded: Bool? = nil
    ) {
        self.maxBytes = maxBytes
        self.acceptsURLEncoded = acceptsURLEncoded ?? (maxFileBytes == 0)
        self.maxBufferedBytes = min(maxBytes, maxBufferedBytes ?? Self.defaultBufferedBytes)
        self.maxFileBytes = maxFileBytes
        self.maxFiles = maxFiles
    }

    public static let none = BodyPolicy(maxBytes: 0)
    /// An ordinary form: fields only.
    public static let form = BodyPolicy(maxBytes: defaultBufferedBytes)
    /// A form with one long text, such as a letter of 20,000 characters in a
    /// script that percent-encodes to 6–12 bytes a character.
    public static let longForm = BodyPolicy(maxBytes: 256 * 1024, maxBufferedBytes: 256 * 1024)
    /// Files streamed to disk (multipart only), with small text fields beside them.
    public static func uploads(maxFileBytes: Int, maxFiles: Int = 20, acceptsURLEncoded: Bool = false) -> BodyPolicy {
        BodyPolicy(
            maxBytes: maxFileBytes * maxFiles + 1024 * 1024, maxFileBytes: maxFileBytes, maxFiles: maxFiles,
            acceptsURLEncoded: acceptsURLEncoded)
    }
}

/// A route as data: method, pattern, how it reads its body, and where it runs.
/// Features declare their routes as static values and build every link with
/// `path(...)`, so a link can never drift from the route that serves it.
public struct Route: Sendable, Hashable, CustomStringConvertible {
    public let method: HTTPMethod
    public let pattern: RoutePattern
    public let body: BodyPolicy
    /// Cheap, non-blocking handlers (static files, health checks) may run on
    /// the I/O thread and skip the hop to the worker pool.
    public let runsInline: Bool

    public init(_ method: HTTPMethod, _ pattern: String, body: BodyPolicy? = nil, runsInline: Bool = false) {
        self.method = method
        self.pattern = RoutePattern(pattern)
        self.body = body ?? (method.isSafe ? .none : .form)
        self.runsInline = runsInline
    }

    public func path(_ values: any PathParameter...) -> String { pattern.path(values) }

    public var description: String { "\(method) \(pattern)" }

    public static func == (a: Route, b: Route) -> Bool { a.method == b.method && a.pattern == b.pattern }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(pattern)
    }
}

/// What the router decided for a request head, before its body is read.
public enum RouteDecision: Sendable {
    /// `index` identifies the handler inside the router that decided, so
    /// dispatch needs no second lookup.
    case matched(Route, PathParameters, index: Int)
    /// The path exists under other methods.
    case methodNotAllowed(allowed: [HTTPMethod])
    case notFound
    /// The target could not be decoded (bad percent-escapes, invalid UTF-8).
    case badPath
}

/// Routes are matched in one place, `decide`, which tries every route in
/// registration order and takes the first whose pattern and method match, so
/// a literal route (`/occasions/new`) is registered before a parameter that
/// would also match it (`/occasions/:occasion`). A path that matches only
/// under other methods is a 405 naming them; the fallback is tried last, for
/// GET and HEAD alone. A linear walk is plenty for an app's hundred-odd
/// routes, and leaves registration order as the one rule to know.
public final class Router<Context: Sendable>: @unchecked Sendable {
    public typealias Handler = @Sendable (inout Context) throws -> Response

    private struct Entry {
        let route: Route
        let handler: Handler
    }

    private var entries: [Entry] = []
    /// The routes in registration order, matched without the `Context`
    /// parameter: generic code called from another module runs unspecialized,
    /// looking up type metadata at every step of the walk.
    private var table = RouteTable()
    private var handlers: [Route: Handler] = [:]
    private let makeContext: @Sendable (Request) throws -> Context
    private let finish: @Sendable (Context, inout Response) -> Void

    /// `makeContext` turns a request into the app's per-request context
    /// (session, user, CSRF token); it runs on the handler's thread, and a
    /// throw from it (a refused CSRF check) means no handler runs. `finish`
    /// sees the context again with the handler's response (to add cookies).
    public init(
        makeContext: @escaping @Sendable (Request) throws -> Context,
        finish: @escaping @Sendable (Context, inout Response) -> Void = { _, _ in }
    ) {
        self.makeContext = makeContext
        self.finish = finish
    }

    /// Registration happens before the server starts; afterwards the table is
    /// read-only, which is why the class may be shared across threads.
    public func on(_ route: Route, _ handler: @escaping Handler) {
        precondition(!entries.contains { $0.route == route }, "route registered twice: \(route)")
        entries.append(Entry(route: route, handler: handler))
        table.routes.append(route)
        handlers[route] = handler
    }

    /// Answers GET and HEAD requests for paths no route has, on a worker
    /// like any handler (a 404 page that can still show who is signed in).
    /// Its pattern is only for logs; it is consulted after every other route,
    /// whenever they were registered.
    public func fallback(_ route: Route, _ handler: @escaping Handler) {
        on(route, handler)
        table.fallbackIndex = entries.count - 1
    }

    public var routes: [Route] { table.routes }

    public func decide(method: HTTPMethod, path: String) -> RouteDecision { table.decide(method: method, path: path) }

    public func handle(_ request: Request) throws -> Response {
        let handler: Handler
        if entries.indices.contains(request.routeIndex) {
            handler = entries[request.routeIndex].handler
        } else if let found = handlers[request.route] {
            handler = found
        } else {
            throw HTTPError.notFound()
        }
        var context = try makeContext(request)
        var response = try handler(&context)
        finish(context, &response)
        return response
    }

}

/// What `Router.decide` walks: the routes alone, in registration order.
struct RouteTable: Sendable {
    var routes: [Route] = []
    /// The route that answers a GET (or HEAD) no route matches.
    var fallbackIndex: Int?

    func decide(method: HTTPMethod, path: String) -> RouteDecision {
        guard let segments = Self.segments(of: path) else { return .badPath }
        var allowed: [HTTPMethod] = []
        // GET answers HEAD unless the path has an explicit HEAD route.
        var getForHead: RouteDecision?
        for index in routes.indices where index != fallbackIndex {
            let route = routes[index]
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == method { return .matched(route, parameters, index: index) }
            if method == .head, route.method == .get, getForHead == nil {
                getForHead = .matched(route, parameters, index: index)
            }
            allowed.append(route.method)
        }
        if let getForHead { return getForHead }
        if allowed.isEmpty {
            if let fallbackIndex, method == .get || method == .head {
                return .matched(routes[fallbackIndex], PathParameters(), index: fallbackIndex)
            }
            return .notFound
        }
        if allowed.contains(.get) && !allowed.contains(.head) { allowed.append(.head) }
        return .methodNotAllowed(allowed: allowed)
    }

    /// Splits and percent-decodes a path; `nil` when it cannot be decoded.
    /// Dot segments are refused outright rather than resolved: no Kith URL has one.
    static func segments(of path: String) -> [String]? {
        var path = path
        return path.withUTF8 { bytes -> [String]? in
            var result: [String] = []
            result.reserveCapacity(4)
            // Bytes, not Characters: grapheme breaking was most of the cost of
            // serving a static file, and a byte check refuses at least as much.
            var start = 0
            while start < bytes.count {
                var end = start
                var escaped = false
                while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
                    if bytes[end] == UInt8(ascii: "%") { escaped = true }
                    end += 1
                }
                defer { start = end + 1 }
                if end == start { continue }
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if escaped {
                    guard let decoded = try? PercentDecoding.decodePathSegment(raw) else { return nil }
                    if decoded == "." || decoded == ".." || decoded.utf8.contains(UInt8(ascii: "/")) || decoded.utf8.contains(0) { return nil }
                    result.append(decoded)
                } else {
                    // Nothing to decode, and no "/" inside by construction; a
                    // NUL or a dot segment is refused from the bytes. They are
                    // a slice of a String, so already valid UTF-8.
                    if raw.contains(0) || raw.allSatisfy({ $0 == UInt8(ascii: ".") }) && raw.count <= 2 { return nil }
                    result.append(String(decoding: raw, as: UTF8.self))
                }
            }
            return result
        }
    }
}

extension Router {
    /// Runs the matched handler and never throws: an `HTTPError` becomes its
    /// own page; anything else becomes a 500 whose cause goes only to `log`.
    public func respond(
        to request: Request, errorResponse: (HTTPError) -> Response,
        log: (_ cause: any Error, _ status: HTTPStatus) -> Void = { _, _ in }
    ) -> Response {
        do {
            return try handle(request)
        } catch let error as HTTPError {
            if let cause = error.cause { log(cause, error.status) }
            return errorResponse(error)
        } catch {
            log(error, .internalServerError)
            return errorResponse(.internal(error))
        }
    }
}

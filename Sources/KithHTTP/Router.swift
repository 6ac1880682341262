import Glibc

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
    /// The segments as the matcher reads them: literals as UTF-8.
    let compiled: [CompiledSegment]

    enum CompiledSegment: Sendable, Hashable {
        case literal([UInt8])
        case parameter(String)
        case rest(String)
    }

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
        compiled = segments.map {
            switch $0 {
            case .literal(let text): .literal(Array(text.utf8))
            case .parameter(let name): .parameter(name)
            case .rest(let name): .rest(name)
            }
        }
    }

    public static func == (a: RoutePattern, b: RoutePattern) -> Bool { a.segments == b.segments }
    public func hash(into hasher: inout Hasher) { hasher.combine(segments) }

    public var parameterNames: [String] {
        segments.compactMap {
            switch $0 {
            case .parameter(let name), .rest(let name): name
            case .literal: nil
            }
        }
    }

    /// Matches a split, percent-decoded path; parameters become strings
    /// only once the whole pattern has matched.
    func match(_ path: SplitPath) -> PathParameters? {
        var index = 0
        for segment in compiled {
            switch segment {
            case .literal(let text):
                guard index < path.count, path.equals(index, text) else { return nil }
            case .parameter, .rest:
                guard index < path.count else { return nil }
                if case .rest = segment { index = path.count - 1 }
            }
            index += 1
        }
        guard index == path.count else { return nil }
        var parameters = PathParameters()
        index = 0
        for segment in compiled {
            switch segment {
            case .literal: break
            case .parameter(let name): parameters.append(name, path.string(index))
            case .rest(let name): parameters.append(name, path.string(from: index))
            }
            index += 1
        }
        return parameters
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

/// The values a route's pattern took from a path, by parameter name.
///
/// Kith's routes take one or two parameters. Those are held inline, so a
/// match allocates nothing beyond the values' own strings; more go in an array.
public struct PathParameters: Sendable {
    private var first: (name: String, value: String)?
    private var second: (name: String, value: String)?
    private var rest: [(name: String, value: String)] = []

    public init() {}

    /// In the order the pattern names them.
    public var values: [(name: String, value: String)] {
        [first, second].compactMap { $0 } + rest
    }

    public subscript(name: String) -> String? {
        if let first, first.name == name { return first.value }
        if let second, second.name == name { return second.value }
        return rest.first { $0.name == name }?.value
    }

    mutating func append(_ name: String, _ value: String) {
        if first == nil {
            first = (name, value)
        } else if second == nil {
            second = (name, value)
        } else {
            rest.append((name, value))
        }
    }
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
///
/// A class, though immutable and compared by value: every request carries its
/// route from the router to the handler, and a struct of strings and arrays
/// cost a dozen reference-count operations at each of those copies.
public final class Route: Sendable, Hashable, CustomStringConvertible {
    public let method: HTTPMethod
    public let pattern: RoutePattern
    public let body: BodyPolicy
    /// Handlers of bounded work that never wait on another thread (static
    /// files, health checks, a read from the database's reader pool) may run
    /// on the I/O thread and skip the hop to the worker pool: a futex wake,
    /// two context switches and an eventfd write per request. A database
    /// write there stops the program (`LoopThread`).
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

/// Routes are matched in one place, `decide`, which tries the routes in
/// registration order and takes the first whose pattern and method match, so
/// a literal route (`/occasions/new`) is registered before a parameter that
/// would also match it (`/occasions/:occasion`). A path that matches only
/// under other methods is a 405 naming them; the fallback is tried last, for
/// GET and HEAD alone. Only the routes that could match the path's first
/// segment are tried (`RouteTable`), which keeps registration order as the
/// one rule to know.
public final class Router<Context: Sendable>: @unchecked Sendable {
    public typealias Handler = @Sendable (inout Context) throws -> Response
    /// A handler with the context made and finished around it. Stored in this
    /// form so that looking one up needs no generic type at run time: the
    /// router's code is not specialized for the app's `Context`, and a
    /// `[Handler]` cost a metadata lookup on every request.
    typealias Run = @Sendable (Request) throws -> Response

    /// The handlers in registration order, beside `table.routes`.
    private var runs: [Run] = []
    /// The routes in registration order, matched without the `Context`
    /// parameter, for the same reason.
    private let table = RouteTable()
    private var byRoute: [Route: Int] = [:]
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
        precondition(byRoute[route] == nil, "route registered twice: \(route)")
        let makeContext = makeContext
        let finish = finish
        runs.append { request in
            var context = try makeContext(request)
            var response = try handler(&context)
            finish(context, &response)
            return response
        }
        byRoute[route] = table.routes.count
        table.append(route)
    }

    /// Answers GET and HEAD requests for paths no route has, on a worker
    /// like any handler (a 404 page that can still show who is signed in).
    /// Its pattern is only for logs; it is consulted after every other route,
    /// whenever they were registered.
    public func fallback(_ route: Route, _ handler: @escaping Handler) {
        on(route, handler)
        table.fallbackIndex = table.routes.count - 1
    }

    public var routes: [Route] { table.routes }

    public func decide(method: HTTPMethod, path: String) -> RouteDecision { table.decide(method: method, path: path) }

    public func handle(_ request: Request) throws -> Response {
        var index = request.routeIndex
        if index < 0 || index >= runs.count {
            guard let found = byRoute[request.route] else { throw HTTPError.notFound() }
            index = found
        }
        return try runs[index](request)
    }

}

/// What `Router.decide` walks: the routes alone, in registration order,
/// indexed by their first segment so that a path is tried only against the
/// routes that could match it. The index keeps registration order, which
/// stays the one rule: the candidates for `/occasions/…` are every route
/// starting `/occasions/` and every route starting with a parameter, merged
/// in the order they were registered.
///
/// A class, filled before the server starts and only read afterwards (as its
/// `Router` is), so that matching, which runs in closures over the split
/// path, captures one reference rather than copying five arrays.
final class RouteTable: @unchecked Sendable {
    private(set) var routes: [Route] = []
    /// The route that answers a GET (or HEAD) no route matches.
    var fallbackIndex: Int?
    /// Each distinct first literal, as UTF-8, beside its candidates. A short
    /// list compared by length and bytes: no string is made to look one up.
    private var firstLiterals: [[UInt8]] = []
    private var firstLiteralCandidates: [[Int]] = []
    /// Routes that start with a parameter or `*rest`: the candidates for a
    /// path whose first segment no literal route has.
    private var parameterFirst: [Int] = []
    /// Routes of no segments (`/`).
    private var root: [Int] = []

    func append(_ route: Route) {
        let index = routes.count
        routes.append(route)
        switch route.pattern.compiled.first {
        case nil:
            root.append(index)
        case .literal(let literal)?:
            if let slot = firstLiterals.firstIndex(of: literal) {
                firstLiteralCandidates[slot].append(index)
            } else {
                firstLiterals.append(literal)
                firstLiteralCandidates.append(parameterFirst + [index])
            }
        case .parameter?, .rest?:
            parameterFirst.append(index)
            for slot in firstLiteralCandidates.indices { firstLiteralCandidates[slot].append(index) }
        }
    }

    func decide(method: HTTPMethod, path: String) -> RouteDecision {
        SplitPath.withSegments(of: path) { split -> RouteDecision in
            guard let split else { return .badPath }
            return decide(method: method, split)
        }
    }

    private func candidates(_ path: SplitPath) -> [Int] {
        guard path.count > 0 else { return root }
        for slot in firstLiterals.indices where path.equals(0, firstLiterals[slot]) { return firstLiteralCandidates[slot] }
        return parameterFirst
    }

    private func decide(method: HTTPMethod, _ path: SplitPath) -> RouteDecision {
        var allowed: [HTTPMethod] = []
        // GET answers HEAD unless the path has an explicit HEAD route.
        var getForHead: RouteDecision?
        for index in candidates(path) where index != fallbackIndex {
            let route = routes[index]
            guard let parameters = route.pattern.match(path) else { continue }
            if route.method == method { return .matched(route, parameters, index: index) }
            if method == .head, route.method == .get, getForHead == nil {
                getForHead = .matched(route, parameters, index: index)
            }
            // Two routes of one method can match (a literal and a parameter): Allow names it once.
            if !allowed.contains(route.method) { allowed.append(route.method) }
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
}

/// A request path split on `/` and percent-decoded, as byte ranges: the
/// router compares literals byte for byte and makes strings only of the
/// parameters of the route that matched. Valid only inside `withSegments`.
struct SplitPath {
    /// The decoded bytes: the path itself when nothing in it is escaped.
    let bytes: UnsafeBufferPointer<UInt8>
    let ranges: UnsafeMutableBufferPointer<Range<Int>>
    let count: Int

    func equals(_ index: Int, _ literal: [UInt8]) -> Bool {
        let range = ranges[index]
        guard range.count == literal.count else { return false }
        return literal.withUnsafeBufferPointer { memcmp($0.baseAddress!, bytes.baseAddress! + range.lowerBound, range.count) == 0 }
    }

    /// Segments were valid UTF-8 when split (a slice of a String between
    /// slashes, or text the decoder checked), so no repair happens here.
    func string(_ index: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[ranges[index]]), as: UTF8.self)
    }

    /// Segments from `index` to the end, joined by single slashes.
    func string(from index: Int) -> String {
        if index == count - 1 { return string(index) }
        var length = count - index - 1
        for segment in index..<count { length += ranges[segment].count }
        return String(unsafeUninitializedCapacity: length) { buffer in
            var written = 0
            for segment in index..<count {
                if segment > index {
                    buffer[written] = UInt8(ascii: "/")
                    written += 1
                }
                let range = ranges[segment]
                _ = UnsafeMutableBufferPointer(rebasing: buffer[written..<(written + range.count)])
                    .initialize(from: UnsafeBufferPointer(rebasing: bytes[range]))
                written += range.count
            }
            return written
        }
    }

    /// Splits `path` and runs `body` on it, or on nil when the path cannot be
    /// decoded. Dot segments are refused outright rather than resolved (no
    /// Kith URL has one), as are NUL bytes, and `%2F` inside a segment.
    static func withSegments<T>(of path: String, _ body: (SplitPath?) -> T) -> T {
        var path = path
        return path.withUTF8 { raw in
            // Every segment follows a slash or starts the path.
            var slashes = 1
            var escaped = false
            for byte in raw {
                if byte == UInt8(ascii: "/") { slashes += 1 } else if byte == UInt8(ascii: "%") { escaped = true }
            }
            return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: slashes) { ranges in
                if !escaped {
                    guard let count = split(raw, into: ranges) else { return body(nil) }
                    return body(SplitPath(bytes: raw, ranges: ranges, count: count))
                }
                // Rare: decode each segment into one buffer, then split that
                // on the slashes put back between them.
                var decoded: [UInt8] = []
                decoded.reserveCapacity(raw.count)
                var start = 0
                while start <= raw.count {
                    var end = start
                    while end < raw.count, raw[end] != UInt8(ascii: "/") { end += 1 }
                    if end > start {
                        guard let text = try? PercentDecoding.decodePathSegment(UnsafeBufferPointer(rebasing: raw[start..<end])),
                            !text.utf8.contains(UInt8(ascii: "/"))
                        else { return body(nil) }
                        if !decoded.isEmpty { decoded.append(UInt8(ascii: "/")) }
                        decoded.append(contentsOf: text.utf8)
                    }
                    start = end + 1
                }
                return decoded.withUnsafeBufferPointer { buffer in
                    guard let count = split(buffer, into: ranges) else { return body(nil) }
                    return body(SplitPath(bytes: buffer, ranges: ranges, count: count))
                }
            }
        }
    }

    /// Byte ranges of the non-empty segments; nil for a dot segment or a NUL.
    /// Bytes, not Characters: grapheme breaking was most of the cost of
    /// serving a static file, and a byte check refuses at least as much.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, into ranges: UnsafeMutableBufferPointer<Range<Int>>) -> Int? {
        var count = 0
        var start = 0
        while start < bytes.count {
            var end = start
            var dots = 0
            while end < bytes.count, bytes[end] != UInt8(ascii: "/") {
                if bytes[end] == UInt8(ascii: ".") { dots += 1 } else if bytes[end] == 0 { return nil }
                end += 1
            }
            let length = end - start
            if length > 0 {
                if dots == length && length <= 2 { return nil }
                ranges[count] = start..<end
                count += 1
            }
            start = end + 1
        }
        return count
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

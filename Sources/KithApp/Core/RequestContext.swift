import KithHTTP
import KithTemplates

/// Per-request state handed to every handler: the request, the app, who is
/// asking, and the CSRF token their forms carry. Built before any handler
/// runs, which is where every state-changing request is checked for CSRF.
public struct RequestContext: Sendable {
    public let request: Request
    public let app: KithApp
    /// The signed-in person; nil for a signed-out visitor.
    public let user: User?
    let session: AccountStore.Session?
    /// Goes into every form as `_csrf` (`Layout.csrfField`).
    public let csrfToken: String
    /// Cookies to send with the response.
    var cookies: [SetCookie]

    /// - Parameter admitting: true when only the head has arrived (see
    ///   `KithApp.admit`): the CSRF token is checked now only if it came in
    ///   a header; from a form it is checked with the body.
    static func make(_ request: Request, app: KithApp, admitting: Bool = false) throws -> RequestContext {
        // Inline routes (static files, health checks) run on an I/O thread,
        // where nothing may touch the database; they need no identity.
        if request.route.runsInline {
            return RequestContext(request: request, app: app, user: nil, session: nil, csrfToken: "", cookies: [])
        }
        let resolved = try app.sessions.resolve(request)
        if !request.method.isSafe {
            try CSRF.checkOrigin(request, origin: app.origin)
            let header = request.headers[CSRF.headerName]
            if !admitting || header != nil {
                let sent = request.form[CSRF.fieldName] ?? header
                // A script sending the ended session's token hears why, not "expired".
                if resolved.sessionEnded, request.headers[enhancedHeader] != nil, (try? CSRF.checkToken(sent, expected: resolved.csrfToken)) == nil {
                    throw HTTPError.signedOut
                }
                try CSRF.checkToken(sent, expected: resolved.csrfToken)
            }
        }
        if let user = resolved.user {
            for gate in app.requestHooks.gates { try gate(user, request.route) }
        }
        return RequestContext(
            request: request, app: app, user: resolved.user, session: resolved.session, csrfToken: resolved.csrfToken,
            cookies: resolved.cookies)
    }

    /// Sent by the page script on every request it makes in the browser's
    /// place (see the top of `app.js`).
    public static let enhancedHeader = "X-Kith-Enhanced"

    /// Made by the page script, which swaps in a fragment: a handler may
    /// answer with only what changed instead of redirecting.
    public var isEnhanced: Bool { request.headers[Self.enhancedHeader] != nil }

    /// A live refresh of one region (`X-Kith-Enhanced: fragment`): it shows
    /// no messages, so it must not take the session's.
    var isFragmentRefresh: Bool { request.headers[Self.enhancedHeader] == "fragment" }

    /// Whose streams count together against the per-viewer cap.
    public var viewerKey: String? { user.map { Self.viewerKey(for: $0.id) } }

    /// One person's streams, whichever tab or device they are on.
    public static func viewerKey(for userID: Int64) -> String { "user:\(userID)" }

    /// The signed-in person, or a redirect to sign in that comes back here.
    /// A page script gets 401 instead, with the reason its page shows.
    public func requireUser() throws -> User {
        if let user { return user }
        if isEnhanced { throw HTTPError.signedOut }
        var headers = HTTPHeaders()
        let back = request.method == .get ? request.head.target : "/"
        headers.add("Location", SiteLinks.routes.signIn(returningTo: back))
        throw HTTPError(.seeOther, "Please sign in first.", headers: headers)
    }

    public mutating func setCookie(_ cookie: SetCookie) { cookies.append(cookie) }

    /// Frame inputs for a page: the viewer, their theme, the form token, and
    /// the topics it follows live (the cursor is taken now, before the page
    /// reads its data, so nothing committed in between is missed).
    /// A signed-in page also follows its navigation badges' topics, so
    /// they stay current wherever the person is.
    public func pageContext(flash: [Flash] = [], topics: [String] = []) -> PageContext {
        let badges = user == nil ? [] : app.requestHooks.badges
        var followed = topics
        if let user {
            for topic in badges.flatMap({ $0.topics(user) }) where !followed.contains(topic) { followed.append(topic) }
        }
        // Messages this session earned by its last post come first (see `SessionFlash`).
        var page = app.pageContext(flash: takeFlashes() + flash, topics: followed)
        page.csrfToken = csrfToken
        if let user {
            var viewer = Viewer(displayName: user.displayName, isGuest: user.isGuest)
            for badge in badges { badge.fill(&viewer, user, app) }
            page.viewer = viewer
            page.theme = Theme(rawValue: user.theme.rawValue) ?? .system
        }
        return page
    }

    /// Renders a full page in the standard frame, with a feature's own
    /// stylesheets and scripts when it has them.
    public func page(
        title: String, main: HTML, status: HTTPStatus = .ok, flash: [Flash] = [], topics: [String] = [],
        stylesheets: [String] = [], scripts: [String] = []
    ) -> Response {
        var frame = pageContext(flash: flash, topics: topics)
        frame.stylesheets = stylesheets
        frame.scripts = scripts
        return app.page(Layout.page(title: title, context: frame, main: main), status: status)
    }
}

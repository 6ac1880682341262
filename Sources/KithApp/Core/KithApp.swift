import Glibc
import KithCrypto
import KithHTTP
import KithStorage
import KithSync
import KithTemplates

/// The application: database, assets and routes, answering the engine.
/// `makeApp` is the one way to build it, for `kith serve` and for tests alike.
public final class KithApp: HTTPResponder {
    public let configuration: KithConfiguration
    public let database: Database
    public let assets: StaticFiles
    public let logger: Logger
    /// Live updates: publish invalidations here after a commit.
    public let live: LiveHub
    /// Topic kinds pages may follow, with their access rules.
    public let liveTopics = LiveTopics()
    /// The one invite-code space; features register what their codes open.
    public let invites = InviteCodes()
    /// The inbox and the digest engine: features record events here.
    public let notifications: Notifications
    /// Web Push: delivers digests to subscribed browsers even when Kith is closed.
    let push: PushService
    /// What deleting an account means to each feature: every feature that
    /// keeps rows about a person registers a hook here.
    let purges = AccountPurge()
    /// What features do when another emits an event, in its transaction.
    let events = FeatureEvents()
    /// Uploaded photos, videos and voice notes on disk.
    public let media: MediaStore
    /// The signed-in home page, a section per feature.
    public let dashboard = DashboardSections()
    public let manifestShortcuts = ManifestShortcuts()
    /// Features' own threads, started and stopped with the server.
    public let backgroundTasks = BackgroundTasks()
    /// Features' gates and navigation badges, applied to every request.
    let requestHooks = RequestHooks()
    /// Argon2id with a cap on concurrent hashes and a bounded line, shared by every request.
    let passwords: Passwords
    let sessions: Sessions
    /// Kith's own TLS certificate over ACME, and the http-01 answers it serves.
    public let certificates: CertificateManager
    private let router: Router<RequestContext>
    /// Scopes admitted from the head; registered with the routes, like every other registry here.
    private let admissionRules = Lock<[AdmissionRule]>([])
    private let contextBox = ContextBox()
    /// The port actually bound, when the configuration asked for any (0).
    private let boundPort = Lock<Int?>(nil)
    private let boundHTTPSPort = Lock<Int?>(nil)

    init(
        configuration: KithConfiguration, database: Database, assets: StaticFiles, logger: Logger, live: LiveHub,
        secret: [UInt8]
    ) {
        self.configuration = configuration
        self.database = database
        self.assets = assets
        self.logger = logger
        self.live = live
        passwords = Passwords(
            parameters: configuration.passwordParameters, maxWaiting: configuration.floodLimits.passwordQueue,
            workers: configuration.workers)
        media = MediaStore(dataDirectory: configuration.dataDirectory, mediaDirectory: configuration.mediaDirectory)
        notifications = Notifications(database: database, live: live, clock: configuration.clock)
        certificates = CertificateManager(
            options: configuration.acme, dataDirectory: configuration.dataDirectory, logger: logger, clock: configuration.clock)
        let baseURLBox = contextBox
        push = PushService(
            database: database, dataDirectory: configuration.dataDirectory, keyDirectory: configuration.mediaDirectory,
            baseURL: { baseURLBox.app?.baseURL ?? configuration.effectiveBaseURL }, logger: logger)
        sessions = Sessions(
            database: database, secret: secret, secureCookies: configuration.effectiveBaseURL.hasPrefix("https://"), live: live,
            clock: configuration.clock)
        // A delivered digest also goes to the person's subscribed devices.
        let pushService = push
        notifications.addDeliveryObserver { delivered in
            pushService.deliver(to: delivered.userID, title: delivered.title, body: delivered.body, url: delivered.url)
        }
        let box = contextBox
        router = Router<RequestContext>(
            makeContext: { try RequestContext.make($0, app: box.app!) },
            finish: { context, response in
                for cookie in context.cookies { response.headers.add("Set-Cookie", cookie.headerValue) }
            })
        contextBox.app = self
        // Every feature, in one visible list; routes match in this order.
        for make in Self.features { install(make(self)) }
        let onceSweep = OnceTokens.sweeper(self).backgroundTask
        backgroundTasks.register(onceSweep)
    }

    /// What Kith is made of. Core names none of them: each declares itself.
    static let features: [@Sendable (KithApp) -> Feature] = [
        SystemFeature.make, HomeFeature.make, AccountsFeature.make, InvitesFeature.make, NotificationsFeature.make,
        OccasionsFeature.make, FriendsFeature.make, TalliesFeature.make, PlatesFeature.make, CertificatesFeature.make,
        SystemFeature.development,
    ]

    /// The public address, with the real port once bound when none was configured.
    public var baseURL: String {
        if let configured = configuration.baseURL, !configured.isEmpty { return configuration.effectiveBaseURL }
        var effective = configuration
        if let port = boundPort.withLock({ $0 }) { effective.port = port }
        if effective.httpsPort != nil, let port = boundHTTPSPort.withLock({ $0 }) { effective.httpsPort = port }
        return effective.effectiveBaseURL
    }

    /// What browsers put in `Origin` for Kith's own pages.
    var origin: String { CSRF.origin(of: baseURL) }

    func serverStarted(port: Int, httpsPort: Int? = nil) {
        boundPort.withLock { $0 = port }
        boundHTTPSPort.withLock { $0 = httpsPort }
    }

    var now: Int64 { configuration.clock() }

    /// Adds a route. Features declare theirs in a `Feature`; tests may
    /// add routes of their own before the server starts.
    public func on(_ route: Route, _ handler: @escaping Router<RequestContext>.Handler) {
        router.on(route, handler)
    }

    func fallback(_ route: Route, _ handler: @escaping Router<RequestContext>.Handler) {
        router.fallback(route, handler)
    }

    /// Page frame inputs for a request. `topics` are what the page shows live;
    /// the cursor is taken now, before the page reads its data.
    public func pageContext(flash: [Flash] = [], topics: [String] = []) -> PageContext {
        let assets = self.assets
        let live = topics.isEmpty ? LiveSubscription() : LiveSubscription(topics: topics, cursor: self.live.cursor)
        return PageContext(assetURL: { assets.url($0) }, links: .routes, flash: flash, live: live)
    }

    public func page(_ html: HTML, status: HTTPStatus = .ok) -> Response {
        var response = Response.bytes(html.bytes, contentType: "text/html; charset=utf-8", status: status)
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    // MARK: HTTPResponder

    public func decide(method: HTTPMethod, path: String) -> RouteDecision {
        router.decide(method: method, path: path)
    }

    /// Decided from the head of every request with a body, before the body
    /// is read: the session, the origin, the CSRF token when a header
    /// carries it, and membership of any scope the path names. A multipart
    /// form must then open with its token, so a stranger's upload never
    /// reaches the disk; an urlencoded one (64 KiB at most) is checked whole.
    public func admit(_ request: Request) -> Admission {
        if request.route.runsInline { return .proceed }
        do {
            let context = try RequestContext.make(request, app: self, admitting: true)
            let names = request.route.pattern.parameterNames
            for rule in admissionRules.withLock({ $0 }) where names.contains(rule.parameter) { try rule.check(context) }
            let multipart = MultipartParser.boundary(fromContentType: request.headers["Content-Type"] ?? "") != nil
            guard multipart, request.headers[CSRF.headerName] == nil else { return .proceed }
            let expected = context.csrfToken
            return .proceed(firstField: RequiredField(CSRF.fieldName, refusal: CSRF.expired) { sent in
                (try? CSRF.checkToken(sent, expected: expected)) != nil
            })
        } catch let error as HTTPError {
            if let cause = error.cause { logCause(cause, request: request, status: error.status) }
            return .refuse(error)
        } catch {
            logCause(error, request: request, status: .internalServerError)
            return .refuse(.internal(error))
        }
    }

    func addAdmissionRule(_ rule: AdmissionRule) { admissionRules.withLock { $0.append(rule) } }

    public func respond(to request: Request) -> Response {
        router.respond(
            to: request, errorResponse: { errorResponse($0, for: request) },
            log: { logCause($0, request: request, status: $1) })
    }

    public func errorResponse(_ error: HTTPError, head: RequestHead?) -> Response {
        errorPage(error, context: pageContext())
    }

    /// An error from a handler: the page still shows who is signed in and
    /// their theme. Found again here because the handler's context is gone;
    /// inline routes never touch the database, so they get the plain frame.
    private func errorResponse(_ error: HTTPError, for request: Request) -> Response {
        guard !request.route.runsInline, !error.status.isRedirection,
            let resolved = try? sessions.resolve(request), let user = resolved.user
        else { return errorResponse(error, head: request.head) }
        var context = pageContext()
        context.viewer = Viewer(displayName: user.displayName, isGuest: user.isGuest)
        context.theme = Theme(rawValue: user.theme.rawValue) ?? .system
        context.csrfToken = resolved.csrfToken
        return errorPage(error, context: context)
    }

    private func errorPage(_ error: HTTPError, context: PageContext) -> Response {
        let html = ErrorPage.render(
            status: error.status.code, title: ErrorPage.title(for: error.status.code), message: error.message,
            context: context)
        var response = page(html, status: error.status)
        for (name, value) in error.headers { response.headers.add(name, value) }
        return response
    }

    private func logCause(_ cause: any Error, request: Request, status: HTTPStatus) {
        logger.log([
            "level": status.code >= 500 ? "error" : "warn",
            "route": request.route.pattern.description,
            "status": String(status.code),
            "cause": String(describing: cause),
        ])
    }

    /// Headers on every response, and those only on responses a browser may
    /// show as a page or run as a worker. The CSP allows no inline script;
    /// media and image sources allow `blob:` for recording and photo
    /// previews. A stylesheet, script or image needs only `nosniff`, which
    /// is what stops a browser running or applying it under the wrong type.
    static func securityHeaders() -> (every: HTTPHeaders, documents: HTTPHeaders) {
        var every = HTTPHeaders()
        every.add("X-Content-Type-Options", "nosniff")
        var documents = HTTPHeaders()
        documents.add(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                + "media-src 'self' blob:; connect-src 'self'; font-src 'self'; object-src 'none'; "
                + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
        documents.add("Referrer-Policy", "strict-origin-when-cross-origin")
        documents.add("Cross-Origin-Opener-Policy", "same-origin")
        documents.add("Permissions-Policy", "camera=(self), microphone=(self), geolocation=(), interest-cohort=()")
        return (every, documents)
    }
}

/// A check on the head of requests whose path names `parameter`.
struct AdmissionRule: Sendable {
    let parameter: String
    let check: @Sendable (RequestContext) throws -> Void
}

/// Lets the router's context factory reach the app it belongs to without a
/// reference cycle at construction: set once in `KithApp.init`, read-only after.
private final class ContextBox: @unchecked Sendable {
    weak var app: KithApp?
}

public enum AppStartError: Error, CustomStringConvertible {
    case dataDirectory(String, Int32)
    case database(any Error)

    public var description: String {
        switch self {
        case .dataDirectory(let path, let code): "cannot create the data directory \(path): \(String(cString: strerror(code)))"
        case .database(let error): "database: \(error)"
        }
    }
}

/// Opens (and creates) the data directory and database, applies pending
/// migrations, loads the assets and builds the routes.
public func makeApp(_ configuration: KithConfiguration, logger: Logger = Logger()) throws -> KithApp {
    let resources = try Resources.locate(explicitRoot: configuration.root)
    let (database, applied) = try openDatabase(configuration, resources: resources)
    for name in applied { logger.log(["msg": "applied migration", "file": name]) }
    let assets = try StaticFiles(directory: resources.publicDirectory)
    let secret = try InstanceSecret.load(database)
    // On PostgreSQL other instances may share the database, and live events with it.
    let live = try configuration.databaseURL.map { url in
        try LiveHub(limits: configuration.live, relay: LiveRelay(url: url, database: database, logger: logger))
    } ?? LiveHub(limits: configuration.live)
    let app = KithApp(
        configuration: configuration, database: database, assets: assets, logger: logger, live: live, secret: secret)
    try app.media.prepare(database)
    return app
}

/// Creates the data directory if needed, opens the database and applies
/// pending migrations; returns the names of those it applied.
public func openDatabase(_ configuration: KithConfiguration, resources: Resources.Location) throws -> (Database, [String]) {
    try DataDirectory.prepare(configuration.dataDirectory)
    do {
        let database = try configuration.openDatabase()
        do {
            let applied = try Migrator(database: database, directory: resources.migrationsDirectory).migrate()
            return (database, applied)
        } catch {
            database.close()
            throw error
        }
    } catch {
        throw AppStartError.database(error)
    }
}

extension KithConfiguration {
    /// PostgreSQL when `databaseURL` is set, else `kith.sqlite` in the data
    /// directory. Runs no migrations.
    public func openDatabase() throws -> Database {
        guard let databaseURL else { return try Database(path: databasePath) }
        var options = Database.Configuration()
        options.readerCount = databasePool
        return try Database(postgresURL: databaseURL, configuration: options)
    }
}

enum DataDirectory {
    /// Creates the directory and its `tmp/` for uploads in progress.
    static func prepare(_ path: String) throws {
        for directory in [path, path + "/tmp"] {
            if mkdir(directory, 0o700) != 0 && errno != EEXIST { throw AppStartError.dataDirectory(directory, errno) }
        }
    }
}

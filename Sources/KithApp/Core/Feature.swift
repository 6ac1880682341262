import KithHTTP

/// A feature as one declared value: everything it adds to Kith, in one
/// place a reader can see whole. `KithApp` installs a list of them and Core
/// never names one; a feature reaches other features only through what they
/// declare here (an invite kind, a notification kind, a live topic, an
/// event it emits).
///
/// Each feature folder has a `…Feature.swift` whose `make(_:)` builds the
/// value from the app (for what depends on configuration, such as upload
/// limits, or holds the app's services, such as a scheduler).
public struct Feature: Sendable {
    public let name: String
    /// Its routes with their handlers, in the order they are matched.
    public var endpoints: [Endpoint] = []
    /// Its scope, named by a path parameter: a request with a body to any
    /// route whose path names `parameter` is admitted only for members,
    /// decided from the head (see `KithApp.admit`).
    public var scopes: [ScopeAdmission] = []
    /// Live topic kinds its pages follow, each with who may follow a key.
    public var topics: [TopicKind] = []
    public var invites: [InviteKind] = []
    public var notifications: [NotificationKind] = []
    /// What deleting an account means to it, inside the deletion's
    /// transaction, and what that invalidates on others' open pages.
    public var purge: AccountPurge.Hook?
    /// What it does, inside another feature's write, when that feature
    /// emits an event (see `FeatureEvents`).
    public var events: [EventHandler] = []
    public var dashboard: DashboardSection?
    /// The signed-in person's shortcuts in the web manifest (an installed
    /// app's long-press menu), each opening one of their things.
    public var shortcuts: ManifestShortcuts.Provider?
    /// Threads started with the server and stopped before the database closes.
    public var tasks: [BackgroundTask] = []
    /// Checked for every signed-in request before its handler runs.
    public var requestGate: RequestGate?
    /// Shown in the navigation of every signed-in page.
    public var viewerBadge: ViewerBadge?

    public init(_ name: String) { self.name = name }
}

/// A route and the handler that answers it.
public struct Endpoint: Sendable {
    public let route: Route
    public let handler: Router<RequestContext>.Handler
    /// Answers the GETs no other route matches, whenever it was listed.
    public let isFallback: Bool

    public init(_ route: Route, fallback: Bool = false, _ handler: @escaping Router<RequestContext>.Handler) {
        self.route = route
        self.isFallback = fallback
        self.handler = handler
    }
}

/// Lets a feature list its endpoints one after another, as a route table
/// reads, with `let`s between them where handlers share a value:
///
///     @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
///         Endpoint(show) { context in … }
///         Endpoint(save) { context in … }
///         HostRoutes.endpoints(app)
///     }
@resultBuilder
public enum Endpoints {
    public static func buildExpression(_ endpoint: Endpoint) -> [Endpoint] { [endpoint] }
    public static func buildExpression(_ endpoints: [Endpoint]) -> [Endpoint] { endpoints }
    public static func buildBlock(_ parts: [Endpoint]...) -> [Endpoint] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Endpoint]?) -> [Endpoint] { part ?? [] }
    public static func buildEither(first: [Endpoint]) -> [Endpoint] { first }
    public static func buildEither(second: [Endpoint]) -> [Endpoint] { second }
    public static func buildArray(_ parts: [[Endpoint]]) -> [Endpoint] { parts.flatMap { $0 } }
}

/// Who may send a body to the routes under a scope's path parameter.
public struct ScopeAdmission: Sendable {
    let rule: AdmissionRule

    /// Members only, as `S.load` decides.
    public static func members<S: Scope>(of scope: S.Type, parameter: String) -> ScopeAdmission {
        ScopeAdmission(rule: AdmissionRule(parameter: parameter) { context in _ = try context.load(S.self, parameter: parameter) })
    }
}

public struct TopicKind: Sendable {
    public let kind: String
    public let rule: LiveTopics.Rule

    public init(_ kind: String, rule: @escaping LiveTopics.Rule) {
        self.kind = kind
        self.rule = rule
    }
}

public struct NotificationKind: Sendable {
    public let kind: String
    public let wording: Notifications.Wording

    public init(_ kind: String, wording: @escaping Notifications.Wording) {
        self.kind = kind
        self.wording = wording
    }
}

public struct DashboardSection: Sendable {
    public let order: Int
    public var topics: DashboardSections.Topics = { _ in [] }
    public var stylesheets: [String] = []
    public var scripts: [String] = []
    public let render: DashboardSections.Render
    /// What the section is called where a person chooses which leads
    /// ("Tallies"), and what it shows while the person has nothing in it:
    /// one compact row instead of a full empty state, so a feature not yet
    /// used does not push the ones in use down the page.
    public var start: DashboardSections.Start?

    public init(
        order: Int, topics: @escaping DashboardSections.Topics = { _ in [] }, stylesheets: [String] = [], scripts: [String] = [],
        render: @escaping DashboardSections.Render
    ) {
        self.order = order
        self.topics = topics
        self.stylesheets = stylesheets
        self.scripts = scripts
        self.render = render
    }
}

public struct BackgroundTask: Sendable {
    public let name: String
    public let start: BackgroundTasks.Action
    public let stop: BackgroundTasks.Action
    /// Waits, until a deadline at most, for the work the task does at start
    /// (a sweep's catch-up); true when it is done. Nil: nothing to wait for.
    public let settle: BackgroundTasks.Settle?

    public init(
        _ name: String, start: @escaping BackgroundTasks.Action, stop: @escaping BackgroundTasks.Action,
        settle: BackgroundTasks.Settle? = nil
    ) {
        self.name = name
        self.start = start
        self.stop = stop
        self.settle = settle
    }
}

extension KithApp {
    /// Adds everything a feature declares. Called for each feature, in the
    /// listed order, while the app is built and before the server starts.
    func install(_ feature: Feature) {
        for endpoint in feature.endpoints {
            if endpoint.isFallback { fallback(endpoint.route, endpoint.handler) } else { on(endpoint.route, endpoint.handler) }
        }
        for scope in feature.scopes { addAdmissionRule(scope.rule) }
        for topic in feature.topics { liveTopics.register(kind: topic.kind, rule: topic.rule) }
        for kind in feature.invites { invites.register(kind) }
        for kind in feature.notifications { notifications.register(kind: kind.kind, wording: kind.wording) }
        if let purge = feature.purge { purges.register(feature.name, purge) }
        for handler in feature.events { events.register(handler.event, handler.handle) }
        if let section = feature.dashboard {
            dashboard.register(
                feature.name, order: section.order, topics: section.topics, stylesheets: section.stylesheets,
                scripts: section.scripts, start: section.start, render: section.render)
        }
        if let shortcuts = feature.shortcuts { manifestShortcuts.register(shortcuts) }
        for task in feature.tasks { backgroundTasks.register(task) }
        if let gate = feature.requestGate { requestHooks.add(gate: gate) }
        if let badge = feature.viewerBadge { requestHooks.add(badge: badge) }
    }
}

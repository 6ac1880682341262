/// What every page needs from the app to render its frame: where assets
/// live, who is looking, what to announce, what to listen to. Templates import
/// nothing of the server, so a template is a pure function of its inputs.
public struct PageContext: Sendable {
    /// Maps a file in `Public/` to its content-hashed URL.
    public var assetURL: @Sendable (String) -> String
    /// Where the frame's and the pages' own links go.
    public var links: SiteLinks
    public var flash: [Flash]
    /// The signed-in person, for the user menu; nil when signed out.
    public var viewer: Viewer?
    /// Topics this page listens to, and the live cursor taken before its data
    /// was read. Empty topics: the page opens no stream.
    public var live: LiveSubscription
    /// `theme-light` / `theme-dark` on `<html>`; nil follows the system.
    public var theme: Theme
    /// The CSRF token for forms in the frame (sign out), once accounts exist.
    public var csrfToken: String?
    /// Extra `<head>` elements: link-preview tags for invite pages.
    public var head: HTML = HTML()
    /// A feature's own stylesheets and module scripts (files in `Public/`),
    /// linked after the shared ones on the pages that need them.
    public var stylesheets: [String] = []
    public var scripts: [String] = []
    /// A live refetch (`X-Kith-Enhanced: fragment`): a page whose fragment is
    /// the page itself may render just that element, without the frame.
    public var fragmentOnly = false

    public init(
        assetURL: @escaping @Sendable (String) -> String, links: SiteLinks, flash: [Flash] = [], viewer: Viewer? = nil,
        live: LiveSubscription = LiveSubscription(), theme: Theme = .system, csrfToken: String? = nil
    ) {
        self.assetURL = assetURL
        self.links = links
        self.flash = flash
        self.viewer = viewer
        self.live = live
        self.theme = theme
        self.csrfToken = csrfToken
    }
}

public struct Viewer: Sendable, Equatable {
    public var displayName: String
    public var unreadCount: Int
    /// A guest has no password: signing out would lock them out for good,
    /// so their menu leads to a page that says so first.
    public var isGuest: Bool
    public init(displayName: String, unreadCount: Int = 0, isGuest: Bool = false) {
        self.displayName = displayName
        self.unreadCount = unreadCount
        self.isGuest = isGuest
    }
}

public enum Theme: String, Sendable {
    case system, light, dark

    var htmlClass: String? {
        switch self {
        case .system: nil
        case .light: "theme-light"
        case .dark: "theme-dark"
        }
    }
}

public struct LiveSubscription: Sendable, Equatable {
    public var topics: [String]
    public var cursor: String
    public init(topics: [String] = [], cursor: String = "") {
        self.topics = topics
        self.cursor = cursor
    }
}

public struct Flash: Sendable, Equatable {
    public enum Kind: String, Sendable { case notice, error }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

public enum Layout {
    /// The document frame around every page: skip link, navigation with the
    /// user menu and the inbox count, flash messages, the page, and the live
    /// subscription the script reads (a `<meta>`, since no inline script runs).
    /// `<main>` names sign-in and home for the script's "this page has ended"
    /// banner, which has no other way to know those paths.
    public static func page(title: String, context: PageContext, main: HTML) -> HTML {
        let flashes = context.flash.map { flash -> HTML in
            let role = flash.kind == .error ? "alert" : "status"
            return "<p class=\"flash flash--\(flash.kind.rawValue)\" role=\"\(role)\">\(flash.message)</p>"
        }
        let live: HTML =
            context.live.topics.isEmpty
            ? ""
            : """
            <meta name="kith-live"\(attribute: "content", context.live.topics.joined(separator: ","))\(attribute: "data-cursor", context.live.cursor)>
            <meta name="kith-live-stream"\(attribute: "content", context.links[.liveStream])>

            """
        return """
            <!doctype html>
            <html lang="en"\(attribute: "class", context.theme.htmlClass)>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="theme-color" content="#FBF7F4" media="(prefers-color-scheme: light)">
            <meta name="theme-color" content="#17141D" media="(prefers-color-scheme: dark)">
            <title>\(title) · Kith</title>
            <link rel="manifest"\(attribute: "href", context.links[.manifest]) crossorigin="use-credentials">
            <link rel="icon" href="\(context.assetURL("icons/kith.svg"))" type="image/svg+xml">
            <link rel="apple-touch-icon" href="\(context.assetURL("icons/kith-180.png"))">
            <link rel="stylesheet" href="\(context.assetURL("css/app.css"))">
            \(featureAssets(context))\(context.head)\(live)<script type="module" src="\(context.assetURL("js/app.js"))"></script>
            </head>
            <body>
            <a class="skip-link" href="#main">Skip to content</a>
            <header class="site-header">
            <nav class="site-nav" aria-label="Main">
            <a class="brand"\(attribute: "href", context.links[.home])><img src="\(context.assetURL("icons/kith.svg"))" alt="" width="28" height="28"> Kith</a>
            \(navigation(context))
            </nav>
            </header>
            \(guestPrompt(context))<div class="flashes" id="flashes">\(flashes)</div>
            <main id="main" tabindex="-1"\(attribute: "data-sign-in", context.links[.signInForm])\(attribute: "data-home", context.links[.home])>
            \(main)
            </main>
            <footer class="site-footer"><p>Kith — little rituals for your people.</p></footer>
            </body>
            </html>

            """
    }

    static func featureAssets(_ context: PageContext) -> HTML {
        let styles = context.stylesheets.map { "<link rel=\"stylesheet\" href=\"\(context.assetURL($0))\">\n" as HTML }
        let scripts = context.scripts.map { "<script type=\"module\" src=\"\(context.assetURL($0))\"></script>\n" as HTML }
        return "\(styles)\(scripts)"
    }

    static func navigation(_ context: PageContext) -> HTML {
        guard let viewer = context.viewer else {
            return """
                <ul class="site-nav__links">
                <li><a\(attribute: "href", context.links[.join])>Join with a code</a></li>
                <li><a\(attribute: "href", context.links[.signInForm])>Sign in</a></li>
                <li><a class="button button--small"\(attribute: "href", context.links[.signUpForm])>Sign up</a></li>
                </ul>
                """
        }
        let unread = InboxPage.count(viewer.unreadCount, links: context.links)
        return """
            <ul class="site-nav__links">
            <li><a\(attribute: "href", context.links[.inbox])\(attribute: "data-inbox-list", context.links[.inboxList])>Inbox \(unread)</a></li>
            <li><details class="user-menu"><summary>\(viewer.displayName)</summary>
            <ul class="user-menu__items">
            <li><a\(attribute: "href", context.links[.settings])>Settings</a></li>
            <li>\(signOut(context, guest: viewer.isGuest))</li>
            </ul>
            </details></li>
            </ul>
            """
    }

    /// On every page for a guest, gently: without a password, this browser
    /// is their only way in.
    static func guestPrompt(_ context: PageContext) -> HTML {
        guard context.viewer?.isGuest == true else { return "" }
        return """
            <aside class="guest-prompt" aria-label="Keep your account"><p>You're here as a guest.
            <a\(attribute: "href", context.links[.claimForm])>Choose a username and password</a> to keep your account.</p></aside>

            """
    }

    static func signOut(_ context: PageContext, guest: Bool) -> HTML {
        if guest { return "<a\(attribute: "href", context.links[.signOutConfirm])>Sign out</a>" }
        return "<form method=\"post\"\(attribute: "action", context.links[.signOut])>\(csrfField(context.csrfToken))<button class=\"link-button\" type=\"submit\">Sign out</button></form>"
    }

    /// The hidden CSRF field every state-changing form carries.
    public static func csrfField(_ token: String?) -> HTML {
        guard let token else { return "" }
        return "<input type=\"hidden\" name=\"_csrf\"\(attribute: "value", token)>"
    }
}

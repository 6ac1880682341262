/// The inbox: what happened in a person's occasions, games and tallies,
/// newest first, and the two fragments live updates refetch — the nav
/// badge (`inbox-count`) and the list (`inbox-list`).
public enum InboxPage {
    public struct Item: Sendable {
        /// The scope's name ("Summer Road Trip").
        public var title: String
        /// The coalesced sentence ("Dad spotted Idaho, Ohio and 3 more").
        public var body: String
        public var isRead: Bool
        /// "3 minutes ago", and the instant for `<time datetime>`.
        public var relativeTime: String
        public var machineTime: String
        /// POST here to mark it read and go to what it is about.
        public var openAction: String
        /// POST here to mute (or, when muted, unmute) its scope.
        public var muteAction: String
        public var isMuted: Bool

        public init(
            title: String, body: String, isRead: Bool, relativeTime: String, machineTime: String, openAction: String,
            muteAction: String, isMuted: Bool
        ) {
            self.title = title
            self.body = body
            self.isRead = isRead
            self.relativeTime = relativeTime
            self.machineTime = machineTime
            self.openAction = openAction
            self.muteAction = muteAction
            self.isMuted = isMuted
        }
    }

    public struct Model: Sendable {
        public var items: [Item]
        public var unreadCount: Int
        /// POST here to mark everything read.
        public var markAllReadAction: String
        public init(items: [Item], unreadCount: Int, markAllReadAction: String) {
            self.items = items
            self.unreadCount = unreadCount
            self.markAllReadAction = markAllReadAction
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        Layout.page(
            title: "Inbox", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header cluster cluster--between"><h1>Inbox</h1>
                \(markAllRead(context, model))</header>
                \(list(context, model))
                </section>
                """)
    }

    /// "Mark all read" only when something is unread.
    static func markAllRead(_ context: PageContext, _ model: Model) -> HTML {
        guard model.unreadCount > 0 else { return .empty }
        return """
            <form method="post"\(attribute: "action", model.markAllReadAction)>\(Layout.csrfField(context.csrfToken))\(Button.secondary("Mark all read", small: true))</form>
            """
    }

    /// The list fragment (`GET /inbox/list` renders exactly this element).
    public static func list(_ context: PageContext, _ model: Model) -> HTML {
        guard !model.items.isEmpty else {
            return """
                <div\(attribute: "id", FragmentID.inboxList.rawValue)\(attribute: "data-fragment", context.links[.inboxList])>
                \(EmptyState.render(title: "Nothing new", message: "When friends spot plates, leave gifts or change a tally, you'll hear about it here."))
                </div>
                """
        }
        let items = model.items.map { item(context, $0) }
        return """
            <ul class="stack"\(attribute: "id", FragmentID.inboxList.rawValue)\(attribute: "data-fragment", context.links[.inboxList]) aria-label="Notifications">
            \(items.joined(separator: "\n"))
            </ul>
            """
    }

    /// One entry. Unread ones carry an accent band and a badge that says
    /// "Unread" in words, so the state is never told by colour alone.
    static func item(_ context: PageContext, _ item: Item) -> HTML {
        let unread: HTML = item.isRead ? .empty : " <span class=\"badge badge--purple\">Unread</span>"
        let muteLabel = item.isMuted ? "Unmute \(item.title)" : "Mute \(item.title)"
        return """
            <li\(attribute: "class", item.isRead ? "card stack stack--tight" : "card card--purple stack stack--tight")\(attribute: "data-unread", item.isRead ? nil : item.openAction)\(attribute: "data-title", item.title)\(attribute: "data-body", item.body)>
            <h2 class="card__title text-md">\(item.title)\(unread)</h2>
            <form method="post"\(attribute: "action", item.openAction)>\(Layout.csrfField(context.csrfToken))<button class="link-button" type="submit">\(item.isRead ? HTML.text(item.body) : "<strong>\(item.body)</strong>")</button></form>
            <div class="cluster cluster--between text-sm">
            <p class="muted"><time\(attribute: "datetime", item.machineTime)>\(item.relativeTime)</time></p>
            <form method="post"\(attribute: "action", item.muteAction)>\(Layout.csrfField(context.csrfToken))\(Button.secondary(muteLabel, name: "muted", value: item.isMuted ? "0" : "1", small: true))</form>
            </div>
            </li>
            """
    }

    /// The nav badge fragment (`GET /inbox/count`): the same markup the
    /// frame renders, so a refetch swaps like for like.
    public static func count(_ unread: Int, links: SiteLinks) -> HTML {
        let attributes: HTML = "\(attribute: "id", FragmentID.inboxCount.rawValue)\(attribute: "data-fragment", links[.inboxCount])"
        return unread > 0
            ? "<span class=\"badge\"\(attributes)>\(unread)<span class=\"visually-hidden\"> unread</span></span>"
            : "<span class=\"badge\"\(attributes) hidden></span>"
    }
}

extension FragmentID {
    /// The nav's unread badge.
    public static let inboxCount = FragmentID("inbox-count")
    /// The inbox page's list.
    public static let inboxList = FragmentID("inbox-list")
}

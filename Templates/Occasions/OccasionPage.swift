/// The frame of every occasion page: its name and who it is for, the
/// balance, the tabs, and the live region the page script refetches when
/// anything in the occasion changes.
public enum OccasionPage {
    public enum Tab: String, Sendable, CaseIterable {
        case overview, challenges, gifts, timeline, people, host

        var label: String {
            switch self {
            case .overview: "Overview"
            case .challenges: "Challenges"
            case .gifts: "Gifts"
            case .timeline: "Timeline"
            case .people: "People"
            case .host: "Host panel"
            }
        }

    }

    /// Where the occasion's own pages are; the header carries them so every
    /// page of the occasion can link to the others.
    public struct Paths: Sendable {
        public var overview: String
        public var challenges: String
        public var classified: String
        public var gift: String
        public var dare: String
        public var gifts: String
        public var timeline: String
        public var people: String
        public var host: String
        public init(
            overview: String, challenges: String, classified: String, gift: String, dare: String, gifts: String, timeline: String,
            people: String, host: String
        ) {
            self.overview = overview
            self.challenges = challenges
            self.classified = classified
            self.gift = gift
            self.dare = dare
            self.gifts = gifts
            self.timeline = timeline
            self.people = people
            self.host = host
        }

        func tab(_ tab: Tab) -> String {
            switch tab {
            case .overview: overview
            case .challenges: challenges
            case .gifts: gifts
            case .timeline: timeline
            case .people: people
            case .host: host
            }
        }
    }

    public struct Header: Sendable {
        public var id: Int64
        public var name: String
        public var kindLabel: String
        public var celebrantLabel: String
        public var celebrantName: String
        /// "Saturday 14 November 2026".
        public var date: String
        /// "2026-11-14", for `<time datetime>`.
        public var isoDate: String
        public var roleLabel: String
        public var balance: Int
        public var isOpen: Bool
        public var isHost: Bool
        /// Only the celebrant spends the points; everyone else is told whose they are.
        public var isCelebrant = false
        public var paths: Paths
        /// Notices above the page's own content: the reveal's countdown, the open book.
        public var banner: HTML = ""

        public init(
            id: Int64, name: String, kindLabel: String, celebrantLabel: String, celebrantName: String, date: String,
            isoDate: String, roleLabel: String, balance: Int, isOpen: Bool, isHost: Bool, paths: Paths
        ) {
            self.paths = paths
            self.isoDate = isoDate
            self.id = id
            self.name = name
            self.kindLabel = kindLabel
            self.celebrantLabel = celebrantLabel
            self.celebrantName = celebrantName
            self.date = date
            self.roleLabel = roleLabel
            self.balance = balance
            self.isOpen = isOpen
            self.isHost = isHost
        }
    }

    /// `livePath` is the page's own address: the live region refetches it.
    /// Pages where someone is writing (a gift, a dare) pass nil, so nothing
    /// is swapped under their typing.
    /// `showsBalance` is false where the body shows the balance itself (the
    /// celebrant's gift carousel), so it is said once.
    public static func render(
        title: String, context: PageContext, header: Header, tab: Tab?, livePath: String?, body: HTML, showsBalance: Bool = true
    ) -> HTML {
        let tabs = Tab.allCases.filter { $0 != .host || header.isHost }.map { item -> HTML in
            let current = item == tab
            return "<li><a\(attribute: "href", header.paths.tab(item))\(attribute: "aria-current", current ? "page" : nil)\(attribute: "class", current ? "tabs__link tabs__link--current" : "tabs__link")>\(item.label)</a></li>"
        }
        let closed: HTML =
            header.isOpen
            ? ""
            : "<p class=\"occasion-closed\" role=\"note\"><strong>Closed.</strong> The host has closed this occasion; it can be read but not played.</p>"
        let live: HTML =
            livePath.map { "<div class=\"stack\"\(attribute: "id", FragmentID.occasionLive.rawValue)\(attribute: "data-fragment", $0)>\n" }
            ?? "<div class=\"stack\">\n"
        // A live refetch morphs in only the live region: the frame, the
        // header and the tabs around it would be built for nothing.
        if context.fragmentOnly, livePath != nil {
            return "\(live)\(showsBalance ? balance(header) : "")\n\(closed)\(header.banner)\(body)\n</div>\n"
        }
        return Layout.page(
            title: "\(title) · \(header.name)", context: context,
            main: """
                <div class="container stack occasion"\(attribute: "data-ending-gone", "You're no longer in \(header.name)")>
                <header class="occasion-header">
                <p class="occasion-header__kind">\(header.kindLabel) · <time\(attribute: "datetime", header.isoDate)>\(header.date)</time></p>
                <h1><a class="occasion-header__name"\(attribute: "href", header.paths.overview)>\(header.name)</a></h1>
                <p class="muted">\(header.celebrantLabel): <strong>\(header.celebrantName)</strong> · You: \(header.roleLabel)</p>
                </header>
                <nav class="tabs" aria-label="\(header.name)"><ul class="tabs__list">\(tabs)</ul></nav>
                \(live)\(showsBalance ? balance(header) : "")
                \(closed)\(header.banner)\(body)
                </div>
                </div>
                """)
    }

    static func balance(_ header: Header) -> HTML {
        let unit = header.balance == 1 ? "point" : "points"
        let label: HTML =
            header.isCelebrant
            ? "<span class=\"points-balance__label\">\(unit) to spend</span>"
            : "<span class=\"points-balance__label\">\(unit) for \(header.celebrantName) to spend</span>"
        return "<p class=\"points-balance\" aria-live=\"polite\"><span class=\"points-balance__value\">\(header.balance)</span> \(label)</p>"
    }

    /// A labelled chip: "Hard", "Physical", "20 points".
    static func chip(_ text: String, kind: String) -> HTML {
        "<span\(attribute: "class", "chip chip--\(kind)")>\(text)</span>"
    }

    public static func points(_ value: Int) -> String { value == 1 ? "1 point" : "\(value) points" }

    /// A small form with one button: the occasion's actions are all posts.
    static func action(_ path: String, csrf: String?, button: HTML, fields: HTML = "") -> HTML {
        "<form class=\"inline-form\" method=\"post\"\(attribute: "action", path)>\(Layout.csrfField(csrf))\(fields)\(button)</form>"
    }
}

extension FragmentID {
    /// The live region of every occasion page.
    public static let occasionLive = FragmentID("occasion-live")
}

/// One person's burst of spots as one feed line: a family crossing three
/// states in an hour should not push everything else out of the feed.
public enum PlateFeedBursts {
    /// Spots by the same person this close together (newest to oldest in
    /// the run) are one burst.
    public static let window: Int64 = 30 * 60

    /// The feed (newest first) cut into runs: consecutive spots by the same
    /// person, each within `window` of the run's newest.
    public static func group(_ items: [PlateBoardPage.FeedItem]) -> [[PlateBoardPage.FeedItem]] {
        var runs: [[PlateBoardPage.FeedItem]] = []
        for item in items {
            if let newest = runs.last?.first, newest.playerName == item.playerName, newest.spottedAt - item.spottedAt <= window {
                runs[runs.count - 1].append(item)
            } else {
                runs.append([item])
            }
        }
        return runs
    }

    /// "Maya spotted Texas, Ohio and 3 more": the two newest named, the rest counted.
    public static func headline(_ burst: [PlateBoardPage.FeedItem]) -> String {
        guard let first = burst.first else { return "" }
        let who = first.playerName == "you" ? "You" : first.playerName
        let names = burst.map(\.regionName)
        let listed: String
        switch names.count {
        case 1: listed = names[0]
        case 2: listed = "\(names[0]) and \(names[1])"
        case 3: listed = "\(names[0]), \(names[1]) and \(names[2])"
        default: listed = "\(names[0]), \(names[1]) and \(names.count - 2) more"
        }
        return "\(who) spotted \(listed)"
    }
}

/// "Still missing": the regions nobody in the game (or the viewer) has
/// spotted yet, as a highlighted map and a list of names. A plain query
/// parameter, so it works without script and survives a live refresh.
public struct PlateMissing: Sendable, Equatable {
    public enum Whose: String, Sendable, CaseIterable {
        /// Nobody in the game has spotted it.
        case everyone
        /// The viewer has not spotted it.
        case me
    }

    /// The view asked for; nil shows the whole board.
    public var whose: Whose?
    /// Each choice's link: all, nobody's, mine.
    public var links: [(whose: Whose?, href: String)]
    /// The missing regions' names, when a view is chosen.
    public var names: [String]

    public init(whose: Whose? = nil, links: [(whose: Whose?, href: String)] = [], names: [String] = []) {
        self.whose = whose
        self.links = links
        self.names = names
    }

    public static func == (lhs: PlateMissing, rhs: PlateMissing) -> Bool {
        lhs.whose == rhs.whose && lhs.names == rhs.names && lhs.links.map(\.href) == rhs.links.map(\.href)
    }

    /// The map's modifier: the stylesheet fades whatever is not missing.
    public var mapClass: String { whose.map { " plate-map--missing-\($0.rawValue)" } ?? "" }

    static func label(_ whose: Whose?) -> String {
        switch whose {
        case nil: "Whole board"
        case .everyone: "Nobody has yet"
        case .me: "I haven't yet"
        }
    }

    /// The three views as links, the current one marked.
    public static func nav(_ missing: PlateMissing) -> HTML {
        guard !missing.links.isEmpty else { return .empty }
        let links = missing.links.map { link -> HTML in
            let current: HTML = link.whose == missing.whose ? " aria-current=\"page\"" : ""
            return "<li><a class=\"plate-filter-link\"\(attribute: "href", link.href)\(current)>\(label(link.whose))</a></li>"
        }
        return """
            <nav class="plate-missing-nav" aria-label="Still missing">
            <span class="plate-missing-nav__label">Show:</span>
            <ul>\(links.joined(separator: ""))</ul>
            </nav>
            """
    }

    /// The missing regions by name, for reading rather than looking.
    public static func summary(_ missing: PlateMissing) -> HTML {
        guard let whose = missing.whose else { return .empty }
        let who = whose == .everyone ? "Nobody has spotted" : "You haven't spotted"
        guard !missing.names.isEmpty else {
            return "<p class=\"plate-missing\" id=\"plate-missing\">\(whose == .everyone ? "Nothing is missing: every one has been spotted." : "Nothing is missing: you have spotted every one.")</p>"
        }
        return """
            <p class="plate-missing" id="plate-missing"><strong>\(who) \(missing.names.count == 1 ? "1 yet" : "\(missing.names.count) yet"):</strong> \
            \(missing.names.joined(separator: ", ")).</p>
            """
    }
}

/// Small drawings for plate games.
public enum PlateArt {
    /// A licence plate on an open road, for the dashboard's empty card.
    /// Presentation attributes only, since CSP allows no style attributes.
    public static let emptyState: HTML = """
        <svg class="empty-state__art" viewBox="0 0 160 128" width="160" height="128" aria-hidden="true">\
        <path d="M64 120 L76 56 L84 56 L96 120 Z" fill="#8A7D63" opacity="0.35"/>\
        <path d="M79 64 L81 64 L81.6 74 L78.4 74 Z M78.2 82 L81.8 82 L82.6 96 L77.4 96 Z M77 104 L83 104 L84 120 L76 120 Z" fill="#F5B13D"/>\
        <ellipse cx="80" cy="56" rx="44" ry="4" fill="#559D72" opacity="0.45"/>\
        <rect x="34" y="14" width="92" height="48" rx="8" fill="#FFFDF6" stroke="#1E6B43" stroke-width="4"/>\
        <rect x="42" y="20" width="76" height="8" rx="3" fill="#1E6B43"/>\
        <text x="80" y="52" text-anchor="middle" font-family="sans-serif" font-weight="800" font-size="20" fill="#2B2620">KITH 1</text>\
        <circle cx="42" cy="56" r="2.5" fill="#8A7D63"/><circle cx="118" cy="56" r="2.5" fill="#8A7D63"/>\
        <path class="twinkle" d="M136 16q0 6 6 6q-6 0-6 6q0-6-6-6q6 0 6-6z" fill="#F5A623"/></svg>
        """
}

/// An invite code shown to be read aloud: large, in groups of three, and
/// spelled out one character at a time for screen readers.
public enum PlateInviteCode {
    /// "K7P2QX" as "K7P 2QX".
    public static func grouped(_ code: String) -> String {
        stride(from: 0, to: code.count, by: 3).map { start -> String in
            let from = code.index(code.startIndex, offsetBy: start)
            let to = code.index(from, offsetBy: min(3, code.count - start))
            return String(code[from..<to])
        }.joined(separator: " ")
    }

    /// "K 7 P, 2 Q X": a pause between groups, each character on its own.
    public static func spoken(_ code: String) -> String {
        grouped(code).split(separator: " ").map { $0.map(String.init).joined(separator: " ") }.joined(separator: ", ")
    }

    public static func render(_ code: String) -> HTML {
        """
        <p class="plate-invite-code"><span class="plate-invite-code__label">Code</span> \
        <strong class="plate-code mono" aria-hidden="true">\(grouped(code))</strong>\
        <span class="visually-hidden">\(spoken(code))</span></p>
        """
    }
}

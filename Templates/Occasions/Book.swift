/// The shared book: every unlocked gift, in the order the celebrant opened
/// them, for every member once the host opens it after the finale.
public enum OccasionBookPage {
    public struct Entry: Sendable {
        public var id: Int64
        public var title: String
        public var when: String
        public var isoTime: String
        public var content: HTML
        public var url: String
        public init(id: Int64, title: String, when: String, isoTime: String, content: HTML, url: String) {
            self.id = id
            self.title = title
            self.when = when
            self.isoTime = isoTime
            self.content = content
            self.url = url
        }
    }

    public struct Model: Sendable {
        /// What the viewer is told about the book's state, first.
        public var status: String
        public var entries: [Entry]
        public var empty: String
        public var partyURL: String?
        public init(status: String, entries: [Entry], empty: String, partyURL: String?) {
            self.status = status
            self.entries = entries
            self.empty = empty
            self.partyURL = partyURL
        }
    }

    public static func render(context: PageContext, header: OccasionPage.Header, path: String, model: Model) -> HTML {
        let entries = model.entries.map { entry -> HTML in
            """
            <li><article class="card stack book-entry"\(attribute: "id", "book-gift-\(entry.id)") aria-labelledby="book-gift-\(entry.id)-title">
            <h3\(attribute: "id", "book-gift-\(entry.id)-title")><a\(attribute: "href", entry.url)>\(entry.title)</a></h3>
            <p class="muted">Opened <time\(attribute: "datetime", entry.isoTime)>\(entry.when)</time></p>
            \(entry.content)
            </article></li>
            """
        }
        let list: HTML =
            model.entries.isEmpty
            ? "<p class=\"muted\">\(model.empty)</p>"
            : "<ol class=\"stack book-list\" role=\"list\">\(entries)</ol>"
        let party: HTML = model.partyURL.map { Button.link("Party mode", href: $0, style: .secondary, small: true) } ?? ""
        return OccasionPage.render(
            title: "The book", context: context, header: header, tab: .gifts, livePath: path,
            body: """
                <section class="stack book" aria-labelledby="book-heading">
                <h2 id="book-heading">The book</h2>
                <p>\(model.status)</p>
                \(party)
                \(list)
                </section>
                """)
    }
}

/// Notices an occasion page carries above its content.
public enum OccasionBanner {
    /// The book is open: a way in from the occasion's pages, and to party mode.
    public static func book(url: String, partyURL: String) -> HTML {
        "<p class=\"card card--green book-banner\" role=\"note\"><strong>The book is open.</strong> <a\(attribute: "href", url)>Read every gift</a> · <a\(attribute: "href", partyURL)>Party mode</a></p>"
    }

    /// The time left before gifts can be unlocked: the server's words, which
    /// `countdown.js` keeps ticking (`data-countdown` is the moment and
    /// `data-now` the server's clock, both in Unix seconds).
    public static func countdown(until: Int64, now: Int64, isoTime: String, when: String, remaining: String, lead: String) -> HTML {
        """
        <div class="card card--pink countdown" role="note">
        <p><strong>\(lead)</strong> <time\(attribute: "datetime", isoTime)>\(when)</time></p>
        <p class="countdown__left">That's in <span class="countdown__value"\(attribute: "data-countdown", String(until))\(attribute: "data-now", String(now))>\(remaining)</span>.</p>
        </div>
        """
    }
}

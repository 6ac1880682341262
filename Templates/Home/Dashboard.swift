/// The signed-in home: what you share, by kind, and a box for an invite code.
public enum Dashboard {
    public struct Model: Sendable {
        public var displayName: String
        public var isGuest: Bool
        /// One per feature, in the order features registered them.
        public var sections: [HTML]
        /// The choice of which section leads, when there is one to make.
        public var lead: Lead?
        public init(displayName: String, isGuest: Bool, sections: [HTML] = [], lead: Lead? = nil) {
            self.displayName = displayName
            self.isGuest = isGuest
            self.sections = sections
            self.lead = lead
        }
    }

    /// Which section the person put first ("" lets content decide).
    public struct Lead: Sendable {
        public var action: String
        public var current: String
        public var choices: [(value: String, label: String)]
        public init(action: String, current: String, choices: [(value: String, label: String)]) {
            (self.action, self.current, self.choices) = (action, current, choices)
        }
    }

    /// One section in its place, named so the page (and its tests) can
    /// tell which is where.
    public static func slot(name: String, _ section: HTML) -> HTML {
        "<div class=\"dashboard-slot\"\(attribute: "data-dashboard-section", name)>\(section)</div>"
    }

    /// A section with nothing in it yet, as one compact row.
    public static func start(name: String, title: String, empty: String, action: String, href: String) -> HTML {
        let id = "dashboard-start-\(name)"
        return """
            <section class="dashboard-start cluster"\(attribute: "aria-labelledby", id)>
            <h2 class="dashboard-start__title"\(attribute: "id", id)>\(title)</h2>
            <p class="dashboard-start__text"><span class="muted">\(empty)</span> · <a\(attribute: "href", href)>\(action)</a></p>
            </section>
            """
    }

    static func leadForm(_ lead: Lead?, csrfToken: String?) -> HTML {
        guard let lead else { return "" }
        let options: [HTML] = ([("", "Whatever has something in it")] + lead.choices).map { choice in
            "<option\(attribute: "value", choice.value)\(attribute: "selected", when: choice.value == lead.current)>\(choice.label)</option>"
        }
        return """
            <form class="dashboard-lead cluster" method="post"\(attribute: "action", lead.action)>
            \(Layout.csrfField(csrfToken))
            <label for="dashboard-lead">Show first</label>
            <select class="field__input" id="dashboard-lead" name="lead">\(options)</select>
            \(Button.secondary("Save", small: true))
            </form>
            """
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let claim: HTML =
            model.isGuest
            ? """
            <aside class="card card--gold claim-prompt" aria-label="Keep your account">
            <p><strong>You're here as a guest.</strong> Choose a username and password to keep your account and sign in from anywhere.</p>
            <p>\(Button.link("Keep my account", href: context.links[.claimForm], style: .gold, small: true))</p>
            </aside>
            """
            : ""
        return Layout.page(
            title: "Home", context: context,
            main: """
                <section class="container stack">
                <header class="page-header"><h1>Hello, \(model.displayName)</h1></header>
                \(claim)
                <form class="join-box card cluster" method="post"\(attribute: "action", context.links[.joinLookup])>
                \(Layout.csrfField(context.csrfToken))
                <label for="join-code">Got an invite code?</label>
                <input class="field__input" id="join-code" name="code" maxlength="400" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="e.g. K7M2QX">
                \(Button.secondary("Join"))
                </form>
                <div class="grid dashboard-sections">
                \(model.sections)
                </div>
                \(leadForm(model.lead, csrfToken: context.csrfToken))
                </section>
                """)
    }
}

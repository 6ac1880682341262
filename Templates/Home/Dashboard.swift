/// The signed-in home: what you share, by kind, and a box for an invite code.
public enum Dashboard {
    public struct Model: Sendable {
        public var displayName: String
        public var isGuest: Bool
        /// One per feature, in the order features registered them.
        public var sections: [HTML]
        public init(displayName: String, isGuest: Bool, sections: [HTML] = []) {
            self.displayName = displayName
            self.isGuest = isGuest
            self.sections = sections
        }
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
                </section>
                """)
    }
}

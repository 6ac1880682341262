/// The signed-in home: what you share, by kind, and a box for an invite code.
public enum Dashboard {
    public struct Model: Sendable {
        public var displayName: String
        public var isGuest: Bool
        public init(displayName: String, isGuest: Bool) {
            self.displayName = displayName
            self.isGuest = isGuest
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let claim: HTML =
            model.isGuest
            ? """
            <aside class="card card--gold claim-prompt" aria-label="Keep your account">
            <p><strong>You're here as a guest.</strong> Choose a username and password to keep your account and sign in from anywhere.</p>
            <p>\(Button.link("Keep my account", href: "/claim", style: .gold, small: true))</p>
            </aside>
            """
            : ""
        return Layout.page(
            title: "Home", context: context,
            main: """
                <section class="container stack">
                <header class="page-header"><h1>Hello, \(model.displayName)</h1></header>
                \(claim)
                <form class="join-box card cluster" method="post" action="/join">
                \(Layout.csrfField(context.csrfToken))
                <label for="join-code">Got an invite code?</label>
                <input class="field__input" id="join-code" name="code" maxlength="400" autocomplete="off" autocapitalize="characters" spellcheck="false" placeholder="e.g. K7M2QX">
                \(Button.secondary("Join"))
                </form>
                <div class="grid">
                <section class="stack" aria-labelledby="occasions-heading"><h2 id="occasions-heading">Occasions</h2>
                \(EmptyState.render(title: "No occasions yet", message: "Celebrations you host or join will appear here.", headingLevel: 3))</section>
                <section class="stack" aria-labelledby="games-heading"><h2 id="games-heading">Plate games</h2>
                \(EmptyState.render(title: "No games yet", message: "Road-trip games you play will appear here.", headingLevel: 3))</section>
                <section class="stack" aria-labelledby="tallies-heading"><h2 id="tallies-heading">Tallies</h2>
                \(EmptyState.render(title: "No tallies yet", message: "Counters you keep with friends will appear here.", headingLevel: 3))</section>
                </div>
                </section>
                """)
    }
}

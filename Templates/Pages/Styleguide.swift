/// Every token and component of Kith on one page, twice: in a light panel
/// and a dark panel, side by side on a laptop and stacked on a phone. It is
/// the place to check a change to the stylesheet against everything at once.
/// Served in development mode only.
public enum Styleguide {
    /// `live` is a demonstration of live updates the app supplies (a fragment
    /// that refreshes itself when anyone presses its button).
    public static func render(context: PageContext, live: HTML = HTML()) -> HTML {
        // Its own sheet and those of the feature visuals it shows; their
        // scripts stay off this page, which shows them as they are without.
        var context = context
        context.stylesheets += ["css/styleguide.css", "css/occasions.css", "css/timeline.css", "css/plates.css"]
        let occasions = OccasionVisualsDemo.render(assetURL: context.assetURL)
        return Layout.page(
            title: "Styleguide", context: context,
            main: """
                <header class="page-header sg-intro">
                <h1>Kith styleguide</h1>
                <p>Every design token and component, in the light theme and the dark theme. Brand colours are for
                fills, glows and large display type; text uses the derived shades, each shown with its contrast
                ratio against the page and against a card.</p>
                </header>
                \(live)
                <div class="sg-panels">
                \(panel(.light, occasions: occasions))
                \(panel(.dark, occasions: occasions))
                </div>
                """)
    }

    /// The live-update demonstration: a fragment showing how many pings this
    /// server has seen, and a button that pings every open styleguide.
    public static func liveDemo(count: Int, fragmentURL: String, pingAction: String, csrfToken: String) -> HTML {
        """
        <section\(attribute: "id", FragmentID.styleguidePings.rawValue) class="card"\(attribute: "data-fragment", fragmentURL) aria-live="polite">
        <p>Pings seen live: <strong>\(count)</strong></p>
        <form method="post"\(attribute: "action", pingAction) data-enhance\(attribute: "data-target", FragmentID.styleguidePings.rawValue)>
        \(Layout.csrfField(csrfToken))
        <button class="button" type="submit">Ping every open styleguide</button>
        </form>
        </section>
        """
    }

    /// A colour token as the stylesheet declares it in each theme, so the
    /// page can print it and a test can hold the stylesheet to it.
    struct Swatch: Sendable {
        /// The custom property, without its leading `--`.
        let token: String
        let light: String
        let dark: String
        let role: String
    }

    /// A text colour with its WCAG contrast ratio against the page and the
    /// card surface of each theme.
    struct TextSwatch: Sendable {
        let token: String
        let light: String
        let dark: String
        let lightRatios: (page: Double, surface: Double)
        let darkRatios: (page: Double, surface: Double)
    }

    static let brandSwatches: [Swatch] = [
        Swatch(token: "purple", light: "#7C5CFC", dark: "#7C5CFC", role: "primary fill, glows"),
        Swatch(token: "pink", light: "#FF6B9D", dark: "#FF6B9D", role: "warm fill, badges"),
        Swatch(token: "gold", light: "#F5A623", dark: "#F5A623", role: "rewards, affordable"),
        Swatch(token: "cream", light: "#FBF7F4", dark: "#FBF7F4", role: "paper"),
        Swatch(token: "blue", light: "#5B8DEF", dark: "#5B8DEF", role: "challenge nodes"),
        Swatch(token: "navy", light: "#0E1730", dark: "#0E1730", role: "the dossier"),
        Swatch(token: "red", light: "#D7262D", dark: "#D7262D", role: "dossier stamps"),
        Swatch(token: "sign-green", light: "#1E6B43", dark: "#1E6B43", role: "highway signs"),
        Swatch(token: "road-yellow", light: "#F2C12E", dark: "#F2C12E", role: "centre lines"),
    ]

    static let surfaceSwatches: [Swatch] = [
        Swatch(token: "page", light: "#FBF7F4", dark: "#17141D", role: "behind everything"),
        Swatch(token: "surface", light: "#FFFFFF", dark: "#221D2B", role: "cards, fields"),
        Swatch(token: "surface-muted", light: "#F4EFF7", dark: "#2C2638", role: "wells, hovers"),
        Swatch(token: "line", light: "#EAE3F0", dark: "#3A3347", role: "decorative rules"),
        Swatch(token: "line-strong", light: "#8C839A", dark: "#857C98", role: "control borders, ≥ 3:1"),
        Swatch(token: "fill-primary", light: "#6441F1", dark: "#6441F1", role: "to --fill-primary-end #C8216A"),
        Swatch(token: "fill-danger", light: "#B42318", dark: "#B42318", role: "destructive actions"),
        Swatch(token: "focus-ring", light: "#4A2CC4", dark: "#FFC857", role: "3px focus outline"),
    ]

    static let textSwatches: [TextSwatch] = [
        TextSwatch(token: "ink", light: "#2A2433", dark: "#F4EFFA", lightRatios: (14.09, 15.01), darkRatios: (16.09, 14.53)),
        TextSwatch(token: "ink-soft", light: "#5C5566", dark: "#C5BDD3", lightRatios: (6.69, 7.13), darkRatios: (10.04, 9.07)),
        TextSwatch(token: "text-purple", light: "#5B3DD9", dark: "#B7A6FF", lightRatios: (6.33, 6.74), darkRatios: (8.59, 7.75)),
        TextSwatch(token: "text-pink", light: "#B8154F", dark: "#FF8FB5", lightRatios: (6.05, 6.45), darkRatios: (8.53, 7.70)),
        TextSwatch(token: "text-gold", light: "#875A00", dark: "#F5B13D", lightRatios: (5.64, 6.01), darkRatios: (9.74, 8.79)),
        TextSwatch(token: "text-green", light: "#1E6B43", dark: "#72D09A", lightRatios: (6.09, 6.48), darkRatios: (9.71, 8.76)),
        TextSwatch(token: "text-blue", light: "#2456D6", dark: "#93B3FF", lightRatios: (5.84, 6.22), darkRatios: (8.78, 7.92)),
        TextSwatch(token: "text-danger", light: "#B42318", dark: "#FF8B85", lightRatios: (6.17, 6.57), darkRatios: (8.04, 7.26)),
    ]

    // MARK: - One panel

    enum PanelTheme: String {
        case light, dark
        var title: String { self == .light ? "Light theme" : "Dark theme" }
    }

    /// Everything below is rendered once per theme; ids carry the theme's
    /// name so the two panels never share one.
    static func panel(_ theme: PanelTheme, occasions: HTML) -> HTML {
        let id = "sg-\(theme.rawValue)"
        return """
            <section class="sg-panel theme-\(theme.rawValue)"\(attribute: "aria-labelledby", id)>
            <h2\(attribute: "id", id)>\(theme.title)</h2>
            \(colours(theme))
            \(typography())
            \(spaceRadiiShadows())
            \(buttons())
            \(badgesAndFlashes())
            \(forms(theme))
            \(cards())
            \(emptyState())
            \(motion())
            \(dossier(theme))
            \(occasions)
            \(roadTrip())
            </section>
            """
    }

    static func colours(_ theme: PanelTheme) -> HTML {
        func fill(_ swatch: Swatch) -> HTML {
            let value = theme == .light ? swatch.light : swatch.dark
            return """
                <li class="sg-swatch sg-swatch--\(swatch.token)"><span class="sg-swatch__chip"></span>\
                <span class="sg-swatch__name">--\(swatch.token)</span>\
                <span class="sg-swatch__note">\(value) · \(swatch.role)</span></li>
                """
        }
        let text = textSwatches.map { swatch -> HTML in
            let value = theme == .light ? swatch.light : swatch.dark
            let ratios = theme == .light ? swatch.lightRatios : swatch.darkRatios
            return """
                <li class="sg-swatch sg-swatch--text sg-swatch--\(swatch.token)"><span class="sg-swatch__chip">Aa</span>\
                <span class="sg-swatch__name">--\(swatch.token)</span>\
                <span class="sg-swatch__note">\(value) · \(ratio(ratios.page)) on page · \(ratio(ratios.surface)) on surface</span></li>
                """
        }
        return """
            <div class="sg-section">
            <h3>Colour</h3>
            <h4>Brand fills</h4>
            <ul class="sg-swatches">
            \(brandSwatches.map(fill).joined(separator: "\n"))
            </ul>
            <h4>Surfaces, lines and fills</h4>
            <ul class="sg-swatches">
            \(surfaceSwatches.map(fill).joined(separator: "\n"))
            </ul>
            <h4>Text (WCAG AA needs 4.5:1)</h4>
            <ul class="sg-swatches">
            \(text.joined(separator: "\n"))
            </ul>
            </div>
            """
    }

    /// "6.33:1", always with two decimals.
    static func ratio(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction):1"
    }

    static func typography() -> HTML {
        let sizes: [(token: String, sample: String)] = [
            ("text-2xl", "Summer road trip"),
            ("text-xl", "Happy birthday, Sam"),
            ("text-lg", "Three gifts are waiting"),
            ("text-md", "Complete a challenge to earn points."),
            ("text-sm", "Updated by Dad two hours ago"),
            ("text-xs", "26 OF 50 STATES"),
        ]
        let scale = sizes.map { size -> HTML in
            "<li><span>--\(size.token)</span><span class=\"\(size.token)\">\(size.sample)</span></li>"
        }
        return """
            <div class="sg-section sg-type">
            <h3>Type</h3>
            <p class="text-display gradient-text">Hooray!</p>
            <p class="muted">Display type may use the brand gradient: at this size it is large text.</p>
            <ul class="sg-scale">
            \(scale.joined(separator: "\n"))
            </ul>
            <p class="tagline text-lg">Little rituals for your people.</p>
            <p class="mono text-sm">FILE 0042 · CLEARANCE: CELEBRANT</p>
            <p>Body text in the rounded stack with <a href="#main">a link</a>, <strong>strong words</strong> and <code>code</code>.</p>
            </div>
            """
    }

    static func spaceRadiiShadows() -> HTML {
        let spaces = ["0.25rem", "0.5rem", "0.75rem", "1rem", "1.5rem", "2rem", "3rem", "4.5rem"].enumerated().map {
            index, size -> HTML in
            "<li><span>--space-\(index + 1)</span><span class=\"sg-bar sg-bar--\(index + 1)\"></span><span>\(size)</span></li>"
        }
        let radii = ["radius-s", "radius-m", "radius-l", "radius-xl", "radius-pill"].map { token -> HTML in
            "<li class=\"sg-tile sg-tile--\(token)\">--\(token)</li>"
        }
        let shadows = ["shadow-1", "shadow-2", "shadow-3"].map { token -> HTML in
            "<li class=\"sg-tile sg-tile--\(token)\">--\(token)</li>"
        }
        return """
            <div class="sg-section">
            <h3>Space, radii, shadows</h3>
            <ul class="sg-scale">
            \(spaces.joined(separator: "\n"))
            </ul>
            <h4>Radii</h4>
            <ul class="sg-tiles">
            \(radii.joined(separator: "\n"))
            </ul>
            <h4>Shadows</h4>
            <ul class="sg-tiles">
            \(shadows.joined(separator: "\n"))
            </ul>
            </div>
            """
    }

    static func buttons() -> HTML {
        """
        <div class="sg-section">
        <h3>Buttons</h3>
        <div class="cluster">
        \(Button.primary("Create occasion", type: .button))
        \(Button.secondary("Invite friends", type: .button))
        \(Button.danger("Delete tally", type: .button))
        \(Button.gold("Unlock gift", type: .button))
        </div>
        <div class="cluster">
        \(Button.primary("Small", type: .button, small: true))
        \(Button.secondary("Small secondary", type: .button, small: true))
        <button class="button" type="button" disabled>Disabled</button>
        \(Button.link("A link as a button", href: "#main", style: .secondary))
        <button class="link-button" type="button">Link-style button</button>
        </div>
        </div>
        """
    }

    static func badgesAndFlashes() -> HTML {
        """
        <div class="sg-section">
        <h3>Badges and flash messages</h3>
        <div class="cluster">
        <a href="#main">Inbox <span class="badge">3<span class="visually-hidden"> unread</span></span></a>
        <span class="badge badge--gold">250 pts</span>
        <span class="badge badge--purple">Host</span>
        <span class="badge badge--green">26 / 50</span>
        <span class="badge badge--quiet">View only</span>
        </div>
        <div class="stack stack--tight">
        <p class="flash flash--notice">Saved. Your tally is ready to share.</p>
        <p class="flash flash--error">That invite code has expired. Ask the host for a new link.</p>
        </div>
        </div>
        """
    }

    static func forms(_ theme: PanelTheme) -> HTML {
        let p = theme.rawValue
        let errors = FormErrors.render([
            (field: "\(p)-display-name", message: "Please tell us what to call you."),
            (field: nil, message: "Nothing was saved yet."),
        ])
        return """
            <div class="sg-section">
            <h3>Form fields</h3>
            <div class="form">
            \(errors)
            \(FormField.text(name: "\(p)-username", label: "Username", value: "dad_ross", hint: "3–30 letters, digits, dots or underscores.", required: true, maxLength: 30, autocomplete: "username"))
            \(FormField.text(name: "\(p)-display-name", label: "Display name", value: "", error: "Please tell us what to call you.", required: true, maxLength: 60, autocomplete: "nickname"))
            \(FormField.text(name: "\(p)-email", label: "Email (optional)", type: .email, autocomplete: "email"))
            \(FormField.text(name: "\(p)-password", label: "Password", hint: "At least 10 characters.", type: .password, required: true, autocomplete: "new-password"))
            \(FormField.text(name: "\(p)-search", label: "Find a state", type: .search, placeholder: "Rhode Island"))
            \(FormField.text(name: "\(p)-date", label: "Date of the occasion", value: "2025-06-14", type: .date))
            \(FormField.number(name: "\(p)-points", label: "Points", value: "25", hint: "Between 5 and 100.", min: 5, max: 100))
            \(FormField.textarea(name: "\(p)-letter", label: "Your letter", value: "Dear Sam,\n\nHappy birthday!", hint: "Markdown works: *italic*, **bold**, lists.", rows: 4))
            \(FormField.select(name: "\(p)-reset", label: "Reset", options: [("off", "Never"), ("daily", "Every day at midnight"), ("monthly", "On the 1st of each month"), ("yearly", "Every 1 January")], selected: "daily"))
            \(FormField.radios(name: "\(p)-numbers", legend: "Number style", options: [("arabic", "1, 2, 3"), ("roman", "I, II, III"), ("stick", "Tally marks")], selected: "roman"))
            \(FormField.checkbox(name: "\(p)-fireworks", label: "Fireworks when a friend adds one", checked: true, hint: "Only on this tally."))
            \(FormField.checkbox(name: "\(p)-confirm", label: "I understand this cannot be undone", error: "Tick this to delete your account."))
            <div class="form-actions">\(Button.primary("Save", type: .button))\(Button.secondary("Cancel", type: .button))</div>
            </div>
            </div>
            """
    }

    static func cards() -> HTML {
        """
        <div class="sg-section">
        <h3>Cards</h3>
        <div class="grid">
        \(Card.render(title: "Coffees", headingLevel: 4, body: "<p class=\"text-2xl\"><strong>12</strong></p><p class=\"muted\">Shared with Maya and Jo</p>"))
        \(Card.render(title: "Sing in public", headingLevel: 4, accent: .purple, body: "<p>Serenade a stranger with one verse of anything.</p>", footer: "<span class=\"badge badge--purple\">30 pts</span>"))
        \(Card.render(title: "A letter from Jo", headingLevel: 4, accent: .gold, body: "<p>Affordable now: it glows gold.</p>", footer: Button.gold("Unlock for 40", type: .button, small: true)))
        <article class="card frosted"><h4 class="card__title">A gift from Maya</h4><p>A voice note <span class="badge badge--quiet">Locked</span></p><p class="muted">.frosted: what is coming, not what it is.</p></article>
        <article class="card pulse-gold"><h4 class="card__title">Voice note</h4><p>.pulse-gold: the affordable state, breathing.</p></article>
        </div>
        </div>
        """
    }

    static func emptyState() -> HTML {
        """
        <div class="sg-section">
        <h3>Empty state</h3>
        \(EmptyState.render(title: "No tallies yet", message: "Count anything with friends: coffees, push-ups, days until the trip.", action: Button.link("Start a tally", href: "#main"), headingLevel: 4))
        </div>
        """
    }

    static func motion() -> HTML {
        let dots = (1...8).map { _ -> HTML in "<span class=\"sg-dot\"></span>" }
        return """
            <div class="sg-section">
            <h3>Motion</h3>
            <div class="grid grid--narrow">
            <div class="sg-motion-demo spring-in">.spring-in</div>
            <div class="sg-motion-demo breathe">.breathe</div>
            <div class="sg-motion-demo breathe breathe--pink">.breathe--pink</div>
            <div class="sg-motion-demo pulse-gold">.pulse-gold</div>
            </div>
            <h4>.stagger</h4>
            <div class="sg-motion-demo stagger">\(dots)</div>
            <h4>Celebrations</h4>
            <div class="cluster">
            <button class="button button--small" type="button" data-celebrate-on-click="confetti">Confetti</button>
            <button class="button button--small button--gold" type="button" data-celebrate-on-click="fireworks">Fireworks</button>
            <button class="button button--small button--secondary" type="button" data-celebrate-on-click="sparkle">Sparkle</button>
            </div>
            <dl>
            <dt><code>data-celebrate="confetti|fireworks|sparkle"</code></dt>
            <dd>On any element: plays once when <code>scan(root)</code> in <code>motion.js</code> finds it (after a page
            load or a live fragment swap), then is marked <code>data-celebrated</code>.</dd>
            <dt><code>data-celebrate-on-click="…"</code></dt>
            <dd>On a button: plays on every click, from the button, once <code>wireClickDemos(root)</code> has run.</dd>
            <dt><code>.pop</code>, <code>.shake</code></dt>
            <dd>One-shot: add the class for a count that went up, or a gentle “view only” refusal.</dd>
            </dl>
            <p class="muted">With reduced motion, every animation stops; glows hold still at their midpoint and
            celebrations leave a golden glow instead of particles.</p>
            </div>
            """
    }

    static func dossier(_ theme: PanelTheme) -> HTML {
        let p = theme.rawValue
        return """
            <div class="sg-section">
            <h3>The dossier</h3>
            <div class="dossier stack">
            <div class="cluster cluster--between"><p class="stamp">Classified</p>\
            <p class="dossier__meta"><span>File 0042</span><span>Eyes: celebrant only</span></p></div>
            <h4>Secret dare</h4>
            <p>Agent, your mission: order your next coffee in \
            <span class="redacted" aria-hidden="true">an accent</span><span class="visually-hidden">[redacted]</span> \
            and keep a straight face.</p>
            \(FormField.textarea(name: "\(p)-dare", label: "The dare", hint: "Only the celebrant will ever read this.", rows: 3))
            \(FormField.number(name: "\(p)-dare-points", label: "Points", value: "40", error: "The host allows 10 to 35 points.", min: 10, max: 35))
            <div class="form-actions">\(Button.primary("Seal the dossier", type: .button))</div>
            </div>
            </div>
            """
    }

    static func roadTrip() -> HTML {
        let plates: [(state: String, code: String, spotted: Bool)] = [
            ("Idaho", "ID", true), ("Minnesota", "MN", true), ("Rhode Island", "RI", false), ("Texas", "TX", false),
        ]
        let plateItems = plates.map { plate -> HTML in
            let status: HTML = plate.spotted ? "<span class=\"visually-hidden\">, spotted</span>" : ""
            return
                "<li><span class=\"plate\(plate.spotted ? " plate--spotted" : "")\"><span class=\"plate__state\">\(plate.state)</span><span class=\"plate__code\">\(plate.code)</span>\(status)</span></li>"
        }
        return """
            <div class="sg-section">
            <h3>The road trip</h3>
            <div class="roadtrip stack">
            <h4 class="road-sign">Summer Road Trip · 26 of 50</h4>
            <ul class="cluster">
            \(plateItems.joined(separator: "\n"))
            </ul>
            <hr class="road-line">
            <ul class="stack stack--tight">
            <li><strong>Idaho</strong> — Dad — <span class="muted">2 hours ago</span></li>
            <li><strong>Minnesota</strong> — Mom — <span class="muted">yesterday</span></li>
            </ul>
            <p>Links go <a href="#main">interstate blue</a>.</p>
            <div class="form-actions">\(Button.primary("Spotted a plate!", type: .button))\(Button.secondary("Undo", type: .button))</div>
            </div>
            </div>
            """
    }
}

extension FragmentID {
    /// The styleguide's live demonstration.
    public static let styleguidePings = FragmentID("styleguide-pings")
}

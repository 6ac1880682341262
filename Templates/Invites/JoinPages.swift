/// `/join`: type or paste a code or a whole link.
public enum JoinFormPage {
    public static func render(context: PageContext, value: String?, error: String?, status: String? = nil) -> HTML {
        Layout.page(
            title: "Join with a code", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Join with a code</h1>
                <p class="muted">Got a six-character code or a link from a friend? Paste it here. Case, spaces and dashes don't matter.</p></header>
                \(FormErrors.render(error.map { [("code", $0)] } ?? []))
                <form class="form stack" method="post"\(attribute: "action", context.links[.joinLookup]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.text(name: "code", label: "Code or link", value: value, hint: "For example K7M2QX.", error: error, required: true, maxLength: 400, autocomplete: "off"))
                <div class="form-actions">\(Button.primary("Continue"))</div>
                </form>
                </section>
                """)
    }
}

/// `GET /join/CODE`: what the code opens, and the button that joins. Shows
/// only the name, the kind, the role and who invited — the page is public
/// to anyone holding the link.
public enum JoinPreviewPage {
    public struct Model: Sendable {
        /// Where joining posts.
        public var action: String
        /// Sign in, then come back to this invitation.
        public var signInFirst: String
        public var name: String
        public var kindLabel: String
        public var role: String
        public var inviter: String?
        /// The guest fields for a signed-out visitor; nil when signed in.
        public var guestFields: HTML?
        public var errors: FormState
        public init(
            action: String, signInFirst: String, name: String, kindLabel: String, role: String, inviter: String?, guestFields: HTML?,
            errors: FormState
        ) {
            self.action = action
            self.signInFirst = signInFirst
            self.name = name
            self.kindLabel = kindLabel
            self.role = role
            self.inviter = inviter
            self.guestFields = guestFields
            self.errors = errors
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let invited: HTML = model.inviter.map { "<p class=\"muted\">\($0) invited you.</p>" } ?? ""
        let form: HTML
        if let guestFields = model.guestFields {
            form = """
                \(model.errors.summary(order: ["display_name", "avatar", "time_zone"]))
                <form class="form stack" method="post"\(attribute: "action", model.action) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(guestFields)
                <div class="form-actions">\(Button.primary("Join as \(model.role)"))</div>
                </form>
                <p>Have an account? <a\(attribute: "href", model.signInFirst)>Sign in first</a>, and join with it.</p>
                """
        } else {
            form = """
                \(model.errors.summary(order: []))
                <form method="post"\(attribute: "action", model.action) class="form-actions">
                \(Layout.csrfField(context.csrfToken))
                \(Button.primary("Join as \(model.role)"))
                </form>
                """
        }
        return Layout.page(
            title: "Join \(model.name)", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header">
                <p class="muted">You're invited to a \(model.kindLabel)</p>
                <h1>\(model.name)</h1>
                \(invited)
                </header>
                \(form)
                </section>
                """)
    }
}

/// After pressing join when joining changed nothing.
public enum JoinOutcomePage {
    public static func alreadyMember(context: PageContext, open link: String) -> HTML {
        Layout.page(
            title: "Already in", context: context,
            main: """
                <section class="container container--narrow stack"><h1>You're already in</h1>
                <p>\(Button.link("Open it", href: link))</p></section>
                """)
    }

    public static func refused(context: PageContext, message: String) -> HTML {
        Layout.page(
            title: "Can't join", context: context,
            main: """
                <section class="container container--narrow stack"><h1>That link can't be used</h1>
                <p>\(message)</p></section>
                """)
    }
}

/// Unknown and retired codes get the same answer: nothing here tells a
/// guesser which codes ever existed.
public enum JoinUnknownPage {
    public static func render(context: PageContext) -> HTML {
        Layout.page(
            title: "That code doesn't open anything", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>That code doesn't open anything</h1>
                <p>It may have been mistyped, or the host may have made a new one. Ask them for the current link.</p></header>
                <p>\(Button.link("Try another code", href: context.links[.join], style: .secondary))</p>
                </section>
                """)
    }
}

/// Where a host shares a link: the link to copy, and its QR code to scan or print.
public enum InviteLinkCard {
    public static func render(title: String, link: String, qrCode: HTML) -> HTML {
        """
        <section class="card stack invite-link">
        <h3 class="card__title">\(title)</h3>
        <label class="field__label"\(attribute: "for", "invite-" + link.suffix(6))>Link</label>
        <input class="field__input mono" readonly\(attribute: "id", "invite-" + link.suffix(6))\(attribute: "value", link)>
        <button class="button button--small button--secondary" type="button"\(attribute: "data-copy", link)>Copy link</button>
        \(qrCode)
        </section>
        """
    }
}

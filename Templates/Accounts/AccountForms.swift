/// What an account form shows again after a failed post: the values typed
/// (never passwords) and a message per field.
public struct FormState: Sendable {
    public var values: [String: String]
    public var errors: [String: String]
    /// A message about the form as a whole ("Too many attempts…").
    public var formError: String?
    /// A create form's one-time token (see `OnceTokens` in the app), so a
    /// second post of the same form creates nothing more.
    public var onceToken: String?

    public init(values: [String: String] = [:], errors: [String: String] = [:], formError: String? = nil, onceToken: String? = nil) {
        self.values = values
        self.errors = errors
        self.formError = formError
        self.onceToken = onceToken
    }

    /// The hidden field carrying `onceToken`, if any.
    public var onceField: HTML {
        guard let onceToken else { return "" }
        return "<input type=\"hidden\" name=\"_once\"\(attribute: "value", onceToken)>"
    }

    public var isValid: Bool { errors.isEmpty && formError == nil }

    /// The summary at the top, fields in the order they appear.
    func summary(order: [String]) -> HTML {
        var list: [(field: String?, message: String)] = order.compactMap { name in errors[name].map { (name, $0) } }
        if let formError { list.insert((nil, formError), at: 0) }
        return FormErrors.render(list)
    }
}

public enum SignUpPage {
    public static func render(context: PageContext, form: FormState, timeZones: [String], next: String?) -> HTML {
        Layout.page(
            title: "Sign up", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Make your Kith account</h1>
                <p class="muted">One account for every occasion, game and tally you share.</p></header>
                \(form.summary(order: ["display_name", "username", "password", "time_zone"]))
                <form class="form stack" method="post"\(attribute: "action", context.links[.signUp]) novalidate>
                \(Layout.csrfField(context.csrfToken))\(nextField(next))
                \(FormField.text(name: "display_name", label: "Your name", value: form.values["display_name"], hint: "What friends see next to everything you do.", error: form.errors["display_name"], required: true, maxLength: 60, autocomplete: "name"))
                \(FormField.text(name: "username", label: "Username", value: form.values["username"], hint: "3 to 30 letters, digits, underscores or dots. You sign in with it.", error: form.errors["username"], required: true, maxLength: 30, autocomplete: "username"))
                \(FormField.text(name: "password", label: "Password", hint: "8 to 128 characters.", error: form.errors["password"], type: .password, required: true, maxLength: 128, autocomplete: "new-password"))
                \(timeZoneField(timeZones, selected: form.values["time_zone"], error: form.errors["time_zone"], fresh: form.isValid))
                <div class="form-actions">\(Button.primary("Sign up"))</div>
                </form>
                <p>Already have an account? <a\(attribute: "href", context.links[.signInForm])>Sign in</a>.</p>
                </section>
                """)
    }

    /// The time-zone list. On a fresh form the page script selects the
    /// browser's own zone; a form shown again keeps what was chosen.
    public static func timeZoneField(_ zones: [String], selected: String?, error: String?, fresh: Bool, hint: String? = nil) -> HTML {
        let field = FormField.select(
            name: "time_zone", label: "Time zone", options: zones.map { ($0, $0.replacingUnderscores()) }, selected: selected,
            hint: hint ?? "Tallies reset at your midnight.", error: error)
        return "<div\(attribute: "data-time-zone", fresh ? "browser" : "chosen")>\(field)</div>"
    }
}

public enum SignInPage {
    public static func render(context: PageContext, form: FormState, next: String?) -> HTML {
        Layout.page(
            title: "Sign in", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Welcome back</h1></header>
                \(form.summary(order: ["username", "password"]))
                <form class="form stack" method="post"\(attribute: "action", context.links[.signIn]) novalidate>
                \(Layout.csrfField(context.csrfToken))\(nextField(next))
                \(FormField.text(name: "username", label: "Username", value: form.values["username"], error: form.errors["username"], required: true, maxLength: 30, autocomplete: "username"))
                \(FormField.text(name: "password", label: "Password", error: form.errors["password"], type: .password, required: true, maxLength: 128, autocomplete: "current-password"))
                <div class="form-actions">\(Button.primary("Sign in"))</div>
                </form>
                <p>New here? <a\(attribute: "href", context.links[.signUpForm])>Make an account</a>. Lost your password? <a\(attribute: "href", context.links[.recoverForm])>Use a recovery code</a>.</p>
                </section>
                """)
    }
}

public enum ClaimPage {
    public static func render(context: PageContext, form: FormState) -> HTML {
        Layout.page(
            title: "Keep your account", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Keep your account</h1>
                <p class="muted">Choose a username and password, and you can sign in from any browser. Everything you've joined stays yours.</p></header>
                \(form.summary(order: ["username", "password"]))
                <form class="form stack" method="post"\(attribute: "action", context.links[.claim]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.text(name: "username", label: "Username", value: form.values["username"], hint: "3 to 30 letters, digits, underscores or dots.", error: form.errors["username"], required: true, maxLength: 30, autocomplete: "username"))
                \(FormField.text(name: "password", label: "Password", hint: "8 to 128 characters.", error: form.errors["password"], type: .password, required: true, maxLength: 128, autocomplete: "new-password"))
                <div class="form-actions">\(Button.primary("Keep my account"))</div>
                </form>
                </section>
                """)
    }
}

/// Signing out, asked first. For a guest it is a warning: with no password,
/// this browser's session is their only way in.
public enum SignOutPage {
    public static func render(context: PageContext, isGuest: Bool) -> HTML {
        let warning: HTML =
            isGuest
            ? """
            <div class="card card--gold stack">
            <p><strong>You're a guest, so you have no password.</strong> If you sign out now you won't be able to
            get back into this account, or to anything you've joined with it.</p>
            <p>\(Button.link("Keep my account first", href: context.links[.claimForm], style: .gold))</p>
            </div>
            """
            : ""
        return Layout.page(
            title: "Sign out", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Sign out?</h1></header>
                \(warning)
                <form method="post"\(attribute: "action", context.links[.signOut]) class="form-actions">
                \(Layout.csrfField(context.csrfToken))
                \(isGuest ? Button.danger("Sign out anyway") : Button.primary("Sign out"))
                </form>
                </section>
                """)
    }
}

/// Shown once, right after sign-up (or after making new codes): the codes
/// are stored hashed, so this is the only time anyone sees them.
public enum RecoveryCodesPage {
    public static func render(context: PageContext, codes: [String], continueTo: String) -> HTML {
        let items = codes.map { code -> HTML in "<li><code class=\"mono\">\(code)</code></li>" }
        return Layout.page(
            title: "Your recovery codes", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Save your recovery codes</h1>
                <p>If you ever forget your password, one of these codes gets you back in. Each works once.
                Write them down or keep them somewhere safe: <strong>this is the only time Kith shows them.</strong></p></header>
                <ol class="recovery-codes card">\(items)</ol>
                <p>\(Button.link("I've saved them — continue", href: continueTo))</p>
                </section>
                """)
    }
}

func nextField(_ next: String?) -> HTML {
    guard let next else { return "" }
    return "<input type=\"hidden\" name=\"next\"\(attribute: "value", next)>"
}

extension String {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? " " : $0 }) }
}

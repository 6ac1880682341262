/// Getting back in with a recovery code, signed out.
public enum RecoverPage {
    public static func render(context: PageContext, form: FormState) -> HTML {
        Layout.page(
            title: "Use a recovery code", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Use a recovery code</h1>
                <p class="muted">Forgot your password? Type your username and one of the recovery codes you saved when you made your account. Each code works once, and you'll choose a new password straight after.</p></header>
                \(form.summary(order: ["username", "code"]))
                <form class="form stack" method="post"\(attribute: "action", context.links[.recover]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.text(name: "username", label: "Username", value: form.values["username"], error: form.errors["username"], required: true, maxLength: 30, autocomplete: "username"))
                \(FormField.text(name: "code", label: "Recovery code", hint: "Like ABCDE-23456. Capitals and dashes don't matter.", error: form.errors["code"], required: true, maxLength: 40, autocomplete: "one-time-code"))
                <div class="form-actions">\(Button.primary("Sign in with this code"))</div>
                </form>
                <p>Lost your codes too? Whoever runs this Kith can send you a reset link.</p>
                <p>Remembered it? <a\(attribute: "href", context.links[.signInForm])>Sign in</a>.</p>
                </section>
                """)
    }
}

/// What an operator's reset link opens. Opening it changes nothing (chat
/// apps fetch links to preview them); the button does.
public enum ResetLinkPage {
    public static func render(context: PageContext, action: String) -> HTML {
        Layout.page(
            title: "Reset your password", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Reset your password</h1>
                <p>This link signs this browser in to your account once. You'll choose a new password straight after.</p></header>
                <form class="form" method="post"\(attribute: "action", action)>
                \(Layout.csrfField(context.csrfToken))
                <div class="form-actions">\(Button.primary("Sign in and choose a new password"))</div>
                </form>
                </section>
                """)
    }
}

/// "Continue in another browser": the explanation and the button that makes a link.
public enum ContinueStartPage {
    public static func render(context: PageContext, action: String, minutes: Int) -> HTML {
        Layout.page(
            title: "Continue in another browser", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Continue in another browser</h1>
                <p>Opened Kith inside a chat app, or want it on your phone too? Make a one-time link, then open it (or scan its QR code) in the other browser to be signed in there as you.</p></header>
                <p class="muted">The link works once, for \(minutes) minutes. Anyone who has it can sign in as you, so only open it yourself.</p>
                <form class="form" method="post"\(attribute: "action", action)>
                \(Layout.csrfField(context.csrfToken))
                <div class="form-actions">\(Button.primary("Make a sign-in link"))</div>
                </form>
                <p><a\(attribute: "href", context.links[.settings])>Back to settings</a></p>
                </section>
                """)
    }
}

/// The link just made, as text to copy and as a QR code to scan. Shown in
/// the answer to the post: the token exists in plain text nowhere else.
public enum ContinueLinkPage {
    public static func render(context: PageContext, link: String, qrCode: HTML, minutes: Int) -> HTML {
        Layout.page(
            title: "Your sign-in link", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Your sign-in link</h1>
                <p>Scan the code with your phone's camera, or copy the link into the other browser. It works once, for \(minutes) minutes. Don't share it: it signs in as you.</p></header>
                <div class="card">\(qrCode)</div>
                <div class="field">
                <label class="field__label" for="field-link">Your link</label>
                <p class="field__hint" id="field-link-hint">Select it and copy. This browser stays signed in.</p>
                <input class="field__input mono" id="field-link" type="text" readonly\(attribute: "value", link) aria-describedby="field-link-hint">
                </div>
                <p><a\(attribute: "href", context.links[.settings])>Back to settings</a></p>
                </section>
                """)
    }
}

/// What a "continue" link opens in the other browser: who it signs in as,
/// and the button. Opening it changes nothing.
public enum ContinueConfirmPage {
    /// `signedInAs` is who this browser is signed in as now, when that is someone else.
    public static func render(context: PageContext, action: String, displayName: String, signedInAs: String?) -> HTML {
        let switching: HTML = signedInAs.map { "<p class=\"muted\">This browser is signed in as \($0) now; continuing signs it in as \(displayName) instead.</p>" } ?? ""
        return Layout.page(
            title: "Continue here", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Continue here as \(displayName)?</h1>
                <p>This one-time link signs this browser in to Kith as \(displayName).</p></header>
                \(switching)
                <form class="form" method="post"\(attribute: "action", action)>
                \(Layout.csrfField(context.csrfToken))
                <div class="form-actions">\(Button.primary("Continue as \(displayName)"))</div>
                </form>
                </section>
                """)
    }
}

/// The one answer for a sign-in link that is unknown, used or expired, so
/// the page tells nobody which of those it was.
public enum LinkUnavailablePage {
    public static func render(context: PageContext) -> HTML {
        Layout.page(
            title: "This link has expired", context: context,
            main: """
                <section class="error-page">
                <p class="error-page__code">404</p>
                <h1>This link doesn't work any more</h1>
                <p>Sign-in links work once and only for a short while. Ask for a fresh one: from Settings in the browser where you're signed in, or from whoever runs this Kith.</p>
                <p><a class="button"\(attribute: "href", context.links[.home])>Back to Kith</a></p>
                </section>
                """)
    }
}

/// Deleting an account: what goes, and the password (or, for a guest, the
/// word DELETE) to be sure.
public enum DeleteAccountPage {
    public static func render(context: PageContext, isGuest: Bool, form: FormState) -> HTML {
        let field =
            isGuest
            ? FormField.text(
                name: "confirm", label: "Type DELETE to confirm", value: form.values["confirm"],
                hint: "In capital letters, exactly as shown.", error: form.errors["confirm"], required: true, maxLength: 20,
                autocomplete: "off")
            : FormField.text(
                name: "password", label: "Your password", hint: "To be sure it's you.", error: form.errors["password"],
                type: .password, required: true, maxLength: 128, autocomplete: "current-password")
        return Layout.page(
            title: "Delete your account", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Delete your account</h1>
                <p>This is final. Kith can't bring anything back afterwards.</p></header>
                <div class="card stack">
                <h2 class="card__title">What happens</h2>
                <ul>
                <li>You leave every occasion, plate game and tally you belong to, and your spots, friendships and uploads are deleted.</li>
                <li>Tallies you own disappear, for your friends too.</li>
                <li>Where you're the host, the longest-standing other member becomes host. Anything left with no members is deleted.</li>
                <li>Gifts you gave keep their place on timelines, as "a gift from a former member", without their content.</li>
                <li>You're signed out everywhere, and your recovery codes and sign-in links stop working.</li>
                </ul>
                </div>
                \(form.summary(order: [isGuest ? "confirm" : "password"]))
                <form class="form stack" method="post"\(attribute: "action", context.links[.deleteAccount]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(field)
                <div class="form-actions">\(Button.danger("Delete my account"))\(Button.link("Keep my account", href: context.links[.settings], style: .secondary))</div>
                </form>
                </section>
                """)
    }
}

/// After an account is deleted.
public enum GoodbyePage {
    public static func render(context: PageContext) -> HTML {
        Layout.page(
            title: "Goodbye", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Your account is deleted</h1>
                <p>Everything that was yours has gone from Kith. Thank you for the time you spent here.</p></header>
                <p>\(Button.link("Back to Kith", href: context.links[.home], style: .secondary))</p>
                </section>
                """)
    }
}

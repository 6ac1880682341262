/// The settings page: one section per concern, each with its own form that
/// posts to its own route and comes back here (redirect after post).
public enum SettingsPage {
    /// A bundled avatar as a choice: the stored id, what it shows, its image URL.
    public struct AvatarChoice: Sendable {
        public var id: String
        public var label: String
        public var imageURL: String
        public init(id: String, label: String, imageURL: String) {
            self.id = id
            self.label = label
            self.imageURL = imageURL
        }
    }

    /// A point in time, said twice: how long ago, and exactly (UTC).
    public struct Moment: Sendable {
        /// "3 hours ago".
        public var relative: String
        /// "2025-06-01 14:05 UTC".
        public var utc: String
        /// "2025-06-01T14:05Z", for `<time datetime>`.
        public var machine: String
        public init(relative: String, utc: String, machine: String) {
            self.relative = relative
            self.utc = utc
            self.machine = machine
        }
    }

    /// One browser signed in to this account.
    public struct Device: Sendable {
        /// "Firefox on Linux".
        public var name: String
        public var address: String
        public var signedIn: Moment
        public var lastSeen: Moment
        public var isCurrent: Bool
        public init(name: String, address: String, signedIn: Moment, lastSeen: Moment, isCurrent: Bool) {
            self.name = name
            self.address = address
            self.signedIn = signedIn
            self.lastSeen = lastSeen
            self.isCurrent = isCurrent
        }
    }

    public struct Model: Sendable {
        public var isGuest: Bool
        /// `display_name`, `username`, `email`, `avatar`, `time_zone`.
        public var profile: FormState
        /// `theme`, `number_style`.
        public var appearance: FormState
        /// The password that confirms making new recovery codes.
        public var recovery: FormState
        public var avatars: [AvatarChoice]
        public var timeZones: [String]
        public var devices: [Device]
        public var unusedRecoveryCodes: Int

        public init(
            isGuest: Bool, profile: FormState, appearance: FormState, recovery: FormState, avatars: [AvatarChoice],
            timeZones: [String], devices: [Device], unusedRecoveryCodes: Int
        ) {
            self.isGuest = isGuest
            self.profile = profile
            self.appearance = appearance
            self.recovery = recovery
            self.avatars = avatars
            self.timeZones = timeZones
            self.devices = devices
            self.unusedRecoveryCodes = unusedRecoveryCodes
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let sections: [HTML] = [
            profileSection(context, model),
            appearanceSection(context, model.appearance),
            model.isGuest ? claimSection(context) : passwordSection(context),
            devicesSection(context, model),
            notificationsSection(context),
            model.isGuest ? .empty : recoverySection(context, model),
            otherBrowserSection(context),
            deleteSection(context),
        ]
        return Layout.page(
            title: "Settings", context: context,
            main: """
                <div class="container container--narrow stack">
                <header class="stack stack--tight"><h1>Settings</h1>
                <nav aria-label="Settings sections"><ul class="cluster text-sm">
                <li><a href="#profile">Profile</a></li>
                <li><a href="#appearance">Appearance</a></li>
                <li><a href="#password">\(model.isGuest ? "Keep your account" : "Password")</a></li>
                <li><a href="#devices">Devices</a></li>
                <li><a href="#notifications">Notifications</a></li>
                \(model.isGuest ? HTML.empty : "<li><a href=\"#recovery\">Recovery codes</a></li>")
                <li><a href="#another-browser">Another browser</a></li>
                <li><a href="#delete">Delete account</a></li>
                </ul></nav>
                </header>
                \(sections.filter { !$0.isEmpty }.joined(separator: "\n"))
                </div>
                """)
    }

    // MARK: Sections

    /// Web Push on this device. The page script offers the switch only in a
    /// secure context with push support; otherwise it says why not.
    static func notificationsSection(_ context: PageContext) -> HTML {
        section(
            id: "notifications", title: "Notifications on this device",
            body: """
                <p>Kith can tell you about new gifts, spots and tallies even when it isn't open. Your inbox always has them too.</p>
                <div data-push-control\(attribute: "data-csrf", context.csrfToken)\(attribute: "data-key", context.links[.pushKey])\(attribute: "data-subscribe", context.links[.pushSubscribe])\(attribute: "data-unsubscribe", context.links[.pushUnsubscribe])\(attribute: "data-worker", context.links[.serviceWorker])\(attribute: "data-scope", context.links[.home])>
                <button class="button button--secondary" type="button" data-push-subscribe>Turn on notifications on this device</button>
                <p data-push-status role="status"></p>
                </div>
                """)
    }

    static func profileSection(_ context: PageContext, _ model: Model) -> HTML {
        let form = model.profile
        let username: HTML =
            model.isGuest
            ? """
            <p>You're here as a guest, so you have no username yet. <a\(attribute: "href", context.links[.claimForm])>Keep your account</a> to choose one and sign in from any browser.</p>
            """
            : FormField.text(
                name: "username", label: "Username", value: form.values["username"],
                hint: "3 to 30 letters, digits, underscores or dots. You sign in with it.", error: form.errors["username"],
                required: true, maxLength: 30, autocomplete: "username")
        return section(
            id: "profile", title: "Profile",
            body: """
                \(form.summary(order: ["display_name", "username", "email", "avatar", "time_zone"]))
                <form class="form" method="post"\(attribute: "action", context.links[.saveProfile]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.text(name: "display_name", label: "Your name", value: form.values["display_name"], hint: "What friends see next to everything you do.", error: form.errors["display_name"], required: true, maxLength: 60, autocomplete: "name"))
                \(username)
                \(FormField.text(name: "email", label: "Email (optional)", value: form.values["email"], hint: "Only you see it. Leave it empty to remove it.", error: form.errors["email"], type: .email, maxLength: 254, autocomplete: "email"))
                \(avatarField(model.avatars, selected: form.values["avatar"], error: form.errors["avatar"]))
                \(SignUpPage.timeZoneField(model.timeZones, selected: form.values["time_zone"], error: form.errors["time_zone"], fresh: false))
                <div class="form-actions">\(Button.primary("Save profile"))</div>
                </form>
                """)
    }

    /// The avatars as a radio group, each choice showing its picture. The
    /// picture is decoration (`alt=""`): the label beside it names it, so a
    /// screen reader hears "Fox, radio button" once, not twice.
    static func avatarField(_ avatars: [AvatarChoice], selected: String?, error: String?) -> HTML {
        let id = FormField.id(for: "avatar")
        let hintID = id + "-hint"
        let errorID = id + "-error"
        let choices = avatars.enumerated().map { index, avatar -> HTML in
            let choiceID = index == 0 ? id : "\(id)-\(index + 1)"
            return """
                <label class="choice"><input class="choice__input"\(attribute: "id", choiceID) name="avatar" type="radio"\(attribute: "value", avatar.id)\(attribute: "checked", when: avatar.id == selected)> \
                <img\(attribute: "src", avatar.imageURL) alt="" width="32" height="32"> <span>\(avatar.label)</span></label>
                """
        }
        let errorPart: HTML = error.map {
            "<p class=\"field__error\"\(attribute: "id", errorID)><span class=\"visually-hidden\">Error: </span>\($0)</p>\n"
        } ?? .empty
        return """
            <fieldset class="field field--choices\(error == nil ? "" : " field--invalid")"\(attribute: "aria-describedby", error == nil ? hintID : hintID + " " + errorID)>
            <legend class="field__label">Avatar</legend>
            <p class="field__hint"\(attribute: "id", hintID)>Friends see it next to your name.</p>
            \(errorPart)<div class="choices">
            \(choices.joined(separator: "\n"))
            </div>
            </fieldset>
            """
    }

    static func appearanceSection(_ context: PageContext, _ form: FormState) -> HTML {
        section(
            id: "appearance", title: "Appearance",
            body: """
                \(form.summary(order: ["theme", "number_style"]))
                <form class="form" method="post"\(attribute: "action", context.links[.saveAppearance]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.radios(name: "theme", legend: "Theme", options: [("system", "Match this device"), ("light", "Light"), ("dark", "Dark")], selected: form.values["theme"], hint: "Used on every page, on every device you sign in on.", error: form.errors["theme"]))
                \(FormField.radios(name: "number_style", legend: "Numbers on tallies", options: [("arabic", "Digits: 12"), ("roman", "Roman: XII"), ("stick", "Tally marks")], selected: form.values["number_style"], error: form.errors["number_style"]))
                <div class="form-actions">\(Button.primary("Save appearance"))</div>
                </form>
                """)
    }

    static func passwordSection(_ context: PageContext) -> HTML {
        section(
            id: "password", title: "Password",
            body: """
                <p>Change the password you sign in with. Your other devices stay signed in; you can sign them out below.</p>
                <p>\(Button.link("Change password", href: context.links[.passwordForm], style: .secondary))</p>
                """)
    }

    /// In place of the password section for a guest, who has none.
    static func claimSection(_ context: PageContext) -> HTML {
        section(
            id: "password", title: "Keep your account", accent: "card--gold",
            body: """
                <p>You're here as a guest: this browser is your only way in. Choose a username and password to sign in from anywhere. Everything you've joined stays yours.</p>
                <p>\(Button.link("Keep your account", href: context.links[.claimForm], style: .gold))</p>
                """)
    }

    static func devicesSection(_ context: PageContext, _ model: Model) -> HTML {
        let items = model.devices.map { device -> HTML in
            let current: HTML = device.isCurrent ? " <span class=\"badge badge--green\">This device</span>" : .empty
            let lastSeen: HTML =
                device.isCurrent
                ? "Active now"
                : "Last active <time\(attribute: "datetime", device.lastSeen.machine)>\(device.lastSeen.relative)</time>"
            let address: HTML = device.address.isEmpty ? .empty : " from \(device.address)"
            return """
                <li class="stack stack--tight"\(attribute: "aria-current", device.isCurrent ? "true" : nil)>
                <p><strong>\(device.name)</strong>\(current)</p>
                <p class="muted text-sm">\(lastSeen)<br>
                Signed in \(device.signedIn.relative) (<time\(attribute: "datetime", device.signedIn.machine)>\(device.signedIn.utc)</time>)\(address)</p>
                </li>
                """
        }
        let others = model.devices.contains { !$0.isCurrent }
        var actions: [HTML] = []
        if others {
            actions.append("""
                <form method="post"\(attribute: "action", context.links[.signOutOthers])>\(Layout.csrfField(context.csrfToken))\(Button.secondary("Sign out other devices"))</form>
                """)
        }
        // A guest signed out everywhere could never get back in: the button
        // is left out rather than offered with a warning.
        if !model.isGuest {
            actions.append("""
                <form method="post"\(attribute: "action", context.links[.signOutEverywhere])>\(Layout.csrfField(context.csrfToken))\(Button.danger("Sign out everywhere"))</form>
                """)
        }
        let only: HTML = others ? .empty : "<p class=\"muted\">You're signed in on this device only.</p>"
        let note: HTML =
            model.isGuest
            ? "<p class=\"muted text-sm\">As a guest, keep your account before signing out, or you can't come back.</p>"
            : "<p class=\"muted text-sm\">Signing out everywhere signs this device out too.</p>"
        return section(
            id: "devices", title: "Where you're signed in",
            body: """
                <ul class="stack">
                \(items.joined(separator: "\n"))
                </ul>
                \(only)
                \(actions.isEmpty ? HTML.empty : "<div class=\"cluster\">\(actions)</div>")
                \(note)
                """)
    }

    static func recoverySection(_ context: PageContext, _ model: Model) -> HTML {
        let form = model.recovery
        let count = model.unusedRecoveryCodes
        let status: HTML =
            switch count {
            case 0: "<p><strong>You have no unused recovery codes.</strong> Make new ones, so a forgotten password can't lock you out.</p>"
            case 1: "<p>You have <strong>1</strong> unused recovery code.</p>"
            default: "<p>You have <strong>\(count)</strong> unused recovery codes.</p>"
            }
        return section(
            id: "recovery", title: "Recovery codes",
            body: """
                \(status)
                <p class="muted">Making new codes replaces all of them: the old ones stop working. Kith shows the new ones once.</p>
                \(form.summary(order: ["password"]))
                <form class="form" method="post"\(attribute: "action", context.links[.newRecoveryCodes]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(FormField.text(name: "password", label: "Your password", hint: "To make sure it's you.", error: form.errors["password"], type: .password, required: true, maxLength: 128, autocomplete: "current-password"))
                <div class="form-actions">\(Button.secondary("Make new codes"))</div>
                </form>
                """)
    }

    static func otherBrowserSection(_ context: PageContext) -> HTML {
        section(
            id: "another-browser", title: "Continue in another browser",
            body: """
                <p>Opened Kith inside a chat app? Make a one-time link or QR code that signs another browser into this account.</p>
                <p>\(Button.link("Make a sign-in link", href: context.links[.continueStart], style: .secondary))</p>
                """)
    }

    static func deleteSection(_ context: PageContext) -> HTML {
        section(
            id: "delete", title: "Delete your account",
            body: """
                <p>Deleting your account removes everything that is yours. It can't be undone.</p>
                <p>\(Button.link("Delete account", href: context.links[.deleteAccountForm], style: .danger))</p>
                """)
    }

    /// A card named by its heading, so it is a region a screen reader lists
    /// by that name, and the in-page links can jump to it.
    static func section(id: String, title: String, accent: String? = nil, body: HTML) -> HTML {
        let headingID = id + "-heading"
        return """
            <section\(attribute: "class", accent.map { "card stack \($0)" } ?? "card stack")\(attribute: "id", id)\(attribute: "aria-labelledby", headingID)>
            <h2\(attribute: "id", headingID)>\(title)</h2>
            \(body)
            </section>
            """
    }
}

/// Changing the password: the current one first (unless a recovery sign-in
/// or reset link already proved who this is), then the new one twice.
public enum PasswordPage {
    public static func render(context: PageContext, form: FormState, mustChange: Bool) -> HTML {
        let intro: HTML =
            mustChange
            ? "<p>You signed in with a recovery code or a reset link. Choose a new password to carry on.</p>"
            : "<p>Your other devices stay signed in; you can sign them out in <a\(attribute: "href", context.links[.settings] + "#devices")>settings</a>.</p>"
        let current: HTML =
            mustChange
            ? .empty
            : FormField.text(
                name: "current_password", label: "Current password", error: form.errors["current_password"],
                type: .password, required: true, maxLength: 128, autocomplete: "current-password")
        let cancel: HTML = mustChange ? .empty : Button.link("Cancel", href: context.links[.settings], style: .secondary)
        return Layout.page(
            title: mustChange ? "Choose a new password" : "Change your password", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>\(mustChange ? "Choose a new password" : "Change your password")</h1>
                \(intro)</header>
                \(form.summary(order: ["current_password", "new_password", "confirm_password"]))
                <form class="form" method="post"\(attribute: "action", context.links[.savePassword]) novalidate>
                \(Layout.csrfField(context.csrfToken))
                \(current)
                \(FormField.text(name: "new_password", label: "New password", hint: "8 to 128 characters.", error: form.errors["new_password"], type: .password, required: true, maxLength: 128, autocomplete: "new-password"))
                \(FormField.text(name: "confirm_password", label: "New password again", error: form.errors["confirm_password"], type: .password, required: true, maxLength: 128, autocomplete: "new-password"))
                <div class="form-actions">\(Button.primary("Change password"))\(cancel)</div>
                </form>
                </section>
                """)
    }

    /// What a guest finds at the password address: there is no password to
    /// change until the account is kept.
    public static func renderGuest(context: PageContext) -> HTML {
        Layout.page(
            title: "Password", context: context,
            main: """
                <section class="container container--narrow stack">
                <header class="page-header"><h1>Password</h1>
                <p>You're here as a guest, so there is no password yet.</p></header>
                <p>Choose a username and password to keep your account and sign in from any browser.</p>
                <p>\(Button.link("Keep your account", href: context.links[.claimForm], style: .gold))</p>
                </section>
                """)
    }
}

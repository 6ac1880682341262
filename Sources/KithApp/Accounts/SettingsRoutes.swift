import KithHTTP
import KithTemplates

/// Settings: profile, appearance, password, sessions, recovery codes. Every
/// form posts to its own route and redirects back to `/settings` with a
/// flash message saying what was saved (`SessionFlash`),
/// or shows the page again with the errors beside the fields (422).
enum SettingsRoutes {
    static let show = Route(.get, "/settings")
    static let saveProfile = Route(.post, "/settings/profile")
    static let saveAppearance = Route(.post, "/settings/appearance")
    static let password = Route(.get, "/settings/password")
    static let savePassword = Route(.post, "/settings/password")
    static let signOutOthers = Route(.post, "/settings/sessions/sign-out-others")
    static let newRecoveryCodes = Route(.post, "/settings/recovery-codes")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(show) { context in
            let user = try context.requireUser()
            return try settingsPage(context, user: user)
        }
        Endpoint(saveProfile) { context in try saveProfilePost(context) }
        Endpoint(saveAppearance) { context in try saveAppearancePost(context) }
        Endpoint(password) { context in
            let user = try context.requireUser()
            // A page rather than a redirect to /claim: a guest who somehow must
            // change a password would otherwise bounce between the two forever.
            if user.isGuest { return context.app.page(PasswordPage.renderGuest(context: context.pageContext())) }
            return context.app.page(PasswordPage.render(context: context.pageContext(), form: FormState(), mustChange: user.mustChangePassword))
        }
        Endpoint(savePassword) { context in try savePasswordPost(&context) }
        Endpoint(signOutOthers) { context in
            let user = try context.requireUser()
            let keep = context.session?.id
            let sessions = context.app.sessions
            try context.app.database.write { tx in
                try sessions.endOthers(tx, userID: user.id, keep: keep)
                try context.flash(tx, "Your other devices are signed out.")
            }
            return .redirect(to: show.path())
        }
        Endpoint(newRecoveryCodes) { context in try newRecoveryCodesPost(context) }
    }

    // MARK: The page

    /// The whole page; a form that failed passes its own state, the others
    /// show what is stored.
    static func settingsPage(
        _ context: RequestContext, user: User, profile: FormState? = nil, appearance: FormState? = nil,
        recovery: FormState? = nil, status: HTTPStatus = .ok, flash: [Flash] = []
    ) throws -> Response {
        let app = context.app
        let now = app.now
        let (sessions, unusedCodes) = try app.database.read { db in
            (try SettingsStore.liveSessions(db, userID: user.id, now: now), try SettingsStore.unusedRecoveryCodes(db, userID: user.id))
        }
        let currentID = context.session?.id
        let devices = sessions.map { session in
            SettingsPage.Device(
                name: DeviceName.describe(userAgent: session.userAgent), address: session.address,
                signedIn: moment(session.createdAt, now: now), lastSeen: moment(session.lastSeenAt, now: now, precision: Sessions.touchInterval),
                isCurrent: session.id == currentID)
        }
        let assets = app.assets
        let model = SettingsPage.Model(
            isGuest: user.isGuest,
            profile: profile ?? FormState(values: [
                "display_name": user.displayName, "username": user.username ?? "", "email": user.email ?? "", "avatar": user.avatar,
                "time_zone": user.timeZone,
            ]),
            appearance: appearance ?? FormState(values: ["theme": user.theme.rawValue, "number_style": user.numberStyle.rawValue]),
            recovery: recovery ?? FormState(),
            avatars: Avatars.all.map { SettingsPage.AvatarChoice(id: $0.id, label: $0.label, imageURL: assets.url($0.file)) },
            timeZones: TimeZones.all, devices: devices, unusedRecoveryCodes: unusedCodes)
        return app.page(SettingsPage.render(context: context.pageContext(flash: flash), model: model), status: status)
    }

    // MARK: Profile

    static func saveProfilePost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let input = context.request.form
        let name = AccountRules.displayName(input["display_name"])
        let username = user.isGuest ? nil : AccountRules.username(input["username"])
        let email = emailAddress(input["email"])
        let avatar = input["avatar"] ?? ""
        let timeZone = input["time_zone"] ?? ""
        var form = FormState(values: [
            "display_name": name.value, "username": username?.value ?? "", "email": email.value, "avatar": avatar, "time_zone": timeZone,
        ])
        form.errors["display_name"] = name.error
        form.errors["username"] = username?.error
        form.errors["email"] = email.error
        if Avatars.named(avatar) == nil { form.errors["avatar"] = "Choose one of the pictures." }
        if !TimeZones.isValid(timeZone) { form.errors["time_zone"] = "Choose a time zone from the list." }
        AccountRules.flagUnreadable(input, fields: ["display_name", "username", "email"], into: &form.errors)
        guard form.isValid else { return try settingsPage(context, user: user, profile: form, status: .unprocessableContent) }

        do {
            try context.app.database.write { tx in
                try SettingsStore.updateProfile(
                    tx, userID: user.id, displayName: name.value, username: username?.value,
                    email: email.value.isEmpty ? nil : email.value, avatar: avatar, timeZone: timeZone)
                try context.flash(tx, "Profile saved.")
            }
        } catch AccountStore.Failure.usernameTaken {
            form.errors["username"] = "That username is taken."
            return try settingsPage(context, user: user, profile: form, status: .unprocessableContent)
        }
        return .redirect(to: show.path())
    }

    static let emailLength = 254

    /// Deliberately simple: one `@` with something on each side, no spaces,
    /// at most 254 bytes (the SMTP path limit). Kith sends no mail, so a
    /// stricter grammar would only refuse real addresses. Empty clears it.
    static func emailAddress(_ raw: String?) -> (value: String, error: String?) {
        let value = (raw ?? "").trimmingWhitespace()
        if value.isEmpty { return (value, nil) }
        if value.utf8.count > emailLength { return (value, "Keep it to \(emailLength) characters or fewer.") }
        if value.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) {
            return (value, "An email address has no spaces in it.")
        }
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count != 2 || parts[0].isEmpty || parts[1].isEmpty {
            return (value, "Enter an address like name@example.com, or leave it empty.")
        }
        return (value, nil)
    }

    // MARK: Appearance

    static func saveAppearancePost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        let input = context.request.form
        let theme = User.ThemePreference(rawValue: input["theme"] ?? "")
        let numberStyle = User.NumberStyle(rawValue: input["number_style"] ?? "")
        var form = FormState(values: ["theme": input["theme"] ?? "", "number_style": input["number_style"] ?? ""])
        if theme == nil { form.errors["theme"] = "Choose one of the themes." }
        if numberStyle == nil { form.errors["number_style"] = "Choose one of the number styles." }
        guard let theme, let numberStyle else {
            return try settingsPage(context, user: user, appearance: form, status: .unprocessableContent)
        }
        try context.app.database.write { tx in
            try SettingsStore.updateAppearance(tx, userID: user.id, theme: theme, numberStyle: numberStyle)
            try context.flash(tx, "Appearance saved.")
        }
        return .redirect(to: show.path())
    }

    // MARK: Password

    enum PasswordCheck {
        case correct
        case wrong
        /// Too many wrong passwords lately; how long to wait, in words.
        case throttled(String)
    }

    /// Checks a typed password against the stored hash, under the same
    /// failure budget as signing in: the username's (a stolen session cannot
    /// guess its way to the password, or new recovery codes, through these
    /// forms any faster than through the sign-in form), or this browser's
    /// device cookie's, so strangers failing at the sign-in form cannot
    /// lock the owner out of their own settings.
    static func checkPassword(_ context: RequestContext, user: User, typed: String) throws -> PasswordCheck {
        let app = context.app
        let now = app.now
        let throttle = CredentialThrottle(context, username: user.username ?? "", perAddress: false)
        if let wait = try throttle.wait(app, now: now) { return .throttled(wait) }
        let stored = try app.database.read { try SettingsStore.passwordHash($0, userID: user.id) }
        // Verified outside any write: Argon2 must not hold the writer.
        if let stored, try app.passwords.verify(password: typed, encoded: stored) { return .correct }
        try app.database.write { try throttle.recordFailure($0, now: now) }
        return .wrong
    }

    static func savePasswordPost(_ context: inout RequestContext) throws -> Response {
        let user = try context.requireUser()
        guard !user.isGuest else { return .redirect(to: AccountRoutes.claimForm.path()) }
        let input = context.request.form
        let current = input["current_password"] ?? ""
        let new = input["new_password"] ?? ""
        let confirmation = input["confirm_password"] ?? ""
        let mustChange = user.mustChangePassword
        var form = FormState()
        if !mustChange && current.isEmpty { form.errors["current_password"] = "Enter your current password." }
        form.errors["new_password"] = new.isEmpty ? "Choose a new password." : AccountRules.password(new)
        if form.errors["new_password"] == nil && confirmation != new {
            form.errors["confirm_password"] = "This doesn't match the new password."
        }
        AccountRules.flagUnreadable(input, fields: ["current_password", "new_password", "confirm_password"], into: &form.errors)
        func again(_ status: HTTPStatus) -> Response {
            context.app.page(PasswordPage.render(context: context.pageContext(), form: form, mustChange: mustChange), status: status)
        }
        guard form.isValid else { return again(.unprocessableContent) }

        let app = context.app
        // Someone just back in through a recovery code or reset link has no
        // current password to give: proving that is what the link did.
        if !mustChange {
            switch try checkPassword(context, user: user, typed: current) {
            case .correct: break
            case .wrong:
                form.errors["current_password"] = "That isn't your current password."
                return again(.unprocessableContent)
            case .throttled(let wait):
                form.formError = "Too many wrong passwords. Please wait \(wait) before trying again."
                return again(.tooManyRequests)
            }
        }
        let hash = try app.passwords.hash(password: new)
        let request = context.request
        let previous = context.session
        let scope = Throttle.username(user.username ?? "").scope
        // The new password and the new session commit together: a stolen
        // copy of this session's old cookie dies with the old password.
        let cookie = try app.database.write { tx in
            try AccountStore.setPasswordHash(tx, userID: user.id, hash: hash, mustChange: false)
            try AccountStore.clearFailures(tx, scope: scope)
            let cookie = try app.sessions.start(tx, userID: user.id, request: request, replacing: previous)
            // The message waits for the session the browser moves to.
            try SessionFlash.setForNewestSession(
                tx, userID: user.id, Flash(.notice, "Password changed. Your other devices are still signed in."), now: app.now)
            return cookie
        }
        context.setCookie(cookie)
        return .redirect(to: show.path())
    }

    // MARK: Recovery codes

    static func newRecoveryCodesPost(_ context: RequestContext) throws -> Response {
        let user = try context.requireUser()
        guard !user.isGuest else { return .redirect(to: AccountRoutes.claimForm.path()) }
        let typed = context.request.form["password"] ?? ""
        var form = FormState()
        if typed.isEmpty { form.errors["password"] = "Enter your password." }
        AccountRules.flagUnreadable(context.request.form, fields: ["password"], into: &form.errors)
        guard form.isValid else { return try settingsPage(context, user: user, recovery: form, status: .unprocessableContent) }
        // New codes are as good as a new password, so they take the password.
        switch try checkPassword(context, user: user, typed: typed) {
        case .correct: break
        case .wrong:
            form.errors["password"] = "That isn't your password."
            return try settingsPage(context, user: user, recovery: form, status: .unprocessableContent)
        case .throttled(let wait):
            form.formError = "Too many wrong passwords. Please wait \(wait) before trying again."
            return try settingsPage(context, user: user, recovery: form, status: .tooManyRequests)
        }
        let codes = RecoveryCodes.generate()
        let hashes = codes.map(RecoveryCodes.hash)
        try context.app.database.write { try AccountStore.replaceRecoveryCodes($0, userID: user.id, hashes: hashes) }
        // Shown in the answer to the post: the codes exist in plain text nowhere else.
        return context.app.page(RecoveryCodesPage.render(context: context.pageContext(), codes: codes, continueTo: show.path()))
    }

    // MARK: Times

    /// A past instant as "3 hours ago (2025-06-01 14:05 UTC)". Times are
    /// shown in UTC, not the user's zone: converting needs `TZ`, which is
    /// process-wide state and unsafe to switch between threads.
    /// `precision` is how stale the stored time may be: `last_seen_at` is
    /// written at most hourly, so anything within the hour reads as such.
    static func moment(_ instant: Int64, now: Int64, precision: Int64 = 60) -> SettingsPage.Moment {
        SettingsPage.Moment(
            relative: TimeText.relative(instant, now: now, precision: precision), utc: TimeText.utc(instant) + " UTC",
            machine: TimeText.utc(instant, machine: true))
    }
}

/// A User-Agent header reduced to "Firefox on Linux": enough for someone to
/// recognise their own devices, from a few well-known substrings. Unknown
/// agents are named generically; the raw header is never shown.
enum DeviceName {
    /// Order matters: Edge, Opera and Samsung Internet also say "Chrome/",
    /// and Chrome also says "Safari/".
    static let browsers: [(marker: String, name: String)] = [
        ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chromium/", "Chromium"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]
    /// Android says "Linux" too, and iPads may say "Macintosh".
    static let systems: [(marker: String, name: String)] = [
        ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"), ("Windows", "Windows"),
        ("Macintosh", "Mac"), ("Linux", "Linux"),
    ]

    static func describe(userAgent: String) -> String {
        let browser = browsers.first { userAgent.contains($0.marker) }?.name
        let system = systems.first { userAgent.contains($0.marker) }?.name
        switch (browser, system) {
        case let (browser?, system?): return "\(browser) on \(system)"
        case let (browser?, nil): return browser
        case let (nil, system?): return "A browser on \(system)"
        case (nil, nil): return "Unknown browser"
        }
    }
}

import KithCrypto
import KithHTTP
import KithStorage
import KithTemplates

/// Sign up, sign in, sign out, and claiming a guest account.
enum AccountRoutes {
    static let signUpForm = Route(.get, "/signup")
    static let signUp = Route(.post, "/signup")
    static let signInForm = Route(.get, "/signin")
    static let signIn = Route(.post, "/signin")
    static let signOutConfirm = Route(.get, "/signout")
    static let signOut = Route(.post, "/signout")
    static let signOutEverywhere = Route(.post, "/signout/everywhere")
    static let claimForm = Route(.get, "/claim")
    static let claim = Route(.post, "/claim")

    /// Failed sign-ins allowed per username, and per address, in the window;
    /// and per device cookie, which replaces both for a browser the account
    /// has signed in on before (`CredentialThrottle`).
    static let failuresPerUsername = 5
    static let failuresPerAddress = 30
    static let failuresPerDevice = 5
    static let failureWindow: Int64 = 15 * 60

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(signUpForm) { context in
            if context.user != nil { return .redirect(to: HomeRoutes.home.path()) }
            return signUpPage(context, FormState(values: ["time_zone": TimeZones.serverDefault]))
        }
        Endpoint(signUp) { context in try signUpPost(&context) }
        Endpoint(signInForm) { context in
            if context.user != nil { return .redirect(to: HomeRoutes.home.path()) }
            return context.app.page(SignInPage.render(context: context.pageContext(), form: FormState(), next: nextPath(context)))
        }
        Endpoint(signIn) { context in try signInPost(&context) }
        Endpoint(signOutConfirm) { context in
            guard let user = context.user else { return .redirect(to: HomeRoutes.home.path()) }
            return context.app.page(SignOutPage.render(context: context.pageContext(), isGuest: user.isGuest))
        }
        Endpoint(signOut) { context in
            if let session = context.session {
                let sessions = context.app.sessions
                try context.app.database.write { try sessions.end($0, sessionIDs: [session.id]) }
            }
            context.setCookie(context.app.sessions.cleared())
            return .redirect(to: HomeRoutes.home.path())
        }
        Endpoint(signOutEverywhere) { context in
            let user = try context.requireUser()
            let live = context.app.live
            try context.app.database.write { tx in
                try AccountStore.deleteSessions(tx, userID: user.id)
                tx.afterCommit { live.closeStreams(viewerKey: RequestContext.viewerKey(for: user.id)) }
            }
            context.setCookie(context.app.sessions.cleared())
            return .redirect(to: HomeRoutes.home.path())
        }
        Endpoint(claimForm) { context in
            let user = try context.requireUser()
            guard user.isGuest else { return .redirect(to: HomeRoutes.home.path()) }
            return context.app.page(ClaimPage.render(context: context.pageContext(), form: FormState()))
        }
        Endpoint(claim) { context in try claimPost(&context) }
    }

    // MARK: Sign up

    static func signUpPage(_ context: RequestContext, _ form: FormState, status: HTTPStatus = .ok) -> Response {
        context.app.page(
            SignUpPage.render(context: context.pageContext(), form: form, timeZones: TimeZones.all, next: nextPath(context)),
            status: status)
    }

    static func signUpPost(_ context: inout RequestContext) throws -> Response {
        let input = context.request.form
        let name = AccountRules.displayName(input["display_name"])
        let username = AccountRules.username(input["username"])
        let password = input["password"] ?? ""
        let timeZone = input["time_zone"] ?? ""
        var form = FormState(values: ["display_name": name.value, "username": username.value, "time_zone": timeZone])
        form.errors["display_name"] = name.error
        form.errors["username"] = username.error
        form.errors["password"] = AccountRules.password(password)
        if !TimeZones.isValid(timeZone) { form.errors["time_zone"] = "Choose a time zone from the list." }
        AccountRules.flagUnreadable(input, fields: ["display_name", "username", "password"], into: &form.errors)
        guard form.isValid else { return signUpPage(context, form, status: .unprocessableContent) }

        // Every cheap check comes before Argon2: the form, then whether the
        // name is free (a read), then the address's budgets.
        let app = context.app
        if try app.database.read({ try AccountStore.usernameTaken($0, username: username.value) }) {
            form.errors["username"] = takenMessage
            return signUpPage(context, form, status: .unprocessableContent)
        }
        let now = app.now
        let address = context.request.remoteAddress
        let accounts = Throttle.accountsCreated(address, limit: app.configuration.floodLimits.accountsPerAddressPerHour)
        let hashes = Throttle.signUpHashes(address, accountsLimit: app.configuration.floodLimits.accountsPerAddressPerHour)
        if let wait = try Throttles.admit(app.database, [accounts, hashes], counting: [hashes], now: now) {
            form.formError = signUpThrottledMessage(wait)
            return signUpPage(context, form, status: .tooManyRequests)
        }

        // Hash before the transaction: the writer is never held for 20 ms of Argon2.
        let hash = try app.passwords.hash(password: password)
        let codes = RecoveryCodes.generate()
        let request = context.request
        let sessions = app.sessions
        let cookie: SetCookie
        do {
            cookie = try app.database.write { tx in
                // The unique index stays the final word: two sign-ups for one
                // free name can both pass the read above.
                let id = try AccountStore.createUser(
                    tx, displayName: name.value, username: username.value, passwordHash: hash, timeZone: timeZone,
                    avatar: Avatars.forName(name.value).id, avatarColour: Avatars.colour(forName: name.value).id, now: now)
                try AccountStore.replaceRecoveryCodes(tx, userID: id, hashes: codes.map(RecoveryCodes.hash))
                try Throttles.record(tx, [accounts], now: now)
                return try sessions.start(tx, userID: id, request: request, replacing: nil)
            }
        } catch AccountStore.Failure.usernameTaken {
            form.errors["username"] = takenMessage
            return signUpPage(context, form, status: .unprocessableContent)
        }
        context.setCookie(cookie)
        context.setCookie(sessions.deviceCookie(after: request, username: username.value))
        // Shown in the answer to the post itself: the codes exist in plain
        // text nowhere else, so there is no page to redirect to.
        let page = RecoveryCodesPage.render(
            context: pageContext(context, after: cookie), codes: codes, continueTo: nextPath(context) ?? "/")
        return context.app.page(page)
    }

    static let takenMessage = "That username is taken."

    static func signUpThrottledMessage(_ wait: String) -> String {
        "Many accounts were made from your network in the last hour. Please wait \(wait) and try again; nothing was saved."
    }

    // MARK: Sign in

    static func signInPost(_ context: inout RequestContext) throws -> Response {
        let username = (context.request.form["username"] ?? "").trimmingWhitespace()
        let password = context.request.form["password"] ?? ""
        var form = FormState(values: ["username": username])
        func again(_ status: HTTPStatus) -> Response {
            context.app.page(SignInPage.render(context: context.pageContext(), form: form, next: nextPath(context)), status: status)
        }
        if username.isEmpty { form.errors["username"] = "Enter your username." }
        if password.isEmpty { form.errors["password"] = "Enter your password." }
        AccountRules.flagUnreadable(context.request.form, fields: ["username", "password"], into: &form.errors)
        guard form.isValid else { return again(.unprocessableContent) }

        let app = context.app
        let now = app.now
        let throttle = CredentialThrottle(context, username: username)
        if let refusal = try throttle.refusal(app, now: now) {
            form.formError = refusal
            return again(.tooManyRequests)
        }

        let found = try app.database.read { try AccountStore.credentials($0, username: username) }
        let matches: Bool
        if let found {
            matches = try app.passwords.verify(password: password, encoded: found.passwordHash)
        } else {
            // The same work whether or not the username exists, so timing does not tell.
            try app.passwords.performDummyVerification(password: password)
            matches = false
        }
        guard let (user, storedHash) = found, matches else {
            try app.database.write { try throttle.recordFailure($0, now: now) }
            form.formError = "That username and password don't match."
            return again(.unauthorized)
        }
        let rehash = app.passwords.needsRehash(encoded: storedHash) ? try app.passwords.hash(password: password) : nil
        let request = context.request
        let previous = context.session
        let cookie = try app.database.write { tx in
            try AccountStore.clearFailures(tx, scope: Throttle.username(username).scope)
            if let rehash { try AccountStore.setPasswordHash(tx, userID: user.id, hash: rehash, mustChange: user.mustChangePassword) }
            return try app.sessions.start(tx, userID: user.id, request: request, replacing: previous)
        }
        context.setCookie(cookie)
        context.setCookie(app.sessions.deviceCookie(after: request, username: username))
        return .redirect(to: nextPath(context) ?? HomeRoutes.home.path())
    }

    // MARK: Claim

    static func claimPost(_ context: inout RequestContext) throws -> Response {
        let user = try context.requireUser()
        guard user.isGuest else { return .redirect(to: HomeRoutes.home.path()) }
        let username = AccountRules.username(context.request.form["username"])
        let password = context.request.form["password"] ?? ""
        var form = FormState(values: ["username": username.value])
        form.errors["username"] = username.error
        form.errors["password"] = AccountRules.password(password)
        AccountRules.flagUnreadable(context.request.form, fields: ["username", "password"], into: &form.errors)
        func again(_ status: HTTPStatus) -> Response {
            context.app.page(ClaimPage.render(context: context.pageContext(), form: form), status: status)
        }
        guard form.isValid else { return again(.unprocessableContent) }
        // The same cheap checks before Argon2 as signing up.
        let app = context.app
        if try app.database.read({ try AccountStore.usernameTaken($0, username: username.value) }) {
            form.errors["username"] = takenMessage
            return again(.unprocessableContent)
        }
        // A claim makes no new account, so only the hashing budget counts it.
        let hashes = Throttle.signUpHashes(
            context.request.remoteAddress, accountsLimit: app.configuration.floodLimits.accountsPerAddressPerHour)
        if let wait = try Throttles.admit(app.database, [hashes], counting: [hashes], now: app.now) {
            form.formError = signUpThrottledMessage(wait)
            return again(.tooManyRequests)
        }
        let hash = try app.passwords.hash(password: password)
        let codes = RecoveryCodes.generate()
        let request = context.request
        let previous = context.session
        let cookie: SetCookie
        do {
            cookie = try app.database.write { tx in
                try AccountStore.claim(tx, userID: user.id, username: username.value, passwordHash: hash)
                try AccountStore.replaceRecoveryCodes(tx, userID: user.id, hashes: codes.map(RecoveryCodes.hash))
                return try app.sessions.start(tx, userID: user.id, request: request, replacing: previous)
            }
        } catch AccountStore.Failure.usernameTaken {
            form.errors["username"] = takenMessage
            return again(.unprocessableContent)
        }
        context.setCookie(cookie)
        context.setCookie(app.sessions.deviceCookie(after: request, username: username.value))
        return context.app.page(RecoveryCodesPage.render(context: pageContext(context, after: cookie), codes: codes, continueTo: HomeRoutes.home.path()))
    }

    /// The frame for a page answering the post that signed someone in: the
    /// request came in signed out, but the page goes to the new session.
    static func pageContext(_ context: RequestContext, after cookie: SetCookie) -> PageContext {
        var page = context.pageContext()
        let session = try? context.app.database.read { try AccountStore.session($0, tokenHash: TokenHash.of(cookie.value)) }
        if let (session, user) = session ?? nil {
            page.viewer = Viewer(displayName: user.displayName, isGuest: user.isGuest)
            page.csrfToken = session.csrfToken
        }
        return page
    }

    /// Where to go after signing in: a local path only, never another site.
    static func nextPath(_ context: RequestContext) -> String? {
        guard let next = context.request.form["next"] ?? context.request.query["next"],
            next.hasPrefix("/"), !next.hasPrefix("//"), !next.hasPrefix("/\\"),
            !next.utf8.contains(where: { $0 < 0x20 })
        else { return nil }
        return next
    }
}

/// One-time codes for getting back in without email: 10 of them, each 10
/// characters from an alphabet without look-alikes, stored as SHA-256.
enum RecoveryCodes {
    static let alphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    static let count = 10

    static func generate() -> [String] {
        (0..<count).map { _ in
            let characters = (0..<10).map { _ in alphabet[SecureRandom.uniform(alphabet.count)] }
            return String(characters[0..<5]) + "-" + String(characters[5...])
        }
    }

    /// Case, spaces and dashes do not matter when a code is typed back.
    static func normalized(_ code: String) -> String {
        String(code.uppercased().filter { $0 != "-" && $0 != " " })
    }

    static func hash(_ code: String) -> String { TokenHash.of(normalized(code)) }
}

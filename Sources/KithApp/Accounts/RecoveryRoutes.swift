import KithCrypto
import KithHTTP
import KithStorage
import KithTemplates

/// Ways back in without email, and leaving: recovery codes, reset links,
/// continuing in another browser, deleting the account.
enum RecoveryRoutes {
    static let recoverForm = Route(.get, "/recover")
    static let recover = Route(.post, "/recover")
    static let resetForm = Route(.get, "/reset/:token")
    static let reset = Route(.post, "/reset/:token")
    static let continueStart = Route(.get, "/settings/continue")
    static let makeContinueLink = Route(.post, "/settings/continue")
    static let continueLinkForm = Route(.get, "/continue/:token")
    static let continueLink = Route(.post, "/continue/:token")
    static let deleteForm = Route(.get, "/settings/delete")
    static let delete = Route(.post, "/settings/delete")
    static let goodbye = Route(.get, "/goodbye")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(recoverForm) { context in
            if context.user != nil { return .redirect(to: HomeRoutes.home.path()) }
            return context.app.page(RecoverPage.render(context: context.pageContext(), form: FormState()))
        }
        Endpoint(recover) { context in try recoverPost(&context) }

        Endpoint(resetForm) { context in
            let token = try context.request.parameter("token", as: String.self)
            guard try linkUser(context, token: token, purpose: .reset) != nil else { return unavailable(context) }
            return context.app.page(ResetLinkPage.render(context: context.pageContext(), action: reset.path(token)))
        }
        Endpoint(reset) { context in try resetPost(&context) }

        Endpoint(continueStart) { context in
            _ = try context.requireUser()
            let page = ContinueStartPage.render(
                context: context.pageContext(), action: makeContinueLink.path(), minutes: continueMinutes)
            return context.app.page(page)
        }
        Endpoint(makeContinueLink) { context in
            let user = try context.requireUser()
            let app = context.app
            let now = app.now
            let baseURL = app.baseURL
            let link = try app.database.write { tx in
                try SignInLinks.create(tx, userID: user.id, purpose: .continue, baseURL: baseURL, now: now)
            }
            let qrCode = QRCode.svg(for: link, label: "QR code for your sign-in link")
            return app.page(
                ContinueLinkPage.render(context: context.pageContext(), link: link, qrCode: qrCode, minutes: continueMinutes))
        }
        Endpoint(continueLinkForm) { context in
            let token = try context.request.parameter("token", as: String.self)
            guard let owner = try linkUser(context, token: token, purpose: .continue) else { return unavailable(context) }
            let signedInAs = context.user.flatMap { $0.id == owner.id ? nil : $0.displayName }
            let page = ContinueConfirmPage.render(
                context: context.pageContext(), action: continueLink.path(token), displayName: owner.displayName,
                signedInAs: signedInAs)
            return context.app.page(page)
        }
        Endpoint(continueLink) { context in try continuePost(&context) }

        Endpoint(deleteForm) { context in
            let user = try context.requireUser()
            return context.app.page(DeleteAccountPage.render(context: context.pageContext(), isGuest: user.isGuest, form: FormState()))
        }
        Endpoint(delete) { context in try deletePost(&context, purges: context.app.purges) }
        Endpoint(goodbye) { context in
            if context.user != nil { return .redirect(to: HomeRoutes.home.path()) }
            return context.app.page(GoodbyePage.render(context: context.pageContext()))
        }
    }

    static let continueMinutes = Int(SignInLinks.Purpose.continue.lifetime / 60)

    // MARK: Recovery codes

    static func recoverPost(_ context: inout RequestContext) throws -> Response {
        let input = context.request.form
        let username = (input["username"] ?? "").trimmingWhitespace()
        let code = RecoveryCodes.normalized(input["code"] ?? "")
        var form = FormState(values: ["username": username])
        func again(_ status: HTTPStatus) -> Response {
            context.app.page(RecoverPage.render(context: context.pageContext(), form: form), status: status)
        }
        if username.isEmpty { form.errors["username"] = "Enter your username." }
        if code.isEmpty { form.errors["code"] = "Enter one of your recovery codes." }
        AccountRules.flagUnreadable(input, fields: ["username", "code"], into: &form.errors)
        guard form.isValid else { return again(.unprocessableContent) }

        // The same throttle, budgets and window as sign-in (a device cookie
        // included): a code is a password by another name, and guessing
        // either counts against both.
        let app = context.app
        let now = app.now
        let throttle = CredentialThrottle(context, username: username)
        if let refusal = try throttle.refusal(app, now: now) {
            form.formError = refusal
            return again(.tooManyRequests)
        }

        let request = context.request
        let previous = context.session
        let cookie = try app.database.write { tx -> SetCookie? in
            guard let userID = try RecoveryStore.useRecoveryCode(
                tx, usernameKey: AccountRules.usernameKey(username), codeHash: RecoveryCodes.hash(code), now: now)
            else {
                try throttle.recordFailure(tx, now: now)
                return nil
            }
            try requirePasswordChange(tx, userID: userID, app: app)
            try AccountStore.clearFailures(tx, scope: Throttle.username(username).scope)
            return try app.sessions.start(tx, userID: userID, request: request, replacing: previous)
        }
        guard let cookie else {
            // One message whether the username, the code or both were wrong.
            form.formError = "That username and code don't match."
            return again(.unauthorized)
        }
        context.setCookie(cookie)
        context.setCookie(app.sessions.deviceCookie(after: request, username: username))
        return .redirect(to: SettingsRoutes.password.path())
    }

    /// Signed in without the password: a new one comes before anything else,
    /// and every other session ends, its live streams with it. Whoever needed
    /// a way back in may have lost the password to someone, and a stolen
    /// session must not be the one that chooses the new one.
    static func requirePasswordChange(_ tx: Transaction, userID: Int64, app: KithApp) throws {
        try RecoveryStore.requirePasswordChange(tx, userID: userID)
        try app.sessions.endOthers(tx, userID: userID, keep: nil)
    }

    // MARK: Sign-in links

    /// Who an unused, unexpired link of this purpose would sign in. Reads only:
    /// link previews and prefetchers open these pages too.
    static func linkUser(_ context: RequestContext, token: String, purpose: SignInLinks.Purpose) throws -> User? {
        let now = context.app.now
        return try context.app.database.read {
            try RecoveryStore.linkUser($0, tokenHash: TokenHash.of(token), purpose: purpose, now: now)
        }
    }

    /// The same page for an unknown, used or expired link.
    static func unavailable(_ context: RequestContext) -> Response {
        context.app.page(LinkUnavailablePage.render(context: context.pageContext()), status: .notFound)
    }

    static func resetPost(_ context: inout RequestContext) throws -> Response {
        let token = try context.request.parameter("token", as: String.self)
        let app = context.app
        let now = app.now
        let request = context.request
        let previous = context.session
        let cookie = try app.database.write { tx -> SetCookie? in
            guard let userID = try RecoveryStore.consumeLink(tx, tokenHash: TokenHash.of(token), purpose: .reset, now: now)
            else { return nil }
            try requirePasswordChange(tx, userID: userID, app: app)
            return try app.sessions.start(tx, userID: userID, request: request, replacing: previous)
        }
        guard let cookie else { return unavailable(context) }
        context.setCookie(cookie)
        return .redirect(to: SettingsRoutes.password.path())
    }

    private enum ContinueOutcome {
        case unavailable
        /// The link was opened in a browser already signed in to its account.
        case alreadySignedIn
        case signedIn(SetCookie)
    }

    static func continuePost(_ context: inout RequestContext) throws -> Response {
        let token = try context.request.parameter("token", as: String.self)
        let app = context.app
        let now = app.now
        let request = context.request
        let previous = context.session
        let current = context.user?.id
        // The browser that made the link keeps its session: only this one
        // gets a new session, replacing whatever session it had.
        let outcome = try app.database.write { tx -> ContinueOutcome in
            guard let userID = try RecoveryStore.consumeLink(tx, tokenHash: TokenHash.of(token), purpose: .continue, now: now)
            else { return .unavailable }
            if userID == current { return .alreadySignedIn }
            return .signedIn(try app.sessions.start(tx, userID: userID, request: request, replacing: previous))
        }
        switch outcome {
        case .unavailable:
            return unavailable(context)
        case .alreadySignedIn:
            return .redirect(to: HomeRoutes.home.path())
        case .signedIn(let cookie):
            context.setCookie(cookie)
            return .redirect(to: HomeRoutes.home.path())
        }
    }

    // MARK: Deleting the account

    static func deletePost(_ context: inout RequestContext, purges: AccountPurge) throws -> Response {
        let user = try context.requireUser()
        let input = context.request.form
        let app = context.app
        var form = FormState()
        func again(_ status: HTTPStatus) -> Response {
            app.page(DeleteAccountPage.render(context: context.pageContext(), isGuest: user.isGuest, form: form), status: status)
        }

        if let username = user.username {
            let password = input["password"] ?? ""
            if password.isEmpty { form.errors["password"] = "Enter your password." }
            AccountRules.flagUnreadable(input, fields: ["password"], into: &form.errors)
            guard form.isValid else { return again(.unprocessableContent) }

            // Throttled as sign-in is: this form checks the password too, so
            // a borrowed, signed-in browser must not become a way to guess it.
            let now = app.now
            let throttle = CredentialThrottle(context, username: username)
            if let refusal = try throttle.refusal(app, now: now) {
                form.errors["password"] = refusal
                return again(.tooManyRequests)
            }
            // Verified before the write transaction: the writer is never held for Argon2.
            let stored = try app.database.read { try AccountStore.credentials($0, username: username) }
            let matches = try stored.map { try app.passwords.verify(password: password, encoded: $0.passwordHash) } ?? false
            guard let stored, stored.user.id == user.id, matches else {
                try app.database.write { try throttle.recordFailure($0, now: now) }
                form.errors["password"] = "That isn't your password."
                return again(.unauthorized)
            }
        } else {
            // A guest has no password; typing the word is the deliberate act.
            let typed = (input["confirm"] ?? "").trimmingWhitespace()
            form.values["confirm"] = typed
            if typed != "DELETE" { form.errors["confirm"] = "Type DELETE, in capital letters, to delete your account." }
            AccountRules.flagUnreadable(input, fields: ["confirm"], into: &form.errors)
            guard form.isValid else { return again(.unprocessableContent) }
        }

        try app.database.write { tx in
            let invalidations = try AccountDeletion.delete(tx, user: user, purges: purges)
            // Others' pages of what the person was in refetch; theirs end.
            tx.afterCommit { app.live.publish(invalidations) }
            app.revokeEverything(of: user.id, after: tx)
        }
        context.setCookie(app.sessions.cleared())
        return .redirect(to: goodbye.path())
    }
}

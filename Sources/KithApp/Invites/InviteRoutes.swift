import KithHTTP
import KithStorage
import KithTemplates

/// The join flow every feature shares: `/join` to type a code, `/join/CODE`
/// to see what it opens (no side effects: chat apps fetch it for previews),
/// and its POST to join — as yourself, or as a new guest.
enum InviteRoutes {
    static let form = Route(.get, "/join")
    static let lookup = Route(.post, "/join")
    static let preview = Route(.get, "/join/:code")
    static let join = Route(.post, "/join/:code")

    /// Failed lookups per address in the window after which an unknown code
    /// is answered 429 instead of 404. A code that opens something still
    /// opens: a party behind one address, some of whom mistyped, must not
    /// lose the link that works.
    static let failuresPerAddress = 20
    /// Failed lookups per address in the window after which every lookup is
    /// answered 429, working codes too. Without it, "a working code always
    /// opens" would make the soft limit an oracle: 404 or 429 for a miss,
    /// 200 for a hit, as fast as one can ask. 200 misses in 15 minutes is
    /// far beyond any group of people mistyping, and caps a guesser at some
    /// 20,000 of the 887 million codes a day per address.
    static let failureCeilingPerAddress = 200
    static let failureWindow: Int64 = 15 * 60

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(form) { context in
            context.app.page(JoinFormPage.render(context: context.pageContext(), value: context.request.query["code"], error: nil))
        }
        Endpoint(lookup) { context in
            let typed = context.request.form["code"] ?? ""
            func again(_ error: String, _ status: HTTPStatus) -> Response {
                context.app.page(JoinFormPage.render(context: context.pageContext(), value: typed, error: error), status: status)
            }
            guard let code = InviteCodes.normalize(typed) else {
                return again("A code is six letters and digits, like K7M2QX.", .unprocessableContent)
            }
            switch try lookUp(context, code) {
            case .found: return .redirect(to: preview.path(code))
            case .unknown: return again("That code doesn't open anything. Check it with whoever shared it.", .notFound)
            case .throttled(let wait): return again(throttledMessage(wait), .tooManyRequests)
            }
        }
        Endpoint(preview) { context in
            try previewPage(context, state: FormState(values: ["time_zone": TimeZones.serverDefault]))
        }
        Endpoint(join) { context in try joinPost(&context) }
    }

    enum Lookup {
        case found(InviteStore.Resolved, InviteKind, InvitePreview)
        /// Unknown or retired; counted against the address.
        case unknown
        /// Too many failures from this address; how long to wait, in words.
        case throttled(String)
    }

    /// The one way every route looks a code up, so that each counts failures
    /// alike: past the ceiling nothing is looked up; a working code opens
    /// whatever the count; a miss is counted, and past the soft limit it
    /// says to wait instead of "unknown".
    static func lookUp(_ context: RequestContext, _ code: String) throws -> Lookup {
        let now = context.app.now
        let (count, oldest) = try context.app.database.read {
            try InviteStore.failures($0, address: context.request.remoteAddress, since: now - failureWindow)
        }
        let wait = Throttles.waitInWords(seconds: (oldest ?? now) + failureWindow - now)
        if count >= failureCeilingPerAddress { return .throttled(wait) }
        if let (resolved, kind, preview) = try resolve(context, code) { return .found(resolved, kind, preview) }
        // The only write a GET here can cause: a throttle count for a code
        // that opens nothing. A preview of a real link writes nothing.
        try recordFailure(context)
        return count >= failuresPerAddress ? .throttled(wait) : .unknown
    }

    static func throttledMessage(_ wait: String) -> String {
        "Too many codes that didn't work from your network. Please wait \(wait) and try again."
    }

    static func tooManyFailures(_ wait: String) -> HTTPError {
        HTTPError(.tooManyRequests, throttledMessage(wait))
    }

    /// A live code's target and its preview, or nil for unknown and retired codes.
    static func resolve(_ context: RequestContext, _ code: String) throws -> (InviteStore.Resolved, InviteKind, InvitePreview)? {
        try context.app.database.read { db in
            guard let resolved = try InviteStore.resolve(db, code: code),
                let kind = context.app.invites.kind(resolved.kind),
                let preview = try kind.describe(resolved.targetID, db)
            else { return nil }
            return (resolved, kind, preview)
        }
    }

    static func previewPage(_ context: RequestContext, state: FormState, status: HTTPStatus = .ok) throws -> Response {
        let raw = try context.request.parameter("code", as: String.self)
        guard let code = InviteCodes.normalize(raw) else { return try unknown(context) }
        // A link typed in lower case or with a dash still works: show the canonical one.
        if code != raw { return .redirect(to: preview.path(code), status: .movedPermanently) }
        let resolved: InviteStore.Resolved, description: InvitePreview
        switch try lookUp(context, code) {
        case .found(let found, let kind, let preview):
            (resolved, description) = (found, preview)
            let viewer = context.user?.id
            if let standing = kind.standing, let outcome = try context.app.database.read({ try standing(found.targetID, viewer, $0) }) {
                return respond(to: outcome, context)
            }
        case .unknown: return try unknown(context)
        case .throttled(let wait): throw tooManyFailures(wait)
        }
        var page = context.pageContext()
        page.head = linkPreviewTags(context, code: code, preview: description, inviter: resolved.inviter)
        let model = JoinPreviewPage.Model(
            action: join.path(code), signInFirst: SiteLinks.routes.signIn(returningTo: preview.path(code)), name: description.name, kindLabel: description.kindLabel, role: description.role,
            inviter: resolved.inviter, guestFields: context.user == nil ? Guests.fields(context, state, timeZoneHint: description.timeZoneHint) : nil,
            errors: state)
        return context.app.page(JoinPreviewPage.render(context: page, model: model), status: status)
    }

    static func joinPost(_ context: inout RequestContext) throws -> Response {
        let raw = try context.request.parameter("code", as: String.self)
        guard let code = InviteCodes.normalize(raw) else { return try unknown(context) }
        let resolved: InviteStore.Resolved, kind: InviteKind
        switch try lookUp(context, code) {
        case .found(let found, let foundKind, _): (resolved, kind) = (found, foundKind)
        case .unknown: return try unknown(context)
        case .throttled(let wait): throw tooManyFailures(wait)
        }
        let app = context.app
        let request = context.request
        if let user = context.user {
            let outcome = try app.database.write { tx in try kind.join(tx, resolved.targetID, user.id, app) }
            return respond(to: outcome, context)
        }
        let (details, state) = Guests.validate(context.request.form)
        guard state.isValid else { return try previewPage(context, state: state, status: .unprocessableContent) }
        // The guest and the membership are made together: a join that fails
        // leaves no stray account behind.
        let result: (JoinOutcome, SetCookie)
        do {
            result = try app.database.write { tx -> (JoinOutcome, SetCookie) in
                let (userID, cookie) = try Guests.create(tx, details, app: app, request: request)
                let outcome = try kind.join(tx, resolved.targetID, userID, app)
                if case .refused = outcome { throw JoinRefused(outcome: outcome) }
                return (outcome, cookie)
            }
        } catch let refused as JoinRefused {
            return respond(to: refused.outcome, context)
        } catch let tooMany as Guests.TooMany {
            var shown = state
            shown.formError =
                "Many guests have joined from your network in the last hour. Please wait \(tooMany.wait) and try again, "
                + "or sign in if you have an account. Nothing was saved."
            return try previewPage(context, state: shown, status: .tooManyRequests)
        }
        context.setCookie(result.1)
        return respond(to: result.0, context)
    }

    /// Rolls the guest back when joining is refused.
    private struct JoinRefused: Error { let outcome: JoinOutcome }

    static func respond(to outcome: JoinOutcome, _ context: RequestContext) -> Response {
        switch outcome {
        case .joined(let redirect):
            return .redirect(to: redirect)
        case .alreadyMember(let redirect, let message):
            return context.app.page(
                JoinOutcomePage.alreadyMember(context: context.pageContext(flash: [Flash(.notice, message)]), open: redirect))
        case .refused(let message):
            return context.app.page(
                JoinOutcomePage.refused(context: context.pageContext(flash: [Flash(.error, message)]), message: message),
                status: .conflict)
        }
    }

    static func unknown(_ context: RequestContext) throws -> Response {
        context.app.page(JoinUnknownPage.render(context: context.pageContext()), status: .notFound)
    }

    /// Open Graph and Twitter card tags, absolute from the base URL, with
    /// nothing private: the name, the kind and who invited.
    static func linkPreviewTags(_ context: RequestContext, code: String, preview: InvitePreview, inviter: String?) -> HTML {
        let base = context.app.baseURL
        let title = "Join \(preview.name) on Kith"
        let description = inviter.map { "\($0) invited you to a \(preview.kindLabel)." } ?? "You're invited to a \(preview.kindLabel)."
        let image = base + context.app.assets.url("icons/og-card.png")
        let url = base + InviteRoutes.preview.path(code)
        return """
            <meta property="og:type" content="website">
            <meta property="og:site_name" content="Kith">
            <meta property="og:title"\(attribute: "content", title)>
            <meta property="og:description"\(attribute: "content", description)>
            <meta property="og:url"\(attribute: "content", url)>
            <meta property="og:image"\(attribute: "content", image)>
            <meta property="og:image:width" content="1200">
            <meta property="og:image:height" content="630">
            <meta name="twitter:card" content="summary_large_image">
            <meta name="twitter:title"\(attribute: "content", title)>
            <meta name="twitter:description"\(attribute: "content", description)>
            <meta name="twitter:image"\(attribute: "content", image)>
            <meta name="description"\(attribute: "content", description)>

            """
    }

    // MARK: Throttle

    static func recordFailure(_ context: RequestContext) throws {
        let now = context.app.now
        let address = context.request.remoteAddress
        try context.app.database.write { tx in
            try InviteStore.recordFailure(tx, address: address, now: now, forgetBefore: now - failureWindow)
        }
    }
}

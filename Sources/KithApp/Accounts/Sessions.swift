import KithCrypto
import KithHTTP
import KithStorage

/// Sessions and the signed-out form token. The session cookie holds a random
/// 256-bit token; the database holds only its SHA-256. A signed-out visitor
/// gets a pre-session cookie instead, so sign-in, sign-up and guest-join forms
/// carry a CSRF token too.
final class Sessions: Sendable {
    static let cookieName = "kith_session"
    static let preSessionCookieName = "kith_pre"
    /// Unused this long, a session ends.
    static let idleLifetime: Int64 = 30 * 86_400
    /// However much it is used, a session ends this long after sign-in.
    static let absoluteLifetime: Int64 = 180 * 86_400
    /// `last_seen_at` is written at most this often, and only by a request a
    /// person made (see `refreshesLastSeen`).
    static let touchInterval: Int64 = 3_600

    let database: Database
    let secret: [UInt8]
    let secureCookies: Bool
    let clock: @Sendable () -> Int64
    /// A session's live streams end with it: see `end`.
    let live: LiveHub

    init(database: Database, secret: [UInt8], secureCookies: Bool, live: LiveHub, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.secret = secret
        self.secureCookies = secureCookies
        self.live = live
        self.clock = clock
    }

    struct Resolved: Sendable {
        var session: AccountStore.Session?
        var user: User?
        var csrfToken: String
        /// Cookies to send with the response (a new pre-session, a cleared stale session).
        var cookies: [SetCookie]
        /// A session cookie came but its session is over: the browser was
        /// signed in a moment ago, and a page script should say so.
        var sessionEnded = false
    }

    /// Who is asking: the live session named by the cookie, or a signed-out visitor.
    func resolve(_ request: Request) throws -> Resolved {
        let cookies = request.cookies
        var outgoing: [SetCookie] = []
        if let token = cookies[Self.cookieName] {
            let now = clock()
            if let (session, user) = try database.read({ try AccountStore.session($0, tokenHash: TokenHash.of(token)) }),
                now - session.lastSeenAt < Self.idleLifetime, now - session.createdAt < Self.absoluteLifetime
            {
                if now - session.lastSeenAt >= Self.touchInterval, Self.refreshesLastSeen(request) {
                    try database.write { try AccountStore.touchSession($0, id: session.id, now: now) }
                    outgoing.append(sessionCookie(token))
                }
                return Resolved(session: session, user: user, csrfToken: session.csrfToken, cookies: outgoing)
            }
            outgoing.append(cleared())
        }
        let pre: String
        if let existing = cookies[Self.preSessionCookieName], Base64URL.decode(existing)?.count == 32 {
            pre = existing
        } else {
            pre = SecureRandom.token()
            outgoing.append(cookie(Self.preSessionCookieName, pre, maxAge: nil))
        }
        return Resolved(
            session: nil, user: nil, csrfToken: preSessionToken(pre), cookies: outgoing,
            sessionEnded: cookies[Self.cookieName] != nil)
    }

    /// Whether this request keeps its session from going idle: a page the
    /// person opened or a form they sent, never what a page script does on
    /// its own (a live refetch, a badge count) nor the event stream. One change
    /// makes every open page refetch at once; if any of those could write, an
    /// hour-old session per viewer would turn one change into a wave of
    /// writes. A navigation still may (at most hourly): someone who only reads
    /// for a month is still using Kith, and must not be signed out for it.
    static func refreshesLastSeen(_ request: Request) -> Bool {
        if !request.method.isSafe { return true }
        return request.headers[RequestContext.enhancedHeader] == nil && request.route != LiveRoutes.stream
    }

    /// The token a signed-out form must carry: bound to the visitor's
    /// pre-session cookie by a keyed hash, so it cannot be forged without the cookie.
    func preSessionToken(_ pre: String) -> String {
        Base64URL.encode(HMAC.sha256(key: secret, message: Array("pre-session:\(pre)".utf8)))
    }

    /// Starts a session for `userID` inside `tx`, ending `replacing` if given
    /// (rotation at sign-in, claim and password change). Returns the cookie.
    func start(_ tx: Transaction, userID: Int64, request: Request, replacing: AccountStore.Session?) throws -> SetCookie {
        if let replacing { try end(tx, sessionIDs: [replacing.id], rotated: true) }
        // Ended sessions stop working on their own; tidy this person's away now.
        let now = clock()
        try AccountStore.deleteExpiredSessions(
            tx, userID: userID, idleSince: now - Self.idleLifetime, createdSince: now - Self.absoluteLifetime)
        let token = SecureRandom.token()
        try AccountStore.createSession(
            tx, userID: userID, tokenHash: TokenHash.of(token), csrfToken: SecureRandom.token(), now: clock(),
            userAgent: request.headers["User-Agent"] ?? "", address: request.remoteAddress)
        return sessionCookie(token)
    }

    // MARK: Ending sessions

    /// Ends these sessions, and once that commits, closes their live streams:
    /// a device signed out must stop hearing anything at once, not when its
    /// stream reaches its maximum lifetime. A browser whose session was only
    /// rotated reconnects with its new cookie and replays what it missed.
    func end(_ tx: Transaction, sessionIDs: [Int64], rotated: Bool = false) throws {
        guard !sessionIDs.isEmpty else { return }
        for id in sessionIDs { try AccountStore.deleteSession(tx, id: id) }
        let live = live
        tx.afterCommit { live.closeStreams(sessions: Set(sessionIDs), rotated: rotated) }
    }

    /// Ends every session of `userID` but `keep`.
    func endOthers(_ tx: Transaction, userID: Int64, keep: Int64?) throws {
        try end(tx, sessionIDs: try AccountStore.sessionIDs(tx, userID: userID, except: keep))
    }

    // MARK: Cookies

    func sessionCookie(_ token: String) -> SetCookie {
        cookie(Self.cookieName, token, maxAge: Int(Self.idleLifetime))
    }

    /// Expires the session cookie (with the same attributes it was set with,
    /// or browsers keep it).
    func cleared() -> SetCookie { cookie(Self.cookieName, "", maxAge: 0) }

    func cookie(_ name: String, _ value: String, maxAge: Int?) -> SetCookie {
        SetCookie(name: name, value: value, path: "/", maxAge: maxAge, httpOnly: true, secure: secureCookies, sameSite: .lax)
    }
}

import KithCrypto
import KithHTTP
import KithStorage

/// Device cookies (OWASP's defence against locking people out): after a
/// successful sign-in the browser gets a long-lived cookie naming the
/// account, signed with the instance secret. An attempt that presents one
/// for the username it names is judged only by the failures made with that
/// cookie, never by the username's or the address's, so strangers guessing
/// at a name (or sharing a carrier's address) cannot lock its owner out of a
/// browser they have used before. Everyone else is judged as before.
///
/// The value is up to `devicesPerBrowser` entries joined by `~`, newest
/// first, so a shared family tablet remembers each of its people. An entry
/// is `<base64url of the username key>.<random nonce>.<HMAC>`: the nonce
/// names the device's failure budget, and a fresh one comes with each
/// sign-in.
extension Sessions {
    static let deviceCookieName = "kith_device"
    static let deviceCookieLifetime: Int64 = 365 * 86_400
    static let devicesPerBrowser = 4

    struct DeviceEntry: Equatable {
        let usernameKey: String
        let nonce: String
    }

    /// The nonce of this browser's valid device cookie for `username`, or nil.
    func trustedDevice(_ request: Request, username: String) -> String? {
        let key = AccountRules.usernameKey(username)
        return deviceEntries(request).first { $0.usernameKey == key }?.nonce
    }

    /// The device cookie to set after `username` proved who they are in this
    /// browser: a fresh entry for them first, then the others it held.
    func deviceCookie(after request: Request, username: String) -> SetCookie {
        let key = AccountRules.usernameKey(username)
        let fresh = DeviceEntry(usernameKey: key, nonce: SecureRandom.token(bytes: 16))
        let kept = deviceEntries(request).filter { $0.usernameKey != key }
        let value = ([fresh] + kept).prefix(Self.devicesPerBrowser).map(encode).joined(separator: "~")
        return cookie(Self.deviceCookieName, value, maxAge: Int(Self.deviceCookieLifetime))
    }

    /// The entries of the request's device cookie whose signatures hold.
    func deviceEntries(_ request: Request) -> [DeviceEntry] {
        guard let value = request.cookies[Self.deviceCookieName], value.utf8.count <= 1_024 else { return [] }
        return value.split(separator: "~").prefix(Self.devicesPerBrowser).compactMap { decode(String($0)) }
    }

    private func encode(_ entry: DeviceEntry) -> String {
        let body = Base64URL.encode(Array(entry.usernameKey.utf8)) + "." + entry.nonce
        return body + "." + deviceSignature(body)
    }

    private func decode(_ text: String) -> DeviceEntry? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty else { return nil }
        let body = parts[0] + "." + parts[1]
        guard constantTimeEquals(Array(parts[2].utf8), Array(deviceSignature(String(body)).utf8)),
            let key = Base64URL.decode(String(parts[0])).flatMap({ String(validating: $0, as: UTF8.self) })
        else { return nil }
        return DeviceEntry(usernameKey: key, nonce: String(parts[1]))
    }

    /// Keyed apart from the pre-session tokens, which share the secret.
    private func deviceSignature(_ body: String) -> String {
        Base64URL.encode(HMAC.sha256(key: secret, message: Array("device:\(body)".utf8)))
    }
}

/// Which budgets judge one attempt to prove who someone is — a password, a
/// recovery code — and so which ones its failure counts against.
struct CredentialThrottle {
    let budgets: [Throttle]

    /// With a valid device cookie for `username`: that device's budget
    /// alone. Without: the username's, and the address's when `perAddress`.
    init(_ context: RequestContext, username: String, perAddress: Bool = true) {
        if let nonce = context.app.sessions.trustedDevice(context.request, username: username) {
            budgets = [.device(nonce)]
        } else {
            budgets = [.username(username)] + (perAddress ? [.address(context.request.remoteAddress)] : [])
        }
    }

    /// How long to wait, in words, when any budget is spent.
    func wait(_ app: KithApp, now: Int64) throws -> String? {
        try app.database.read { try Throttles.wait($0, budgets, now: now) }
    }

    /// What to tell someone held back, or nil: one wording for every form
    /// that checks a password or a recovery code.
    func refusal(_ app: KithApp, now: Int64) throws -> String? {
        try wait(app, now: now).map { "Too many failed attempts. Please wait \($0) before trying again." }
    }

    func recordFailure(_ tx: Transaction, now: Int64) throws {
        try Throttles.record(tx, budgets, now: now)
    }
}

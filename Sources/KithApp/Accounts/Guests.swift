import KithHTTP
import KithStorage
import KithTemplates

/// Guest accounts, for people who arrive through an invite signed out: a
/// display name, an avatar and a time zone make a user and a session, in the
/// same transaction as whatever joining does. The join flows call this; they
/// never create users themselves.
enum Guests {
    struct Details: Sendable {
        var displayName: String
        var avatar: String
        var timeZone: String
    }

    /// Checks the guest form; the errors are keyed by field name.
    static func validate(_ form: FormData) -> (details: Details, state: FormState) {
        let name = AccountRules.displayName(form["display_name"])
        let avatar = form["avatar"].flatMap(Avatars.named)?.id ?? Avatars.forName(name.value).id
        let timeZone = form["time_zone"] ?? ""
        var state = FormState(values: ["display_name": name.value, "avatar": avatar, "time_zone": timeZone])
        state.errors["display_name"] = name.error
        if !TimeZones.isValid(timeZone) { state.errors["time_zone"] = "Choose a time zone from the list." }
        AccountRules.flagUnreadable(form, fields: ["display_name"], into: &state.errors)
        return (Details(displayName: name.value, avatar: avatar, timeZone: timeZone), state)
    }

    /// The guest fields for a join form, filled from `state` (fresh or shown again).
    static func fields(
        _ context: RequestContext, _ state: FormState = FormState(values: ["time_zone": TimeZones.serverDefault]), timeZoneHint: String? = nil
    ) -> HTML {
        let assets = context.app.assets
        let avatars = Avatars.all.map { SettingsPage.AvatarChoice(id: $0.id, label: $0.label, imageURL: assets.url($0.file)) }
        return GuestFields.render(form: state, avatars: avatars, timeZones: TimeZones.all, timeZoneHint: timeZoneHint)
    }

    /// The address has made its hour's worth of guests; `wait` is in words.
    struct TooMany: Error { let wait: String }

    /// Creates the guest and signs them in; returns the new user id and the
    /// session cookie. Throws `TooMany` when the address has used its hourly
    /// budget of guests: checked and counted in the caller's transaction, so
    /// a burst of parallel joins cannot slip past it, and a join that rolls
    /// back is not counted.
    static func create(_ tx: Transaction, _ details: Details, app: KithApp, request: Request) throws -> (userID: Int64, cookie: SetCookie) {
        let now = app.now
        let budget = Throttle.guests(request.remoteAddress, limit: app.configuration.floodLimits.guestsPerAddressPerHour)
        if let wait = try Throttles.wait(tx, [budget], now: now) { throw TooMany(wait: wait) }
        try Throttles.record(tx, [budget], now: now)
        let id = try AccountStore.createUser(
            tx, displayName: details.displayName, username: nil, passwordHash: nil, timeZone: details.timeZone,
            avatar: details.avatar, avatarColour: Avatars.colour(forName: details.displayName).id, now: app.now)
        let cookie = try app.sessions.start(tx, userID: id, request: request, replacing: nil)
        return (id, cookie)
    }
}

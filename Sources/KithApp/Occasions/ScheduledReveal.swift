import Foundation
import KithHTTP
import KithStorage
import KithTemplates

/// The scheduled reveal: the host chooses the moment gifts become
/// unlockable — a day and a time in the celebrant's own time zone (the
/// birthday morning where they wake up). Before it, unlocking is refused and
/// the celebrant's pages count down; contributors go on adding gifts.
enum ScheduledReveal {
    static let set = Route(.post, "/occasions/:occasion/host/reveal")

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(set) { context in try setReveal(context) }
    }

    /// True while gifts of `occasion` wait for their moment.
    static func waits(_ occasion: Occasion, now: Int64) -> Bool {
        guard let at = occasion.revealAt else { return false }
        return now < at
    }

    /// Refuses an unlock before the moment, saying when it comes.
    static func requireRevealed(_ scope: OccasionScope, now: Int64) throws {
        guard waits(scope.occasion, now: now), let at = scope.occasion.revealAt else { return }
        let zone = scope.occasion.revealZone ?? "UTC"
        throw HTTPError(
            .conflict,
            "Not yet: gifts open \(TimeText.local(at, zone: zone, withYear: true).human) (\(zone) time), in \(remaining(at - now)). They stay wrapped until then.")
    }

    /// The zone the host's time is read in: the celebrant's, or the host's
    /// own while nobody holds the celebrant link.
    static func zone(_ db: some Queryable, scope: OccasionScope, hostZone: String) throws -> (zone: String, isCelebrants: Bool) {
        if let zone = try OccasionBookStore.celebrantZone(db, occasionID: scope.id) { return (zone, true) }
        return (hostZone, false)
    }

    /// "2026-12-12T08:00" in `zone` as an instant; nil if it is no such time.
    static func instant(local text: String, zone: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).map { Int($0) }
        guard text.count >= 16, text.count <= 19, parts.count >= 5, parts.allSatisfy({ $0 != nil }),
            FormReader.isCalendarDate(String(text.prefix(10))), let timeZone = TimeZone(identifier: zone)
        else { return nil }
        let values = parts.map { $0! }
        guard (0...23).contains(values[3]), (0...59).contains(values[4]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: values[0], month: values[1], day: values[2], hour: values[3], minute: values[4])
        return calendar.date(from: components).map { Int64($0.timeIntervalSince1970) }
    }

    /// The instant as the host's field shows it: "2026-12-12T08:00" in `zone`.
    static func localValue(_ instant: Int64, zone: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: zone) ?? TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(instant)))
    }

    /// "2 days, 3 hours", "3 hours, 20 minutes", "5 minutes", "less than a
    /// minute" — countdown.js says it the same way.
    static func remaining(_ seconds: Int64) -> String {
        func unit(_ count: Int64, _ name: String) -> String { count == 1 ? "1 \(name)" : "\(count) \(name)s" }
        let minutes = (seconds + 59) / 60
        if seconds < 60 { return "less than a minute" }
        if minutes < 60 { return unit(minutes, "minute") }
        let hours = minutes / 60, days = hours / 24
        if days >= 1 { return hours % 24 == 0 ? unit(days, "day") : "\(unit(days, "day")), \(unit(hours % 24, "hour"))" }
        return minutes % 60 == 0 ? unit(hours, "hour") : "\(unit(hours, "hour")), \(unit(minutes % 60, "minute"))"
    }

    /// The countdown above an occasion's pages while gifts wait; nothing otherwise.
    static func countdown(_ scope: OccasionScope, now: Int64, viewerZone: String) -> HTML {
        guard waits(scope.occasion, now: now), let at = scope.occasion.revealAt else { return "" }
        // The celebrant reads it in their own zone; the others also see whose time it is.
        let zone = scope.role.canPlay ? viewerZone : scope.occasion.revealZone ?? viewerZone
        let time = TimeText.local(at, zone: zone, withYear: true)
        let lead =
            scope.role.canPlay
            ? "Your gifts open"
            : "Gifts open for \(scope.occasion.celebrantName) (\(zone) time)"
        return OccasionBanner.countdown(until: at, now: now, isoTime: time.machine, when: time.human, remaining: remaining(at - now), lead: lead)
    }

    static func setReveal(_ context: RequestContext) throws -> Response {
        let scope = try HostRoutes.host(context)
        let form = context.request.form
        let hostZone = context.user?.timeZone ?? "UTC"
        let zone = try context.app.database.read { db in try Self.zone(db, scope: scope, hostZone: hostZone) }.zone
        var at: Int64? = nil
        if form["clear"] == nil {
            let text = (form["reveal_at"] ?? "").trimmingCharacters(in: .whitespaces)
            let refusal: String? =
                if text.isEmpty {
                    "Choose a day and a time for the gifts to open, or “Remove the time”."
                } else if let instant = instant(local: text, zone: zone) {
                    instant > context.app.now ? nil : "That moment has already passed in \(zone). Choose a later one, or remove the time."
                } else {
                    "Choose a real day and time with the picker, like 2026-12-12 08:00."
                }
            if let refusal {
                var state = FormState(values: ["reveal_at": text])
                state.errors["reveal_at"] = refusal
                return try HostRoutes.render(context, forms: HostRoutes.Forms(reveal: state), status: .unprocessableContent)
            }
            at = instant(local: text, zone: zone)
        }
        return try HostRoutes.act(context) { tx, scope in
            try OccasionBookStore.setReveal(tx, occasionID: scope.id, at: at, zone: zone)
        }
    }
}

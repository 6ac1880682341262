import Foundation
import KithHTTP
import KithStorage
import KithTemplates
import Synchronization

/// A tally's history: the section on its page (a live fragment), taking
/// back one's own last change, −1, the owner's step, totals per period and
/// the CSV. Everyone who sees the tally sees its history and may download
/// it; changing the count stays with those who may (`TallyRole`).
enum TallyHistoryRoutes {
    static let section = Route(.get, "/tallies/:tally/history")
    static let csv = Route(.get, "/tallies/:tally/history.csv")
    static let takeBack = Route(.post, "/tallies/:tally/take-back")
    static let decrement = Route(.post, "/tallies/:tally/decrement")
    static let step = Route(.post, "/tallies/:tally/step")

    /// Rows on one page of history; "Older changes" pages back.
    static let pageSize = 50

    @Endpoints static func endpoints(_ app: KithApp) -> [Endpoint] {
        Endpoint(section) { context in
            let (user, tally) = try TallyRoutes.seen(context)
            return context.app.page(TallyHistoryPages.section(try model(context, user: user, tally: tally), csrf: context.csrfToken))
        }
        Endpoint(csv) { context in try csvExport(context) }
        Endpoint(takeBack) { context in
            try TallyRoutes.change(context, allowed: \.canChangeCount, refusal: "This tally is view only.") { tx, tally, user, now in
                guard let entry = try TallyStore.undoable(tx, tallyID: tally.id, userID: user.id, now: now) else {
                    throw HTTPError(.conflict, try TallyStore.undoRefusal(tx, tallyID: tally.id, userID: user.id, now: now))
                }
                try TallyStore.undo(tx, tallyID: tally.id, entry: entry, by: user.id, now: now)
                return "took back a change"
            }
        }
        Endpoint(decrement) { context in
            try TallyRoutes.change(context, allowed: \.canChangeCount, refusal: "This tally is view only.") { tx, tally, user, now in
                guard try TallyStore.decrement(tx, id: tally.id, by: user.id, now: now) else {
                    throw HTTPError(.unprocessableContent, "The count is already 0; it can't go lower.")
                }
                return "−1"
            }
        }
        Endpoint(step) { context in
            guard let step = Int64(context.request.form["step"] ?? ""), TallyStore.steps.contains(step) else {
                throw HTTPError.badRequest("Choose what a tap adds: 1, 2, 5 or 10.")
            }
            return try TallyRoutes.change(context, allowed: \.canManage, refusal: "Only the owner can choose what a tap adds.") { tx, tally, user, now in
                try TallyStore.setStep(tx, id: tally.id, step: step, by: user.id, now: now)
                return nil
            }
        }
    }

    // MARK: The section

    /// The section as `user` sees it now; `?before=ID` pages back.
    static func model(_ context: RequestContext, user: User, tally: Tally) throws -> TallyHistoryPages.Model {
        let app = context.app
        let now = app.now
        let before = context.request.query["before"].flatMap { Int64($0) }
        let (entries, undoable, zone, totals) = try app.database.read { db in
            let zone = try TallyStore.ownerTimeZone(db, tally: tally)
            return (
                try TallyStore.history(db, tallyID: tally.id, before: before, limit: pageSize + 1),
                tally.role.canChangeCount ? try TallyStore.undoable(db, tallyID: tally.id, userID: user.id, now: now) : nil,
                zone,
                try Period.allCases.map { try TallyStore.totals(db, tallyID: tally.id, periods: $0.recent(now: now, zone: zone)) }
            )
        }
        let shown = entries.prefix(pageSize)
        let rows = shown.map { entry in
            let at = TimeText.local(entry.at, zone: user.timeZone)
            return TallyHistoryPages.Row(
                who: who(entry, viewerID: user.id), when: at.human, machine: at.machine, what: what(entry), valueAfter: entry.valueAfter,
                undo: entry.id == undoable?.id ? takeBack.path(tally.id) : nil)
        }
        let older = entries.count > pageSize ? shown.last.map { "\(TallyRoutes.show.path(tally.id))?before=\($0.id)" } : nil
        let charts = zip(Period.allCases, totals).map { period, totals in
            TallyHistoryPages.Chart(
                title: period.title,
                bars: zip(period.recent(now: now, zone: zone), totals).map { (period.label($0.0.start, zone: zone), $0.1) })
        }
        return TallyHistoryPages.Model(
            tallyID: tally.id, fragment: section.path(tally.id), rows: rows, older: older, csv: csv.path(tally.id), charts: charts)
    }

    /// "you" on the page; the CSV, passed around, names everyone (`viewerID` nil).
    static func who(_ entry: TallyStore.HistoryEntry, viewerID: Int64?) -> String {
        if let id = entry.userID { return id == viewerID ? "you" : entry.userName ?? FormerMember.phrase }
        return entry.byFormer ? FormerMember.phrase : "Kith"
    }

    /// "+1", "−1", "set to 12", "reset from 41", "undo (back to 11)".
    static func what(_ entry: TallyStore.HistoryEntry) -> String {
        switch entry.kind {
        case .increment: "+\(Numerals.arabic(entry.delta))"
        case .decrement: "−\(Numerals.arabic(-entry.delta))"
        case .set: "set to \(Numerals.arabic(entry.valueAfter))"
        case .reset: "reset from \(Numerals.arabic(entry.valueBefore))"
        case .undo: "undo (back to \(Numerals.arabic(entry.valueAfter)))"
        }
    }

    // MARK: Beside the count

    /// −1, the step and the last period's count for the face, and the
    /// owner's step form, read in one snapshot.
    static func decorate(_ model: inout TallyPages.FullModel, context: RequestContext, tally: Tally) throws {
        let now = context.app.now
        let (step, reset, zone, yesterday) = try context.app.database.read { db in
            let zone = try TallyStore.ownerTimeZone(db, tally: tally)
            let days = Period.day.recent(now: now, zone: zone, count: 2)
            return (
                try TallyStore.step(db, tallyID: tally.id), try TallyStore.lastReset(db, tallyID: tally.id), zone,
                try TallyStore.totals(db, tallyID: tally.id, periods: Array(days.prefix(1))).first ?? 0
            )
        }
        let today = Period.day.recent(now: now, zone: zone, count: 2)
        var last: String?
        switch (tally.schedule, reset) {
        case (.daily, let reset?) where reset.at >= today[1].start: last = "Yesterday: \(Numerals.arabic(reset.cleared))"
        case (.monthly, let reset?), (.yearly, let reset?): last = "Last period: \(Numerals.arabic(reset.cleared))"
        case (_, let reset?) where tally.schedule != .off: last = "Before the last reset: \(Numerals.arabic(reset.cleared))"
        case (.off, _) where yesterday != 0: last = "Yesterday: \(yesterday > 0 ? "+" : "−")\(Numerals.arabic(abs(yesterday)))"
        default: last = nil
        }
        let csrf = context.csrfToken
        model.countExtras = TallyHistoryPages.countExtras(
            canChangeCount: tally.role.canChangeCount, decrement: decrement.path(tally.id), step: step, lastPeriod: last,
            returnTo: TallyRoutes.show.path(tally.id), csrf: csrf)
        if tally.role.canManage {
            model.stepCard = TallyHistoryPages.stepForm(action: self.step.path(tally.id), step: step, steps: TallyStore.steps, csrf: csrf)
        }
    }

    // MARK: Periods

    /// Totals per day, week (from Monday) and month, each in the owner's zone.
    enum Period: CaseIterable {
        case day, week, month

        var title: String {
            switch self {
            case .day: "Added per day, last 7 days"
            case .week: "Added per week, last 8 weeks"
            case .month: "Added per month, last 6 months"
            }
        }

        var defaultCount: Int {
            switch self {
            case .day: 7
            case .week: 8
            case .month: 6
            }
        }

        func calendar(_ zone: String) -> Calendar {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeText.timeZone(zone)
            calendar.firstWeekday = 2
            return calendar
        }

        private struct Asked: Hashable {
            var period: Period
            var zone: String
            var count: Int
        }

        /// Periods already worked out, each until its current period ends.
        /// A history section asks the calendar for some sixty dates, and
        /// after one change every viewer of the tally asks for the same ones
        /// (most of a live refetch's time, before this); a zone's answer
        /// changes only at its midnight. Bounded by zones × periods × counts.
        private static let known = Mutex<[Asked: (current: Range<Int64>, periods: [(start: Int64, end: Int64)])]>([:])

        /// The last `count` periods up to and including the current one,
        /// oldest first. The calendar finds each start, so a day across a
        /// DST change is 23 or 25 hours long, as it was lived.
        func recent(now: Int64, zone: String, count: Int? = nil) -> [(start: Int64, end: Int64)] {
            let asked = Asked(period: self, zone: zone, count: count ?? defaultCount)
            if let known = Self.known.withLock({ $0[asked] }), known.current.contains(now) { return known.periods }
            let calendar = calendar(zone)
            let unit: Calendar.Component = self == .day ? .day : self == .week ? .weekOfYear : .month
            let date = Date(timeIntervalSince1970: TimeInterval(now))
            guard let current = calendar.dateInterval(of: unit, for: date) else { return [] }
            let newestFirst = (0..<asked.count).compactMap { back -> (start: Int64, end: Int64)? in
                guard let start = calendar.date(byAdding: unit, value: -back, to: current.start),
                    let interval = calendar.dateInterval(of: unit, for: start)
                else { return nil }
                return (Int64(interval.start.timeIntervalSince1970), Int64(interval.end.timeIntervalSince1970))
            }
            let periods = Array(newestFirst.reversed())
            let span = Int64(current.start.timeIntervalSince1970)..<Int64(current.end.timeIntervalSince1970)
            Self.known.withLock { $0[asked] = (span, periods) }
            return periods
        }

        func label(_ start: Int64, zone: String) -> String {
            let t = TimeText.fields(start, zone: zone)
            let month = TimeText.months[Int(t.tm_mon)]
            switch self {
            case .day: return "\(TimeText.weekdays[Int(t.tm_wday)]) \(t.tm_mday) \(month)"
            case .week: return "Week of \(t.tm_mday) \(month)"
            case .month: return "\(month) \(t.tm_year + 1900)"
            }
        }
    }

    // MARK: CSV

    /// Every change, oldest first, for anyone who sees the tally: RFC 4180,
    /// and a cell that a spreadsheet would take for a formula starts with
    /// a quote mark so it stays text.
    static func csvExport(_ context: RequestContext) throws -> Response {
        let (_, tally) = try TallyRoutes.seen(context)
        let entries = try context.app.database.read { db in
            try TallyStore.history(db, tallyID: tally.id, limit: .max).reversed()
        }
        var lines = ["at,who,kind,change,value_after"]
        for entry in entries {
            let change = entry.kind == .set || entry.kind == .reset ? String(entry.delta) : (entry.delta > 0 ? "+\(entry.delta)" : String(entry.delta))
            let fields = [
                TimeText.utc(entry.at, machine: true), who(entry, viewerID: nil), entry.kind.rawValue,
                change, String(entry.valueAfter),
            ]
            lines.append(fields.map(csvField).joined(separator: ","))
        }
        var response = Response.bytes(Array((lines.joined(separator: "\r\n") + "\r\n").utf8), contentType: "text/csv; charset=utf-8")
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Content-Disposition", "attachment; filename=\"tally-\(tally.id)-history.csv\"")
        return response
    }

    /// One cell: a leading = + - @ (or tab, return) is neutralised with a
    /// quote mark, and a cell with a comma, quote or line break is quoted.
    /// Numbers Kith wrote ("+1", "-12") are the one exception: they are
    /// numbers, not formulas, and a spreadsheet reads them as such.
    static func csvField(_ value: String) -> String {
        var cell = value
        let isNumber = Int64(value.hasPrefix("+") ? String(value.dropFirst()) : value) != nil
        if !isNumber, let first = cell.first, "=+-@\t\r".contains(first) { cell = "'" + cell }
        guard cell.contains(where: { ",\"\r\n".contains($0) }) else { return cell }
        return "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

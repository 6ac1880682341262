import KithHTTP
import KithStorage
import KithTemplates

/// Setting a tally's goal (the owner only), and the goal as its pages show it.
extension TallyRoutes {
    static let goal = Route(.post, "/tallies/:tally/goal")

    static let goalRefusal = "Only the owner can set this tally's goal."

    /// `goal_period` none removes the goal; day, week or month sets it with
    /// `goal_target`. Bad input shows the page again with the message beside
    /// the field (422); a friend is refused (403), anyone else not found (404).
    static func goalPost(_ context: RequestContext) throws -> Response {
        let form = context.request.form
        let rawTarget = (form["goal_target"] ?? "").trimmingCharacters(in: .whitespaces)
        let rawPeriod = form["goal_period"] ?? ""
        var state = FormState(values: ["goal_target": rawTarget, "goal_period": rawPeriod])
        var goal: TallyGoal?
        if rawPeriod != "none" {
            let period = TallyGoalPeriod(rawValue: rawPeriod)
            if period == nil { state.errors["goal_period"] = "Choose each day, each week, each month or no goal." }
            let target = Int64(rawTarget).flatMap { (1...TallyGoals.maximumTarget).contains($0) ? $0 : nil }
            if target == nil { state.errors["goal_target"] = "Enter a goal from 1 to 999,999,999." }
            if let period, let target { goal = TallyGoal(target: target, period: period) }
        }
        guard state.isValid else {
            let user = try context.requireUser()
            let tally = try context.load(Tally.self, parameter: "tally")
            guard tally.role.canManage else { throw HTTPError.forbidden(goalRefusal) }
            return try fullPage(context, user: user, tally: tally, form: state)
        }
        // Not a change to the count: the version stays, and pages that show
        // the tally refetch it (same version) with the new ring.
        return try change(context, allowed: \.canManage, refusal: goalRefusal) { tx, tally, _, _ in
            try TallyStore.setGoal(tx, tallyID: tally.id, goal: goal)
            return nil
        }
    }

    /// The goal as the pages show it, read now; nil without a goal.
    static func goalView(_ tally: Tally, app: KithApp) -> TallyPages.Goal? {
        // A page still shows its count if the goal can't be read.
        goalView(try? app.database.read({ try TallyGoals.progress($0, tally: tally, now: app.now) }) ?? nil)
    }

    static func goalView(_ progress: TallyGoalProgress?) -> TallyPages.Goal? {
        guard let progress else { return nil }
        return TallyPages.Goal(
            target: progress.goal.target, done: progress.done, period: progress.goal.period.rawValue, current: progress.goal.period.current,
            streak: progress.streak > 0 ? progress.goal.period.streak(progress.streak) : nil)
    }
}

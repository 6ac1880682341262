/// A tally's goal on its pages: the ring around the big count, the thin bar
/// on the home row, and the owner's form to set it.
extension TallyPages {
    /// Where a goal stands, as the pages show it.
    public struct Goal: Sendable, Equatable {
        public var target: Int64
        public var done: Int64
        /// "day", "week" or "month".
        public var period: String
        /// "today", "this week", "this month".
        public var current: String
        /// "4 days", or nil with no streak.
        public var streak: String?
        public init(target: Int64, done: Int64, period: String, current: String, streak: String?) {
            (self.target, self.done, self.period, self.current, self.streak) = (target, done, period, current, streak)
        }

        public var met: Bool { done >= target }
        /// "5 of 8 today".
        public var text: String { "\(Numerals.arabic(done)) of \(Numerals.arabic(target)) \(current)" }
        /// The share of the ring drawn, 0 to 100.
        var percent: Int { Int(min(100, done * 100 / max(target, 1))) }
    }

    static let goalPeriods: [(value: String, label: String)] = [
        ("none", "No goal"), ("day", "Each day"), ("week", "Each week (from Monday)"), ("month", "Each month"),
    ]

    /// "5 of 8 today · 🔥 4 days", the flame hidden from screen readers,
    /// which hear "4 days in a row".
    static func goalText(_ goal: Goal, classes: String) -> HTML {
        let streak: HTML = goal.streak.map {
            "<span class=\"tally-goal__streak\"><span aria-hidden=\"true\">🔥</span> \($0)<span class=\"visually-hidden\"> in a row</span></span>"
        } ?? ""
        return "<span\(attribute: "class", classes)><span class=\"tally-goal__progress\">\(goal.text)</span>\(streak)</span>"
    }

    /// The big count inside a ring that fills clockwise as the goal is
    /// reached; the count as it was without a goal. The ring is a conic
    /// gradient behind the count, drawn in twentieths (`data-goal-step`)
    /// because the page's policy allows no inline styles; the words say
    /// the exact number.
    static func goalRing(_ goal: Goal?, around count: HTML) -> HTML {
        guard let goal else { return count }
        return """
            <div class="tally-goal"\(attribute: "data-goal-met", goal.met ? "1" : "0")>
            <div class="tally-goal__ring"\(attribute: "data-goal-step", String(goal.percent / 5))>
            \(count)
            </div>
            <p>\(goalText(goal, classes: "tally-goal__text"))</p>
            </div>
            """
    }

    /// The home row's thin bar and its words.
    static func goalBar(_ goal: Goal?) -> HTML {
        guard let goal else { return "" }
        return """
            <span class="tally-goal-bar"\(attribute: "data-goal-met", goal.met ? "1" : "0")><svg class="tally-goal-bar__svg" viewBox="0 0 100 4" preserveAspectRatio="none" aria-hidden="true" focusable="false"><rect class="tally-goal__track" width="100" height="4" rx="2"/><rect class="tally-goal__arc" width="\(goal.percent)" height="4" rx="2"/></svg>\(goalText(goal, classes: "tally-goal-bar__text text-sm muted"))</span>
            """
    }

    /// The owner's goal form: a target and a period, or no goal.
    static func goalCard(_ model: FullModel, csrf: String?) -> HTML {
        let goal = model.item.goal
        let form = model.form
        return group(title: "Goal", open: form.errors["goal_target"] != nil || form.errors["goal_period"] != nil, """
            <form class="stack" method="post"\(attribute: "action", model.item.paths.goal)>
            \(Layout.csrfField(csrf))
            \(FormField.number(name: "goal_target", label: "Goal", value: form.values["goal_target"] ?? goal.map { String($0.target) }, hint: "How many to reach, from 1 to 999,999,999.", error: form.errors["goal_target"], min: 1, max: 999_999_999))
            \(FormField.select(name: "goal_period", label: "Within", options: goalPeriods, selected: form.values["goal_period"] ?? goal?.period ?? "none", hint: "Counted from midnight where you are: taps count, typed counts and resets don't.", error: form.errors["goal_period"]))
            <div>\(Button.secondary("Save goal", small: true))</div>
            </form>
            """)
    }
}

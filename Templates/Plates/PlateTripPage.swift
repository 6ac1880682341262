/// Trips: the row on the board that ends one or starts the next, and
/// `/games/7/trip`, the trip's numbers and its spots-over-time chart.

/// What the board offers about the trip it shows.
public struct PlateTripControls: Sendable, Equatable {
    /// The trip's page.
    public var page: String
    /// "2 Dec 2026" once the trip has ended.
    public var endedOn: String?
    /// The host's "End this trip", while it is under way.
    public var endAction: String?
    public var endConfirmation: Confirmation?
    /// The host's "New trip, same players", until there is one.
    public var nextAction: String?
    /// The next trip's board, once it exists.
    public var nextTrip: String?
    /// The host's "Resume trip", once it has ended and until the next starts.
    public var resumeAction: String?

    public init(page: String, endedOn: String? = nil, endAction: String? = nil, nextAction: String? = nil, nextTrip: String? = nil) {
        self.page = page
        self.endedOn = endedOn
        self.endAction = endAction
        self.nextAction = nextAction
        self.nextTrip = nextTrip
    }

    /// "This trip ended on …", above an ended trip's board.
    public static func notice(_ controls: PlateTripControls?) -> HTML {
        controls?.endedOn.map { "<p class=\"plate-ended\"><strong>This trip ended on \($0).</strong> Its board stays as it was.</p>" } ?? .empty
    }

    static func hostButton(_ label: String, action: String, csrf: String?) -> HTML {
        """
        <form method="post"\(attribute: "action", action) class="inline-form">\(Layout.csrfField(csrf))\
        \(Button.secondary(label, small: true))</form>
        """
    }

    /// The trip's links and the host's buttons, below the board. Without a
    /// `page` (on the trip page itself) there is no link to it.
    public static func render(_ controls: PlateTripControls?, csrf: String?) -> HTML {
        guard let controls else { return .empty }
        let link: HTML = controls.page.isEmpty ? "" : "<a\(attribute: "href", controls.page)>Trip stats</a>"
        let next: HTML =
            if let trip = controls.nextTrip {
                "<a\(attribute: "href", trip)>Go to the next trip</a>"
            } else if let action = controls.nextAction {
                hostButton("New trip, same players", action: action, csrf: csrf)
            } else {
                ""
            }
        let end: HTML = controls.endAction.flatMap { action in
            controls.endConfirmation.map { Confirm.button("End this trip", action: action, csrf: csrf, $0) }
        } ?? ""
        let resume: HTML = controls.resumeAction.map { hostButton("Resume trip", action: $0, csrf: csrf) } ?? ""
        return """
            <div class="plate-trip-row">\(link)
            \(next)\(resume)\(end)</div>
            """
    }
}

public enum PlateTripPage {
    public struct Leader: Sendable, Equatable {
        public var name: String
        public var count: Int
        public init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }

    public struct Trip: Sendable, Equatable {
        public var name: String
        public var link: String
        public var when: String
        public init(name: String, link: String, when: String) {
            self.name = name
            self.link = link
            self.when = when
        }
    }

    public struct Model: Sendable {
        public var gameName: String
        public var board: String
        public var isCompetitive: Bool
        public var counted: Int
        public var target: Int
        public var daysToFinish: Int?
        public var days: Int
        /// "3.5": regions a day.
        public var pace: String
        public var firstRegion: String?
        public var lastRegion: String?
        public var leaders: [Leader]
        /// The running count at the end of each day.
        public var daily: [Int]
        public var controls: PlateTripControls
        /// Earlier trips with these players, newest first.
        public var earlier: [Trip]

        public init(
            gameName: String, board: String, isCompetitive: Bool, counted: Int, target: Int, daysToFinish: Int?, days: Int, pace: String,
            firstRegion: String?, lastRegion: String?, leaders: [Leader], daily: [Int], controls: PlateTripControls, earlier: [Trip]
        ) {
            self.gameName = gameName
            self.board = board
            self.isCompetitive = isCompetitive
            self.counted = counted
            self.target = target
            self.daysToFinish = daysToFinish
            self.days = days
            self.pace = pace
            self.firstRegion = firstRegion
            self.lastRegion = lastRegion
            self.leaders = leaders
            self.daily = daily
            self.controls = controls
            self.earlier = earlier
        }
    }

    public static func render(context: PageContext, model: Model) -> HTML {
        let unit = model.isCompetitive ? "spots" : "regions"
        let finish: HTML = model.daysToFinish.map { "\(days($0))" } ?? "Not finished yet"
        let facts: [(String, HTML)] = [
            (model.isCompetitive ? "Spots, everyone's" : "Regions together", "\(model.counted) of \(model.target)"),
            ("Days to finish", finish),
            ("Pace", "\(model.pace) \(unit) a day over \(days(model.days))"),
            ("First", "\(model.firstRegion ?? "None yet")"),
            ("Latest", "\(model.lastRegion ?? "None yet")"),
        ]
        let dl = facts.map { "<div class=\"plate-stat\"><dt>\($0.0)</dt><dd>\($0.1)</dd></div>" as HTML }
        let leaders = model.leaders.map { "<li>\($0.name): \($0.count)</li>" as HTML }
        let leaderList: HTML =
            leaders.isEmpty
            ? "<p class=\"muted\">Nobody has spotted anything yet.</p>"
            : "<ol class=\"plate-trip-leaders\">\(leaders.joined(separator: ""))</ol>"
        let earlier: HTML =
            model.earlier.isEmpty
            ? ""
            : """
            <section class="stack" aria-labelledby="plate-trips-title">
            <h2 id="plate-trips-title">Earlier trips</h2>
            <ul>\(model.earlier.map { "<li><a\(attribute: "href", $0.link)>\($0.name)</a> <span class=\"muted\">\($0.when)</span></li>" as HTML }.joined(separator: ""))</ul>
            </section>
            """
        return Layout.page(
            title: "Trip · \(model.gameName)", context: context,
            main: """
                <section class="container container--narrow stack roadtrip plate-page"\(attribute: "data-ending-gone", "You're no longer in \(model.gameName)")>
                <header class="page-header"><h1 class="road-sign">\(model.gameName)</h1>
                <p><a\(attribute: "href", model.board)>Back to the board</a></p></header>
                \(PlateTripControls.notice(model.controls))
                \(PlateTripControls.render(model.controls, csrf: context.csrfToken))
                <section class="stack" aria-labelledby="plate-stats-title">
                <h2 id="plate-stats-title">The trip in numbers</h2>
                <dl class="plate-stats">\(dl.joined(separator: ""))</dl>
                </section>
                <section class="stack" aria-labelledby="plate-leaders-title">
                <h2 id="plate-leaders-title">Who found most</h2>
                \(leaderList)
                </section>
                <section class="stack" aria-labelledby="plate-chart-title">
                <h2 id="plate-chart-title">Spots over time</h2>
                \(chart(model.daily, target: model.target, unit: unit))
                </section>
                \(earlier)
                </section>
                """)
    }

    static func days(_ count: Int) -> String { count == 1 ? "1 day" : "\(count) days" }

    /// The running count as a line, with the same numbers as a table for
    /// anyone who does not see the picture.
    public static func chart(_ daily: [Int], target: Int, unit: String) -> HTML {
        guard let last = daily.last else { return "<p class=\"muted\">The chart starts with the first spot.</p>" }
        let (width, height, left, right, top, bottom) = (600, 220, 44, 16, 14, 34)
        let ceiling = max(target, last, 1)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        // The trip starts at nothing on the left; each day ends at its running count.
        func x(_ day: Int) -> Int { left + plotWidth * (day + 1) / daily.count }
        func y(_ count: Int) -> Int { top + plotHeight - plotHeight * count / ceiling }
        let points = ([(left, y(0))] + daily.indices.map { (x($0), y(daily[$0])) }).map { "\($0.0),\($0.1)" }.joined(separator: " ")
        let summary = "\(last) \(unit) in \(days(daily.count)), of \(target)"
        let rows = daily.enumerated().map { "<tr><th scope=\"row\">Day \($0.offset + 1)</th><td>\($0.element)</td></tr>" as HTML }
        return """
            <figure class="plate-chart">
            <svg class="plate-chart__svg" xmlns="http://www.w3.org/2000/svg"\(attribute: "viewBox", "0 0 \(width) \(height)") role="img" aria-labelledby="plate-chart-summary">
            <line class="plate-chart__axis"\(attribute: "x1", String(left))\(attribute: "y1", String(top))\(attribute: "x2", String(left))\(attribute: "y2", String(top + plotHeight))/>
            <line class="plate-chart__axis"\(attribute: "x1", String(left))\(attribute: "y1", String(top + plotHeight))\(attribute: "x2", String(width - right))\(attribute: "y2", String(top + plotHeight))/>
            <line class="plate-chart__target"\(attribute: "x1", String(left))\(attribute: "y1", String(y(target)))\(attribute: "x2", String(width - right))\(attribute: "y2", String(y(target)))/>
            <text class="plate-chart__label"\(attribute: "x", String(left - 6))\(attribute: "y", String(y(target) + 4)) text-anchor="end">\(target)</text>
            <text class="plate-chart__label"\(attribute: "x", String(left - 6))\(attribute: "y", String(top + plotHeight + 4)) text-anchor="end">0</text>
            <text class="plate-chart__label"\(attribute: "x", String(left))\(attribute: "y", String(height - 8))>Day 1</text>
            <text class="plate-chart__label"\(attribute: "x", String(width - right))\(attribute: "y", String(height - 8)) text-anchor="end">Day \(daily.count)</text>
            <polyline class="plate-chart__line"\(attribute: "points", points)/>
            </svg>
            <figcaption id="plate-chart-summary">\(summary).</figcaption>
            </figure>
            <details class="plate-chart__table">
            <summary>The chart as a table</summary>
            <table><thead><tr><th scope="col">Day</th><th scope="col">Running total</th></tr></thead>
            <tbody>\(rows.joined(separator: ""))</tbody></table>
            </details>
            """
    }
}

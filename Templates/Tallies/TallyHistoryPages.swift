/// A tally's history, its totals per period and what sits beside the big
/// count (−1, the step, the last period's count). The history section is a
/// live fragment refetched with the tally's topic.
public enum TallyHistoryPages {
    public struct Row: Sendable {
        /// "you", a name, "Kith" or "a former member".
        public var who: String
        public var when: String
        /// The instant for `<time datetime>`.
        public var machine: String
        /// "+1", "−1", "set to 12", "reset from 41", "undo (back to 11)".
        public var what: String
        public var valueAfter: Int64
        /// Where "Undo" posts, on the viewer's own undoable change only.
        public var undo: String?
        public init(who: String, when: String, machine: String, what: String, valueAfter: Int64, undo: String?) {
            (self.who, self.when, self.machine, self.what, self.valueAfter, self.undo) = (who, when, machine, what, valueAfter, undo)
        }
    }

    /// One bar chart: "Last 7 days" and a bar per period, oldest first.
    public struct Chart: Sendable {
        public var title: String
        public var bars: [(label: String, total: Int64)]
        public init(title: String, bars: [(label: String, total: Int64)]) {
            (self.title, self.bars) = (title, bars)
        }
    }

    public struct Model: Sendable {
        public var tallyID: Int64
        /// The URL that renders exactly this section.
        public var fragment: String
        public var rows: [Row]
        /// The next page back, when there are older changes.
        public var older: String?
        public var csv: String
        public var charts: [Chart]
        public init(tallyID: Int64, fragment: String, rows: [Row], older: String?, csv: String, charts: [Chart]) {
            (self.tallyID, self.fragment, self.rows, self.older, self.csv, self.charts) = (tallyID, fragment, rows, older, csv, charts)
        }
    }

    public static func section(_ model: Model, csrf: String?) -> HTML {
        let rows = model.rows.map { row -> HTML in
            let undo: HTML = row.undo.map { action in
                """
                <form class="tally-history__undo" method="post"\(attribute: "action", action)>\(Layout.csrfField(csrf))\(Button.secondary("Undo", small: true))</form>
                """
            } ?? ""
            return """
                <tr><td><time\(attribute: "datetime", row.machine)>\(row.when)</time></td><td>\(row.who)</td><td>\(row.what)</td>\
                <td class="tally-history__value">\(Numerals.arabic(row.valueAfter))</td><td>\(undo)</td></tr>
                """
        }
        let table: HTML = model.rows.isEmpty
            ? "<p class=\"muted\">No changes yet.</p>"
            : """
                <div class="tally-history__scroll"><table class="tally-history__table">
                <caption class="visually-hidden">Changes, newest first</caption>
                <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Change</th><th scope="col">Count after</th><th scope="col"><span class="visually-hidden">Undo</span></th></tr></thead>
                <tbody>\(rows)</tbody></table></div>
                """
        let older: HTML = model.older.map { "<p><a\(attribute: "href", $0)>Older changes</a></p>" } ?? ""
        return """
            <section class="card stack tally-card tally-history"\(attribute: "id", FragmentID.tallyHistory(model.tallyID).rawValue)\(attribute: "data-fragment", model.fragment) aria-labelledby="tally-history-title">
            <div class="cluster cluster--between"><h2 class="card__title" id="tally-history-title">History</h2>\(Button.link("Download CSV", href: model.csv, style: .secondary, small: true))</div>
            \(table)
            \(older)
            \(model.charts.map(chart))
            </section>
            """
    }

    /// Bars drawn to scale in SVG; the numbers themselves are a table for
    /// screen readers and for anyone who wants them exact.
    static func chart(_ chart: Chart) -> HTML {
        let highest = max(1, chart.bars.map(\.total).max() ?? 1)
        let width = 24, gap = 8, height = 60
        let bars = chart.bars.enumerated().map { index, bar -> HTML in
            let h = bar.total <= 0 ? 0 : max(2, Int(Int64(height) * bar.total / highest))
            return "<rect x=\"\(index * (width + gap))\" y=\"\(height - h)\" width=\"\(width)\" height=\"\(h)\" rx=\"3\"></rect>"
        }
        let cells = chart.bars.map { "<tr><th scope=\"row\">\($0.label)</th><td>\(Numerals.arabic($0.total))</td></tr>" as HTML }
        let total = chart.bars.count * (width + gap) - gap
        return """
            <figure class="tally-chart stack">
            <figcaption>\(chart.title)</figcaption>
            <svg class="tally-chart__bars" viewBox="0 0 \(max(total, 1)) \(height)" width="\(max(total, 1))" height="\(height)" aria-hidden="true" focusable="false">\(bars)</svg>
            <details><summary>\(chart.title) as numbers</summary>
            <table class="tally-chart__table"><thead><tr><th scope="col">Period</th><th scope="col">Added</th></tr></thead><tbody>\(cells)</tbody></table>
            </details>
            </figure>
            """
    }

    /// Beside the big count: −1 for editors, what a tap adds, and the count
    /// the last reset cleared ("Yesterday: 7").
    public static func countExtras(
        canChangeCount: Bool, decrement: String, step: Int64, lastPeriod: String?, returnTo: String, csrf: String?
    ) -> HTML {
        let minus: HTML = canChangeCount
            ? """
                <form class="tally-decrement" method="post"\(attribute: "action", decrement)>\(Layout.csrfField(csrf))\
                <input type="hidden" name="return"\(attribute: "value", returnTo)>\
                <button class="button button--secondary tally-decrement__button" type="submit">−1<span class="visually-hidden"> (take one off)</span></button></form>
                """
            : ""
        let stepNote: HTML = canChangeCount && step != 1 ? "<span class=\"muted\">Each tap adds \(step).</span>" : ""
        let last: HTML = lastPeriod.map { "<span class=\"tally-last-period\">\($0)</span>" } ?? ""
        return """
            <div class="cluster tally-count-extras">\(minus)\(stepNote)\(last)</div>
            """
    }

    /// The owner's choice of what one tap adds.
    public static func stepForm(action: String, step: Int64, steps: [Int64], csrf: String?) -> HTML {
        """
        <form class="stack" method="post"\(attribute: "action", action)>
        \(Layout.csrfField(csrf))
        \(FormField.select(name: "step", label: "Each tap adds", options: steps.map { (String($0), "+\($0)") }, selected: String(step), hint: nil, error: nil))
        <div>\(Button.secondary("Save step", small: true))</div>
        </form>
        """
    }
}

extension FragmentID {
    public static func tallyHistory(_ id: Int64) -> FragmentID { FragmentID("tally-\(id)-history") }
}

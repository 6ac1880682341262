import Foundation
import Testing

@testable import KithTemplates

/// Occasion stories in small: a weekend's timeline, the gifts waiting at the
/// end of it, and the dossier the dares are written in.
private enum VisualsStory {
    static let sang = TimelineEntryView(
        id: 1, kind: .challenge, title: "Sing in the square", detail: nil, points: 20, when: "Sat 14 Nov, 18:05",
        isoTime: "2026-11-14T18:05:00Z")
    static let dare = TimelineEntryView(
        id: 2, kind: .dare, title: "Order coffee in an accent", detail: "Option B", points: 35, when: "Sat 14 Nov, 19:10",
        isoTime: "2026-11-14T19:10:00Z")
    static let letter = TimelineEntryView(
        id: 3, kind: .gift, title: "A letter from Sam", detail: nil, points: -30, when: "Sat 14 Nov, 20:00",
        isoTime: "2026-11-14T20:00:00Z")
    static let bonus = TimelineEntryView(
        id: 4, kind: .adjustment, title: "Points adjusted", detail: "Reason: bonus for style", points: 5,
        when: "Sun 15 Nov, 09:00", isoTime: "2026-11-15T09:00:00Z")
    static let finale = TimelineEntryView(
        id: 5, kind: .finale, title: "The final badge opened", detail: nil, points: 0, when: "Sun 15 Nov, 21:00",
        isoTime: "2026-11-15T21:00:00Z")

    static func badge(unlocked: Int = 1, offered: Int = 5, isOpen: Bool = false) -> BadgeView {
        BadgeView(
            unlocked: unlocked, offered: offered, isOpen: isOpen, celebrantName: "Alex",
            message: "Happy birthday, Alex! Every gift is yours.")
    }

    static func timeline(_ entries: [TimelineEntryView] = [sang, dare, letter, bonus], seed: Int64 = 42) -> TimelineView {
        TimelineView(entries: entries, badge: badge(), seed: seed)
    }

    static func gift(
        id: Int64 = 7, giver: String = "Sam", state: GiftCardView.State, content: HTML? = nil, unlockAction: String? = nil
    ) -> GiftCardView {
        GiftCardView(
            id: id, giverName: giver, giverAvatarURL: "/static/avatars/fox.svg", kindLabel: "Letter", cost: 30, state: state,
            content: content, unlockAction: unlockAction, detailURL: "/occasions/3/gifts/\(id)")
    }
}

/// Every match of `pattern` in `text`, as the first capture group.
private func captures(_ pattern: String, in text: String) -> [String] {
    let regex = try! NSRegularExpression(pattern: pattern)
    let range = NSRange(text.startIndex..., in: text)
    return regex.matches(in: text, range: range).compactMap { match in
        Range(match.range(at: 1), in: text).map { String(text[$0]) }
    }
}

private func occurrences(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

@Suite("Occasion visuals: the living timeline")
struct OccasionVisualsTimelineTests {
    @Test("the same seed draws the same bytes; another seed moves the background and nothing else")
    func deterministicBackground() {
        let first = Timeline.render(VisualsStory.timeline(seed: 42))
        let again = Timeline.render(VisualsStory.timeline(seed: 42))
        let other = Timeline.render(VisualsStory.timeline(seed: 43))
        #expect(first.bytes == again.bytes)
        #expect(first != other)

        func background(_ html: HTML) -> String {
            captures(#"(<svg class="timeline__bokeh"[^\n]*)"#, in: html.string).first ?? ""
        }
        #expect(!background(first).isEmpty)
        #expect(background(first) != background(other))
        // Outside the background, the two renders are identical.
        #expect(first.string.replacingOccurrences(of: background(first), with: "")
            == other.string.replacingOccurrences(of: background(other), with: ""))
    }

    @Test("the background stays a few dozen shapes however long the timeline grows")
    func backgroundIsBounded() {
        let many = (1...200).map { index in
            TimelineEntryView(
                id: Int64(index), kind: .challenge, title: "Challenge \(index)", detail: nil, points: 10, when: "Sat",
                isoTime: "2026-11-14T18:05:00Z")
        }
        let bokeh = captures(#"(<svg class="timeline__bokeh"[^\n]*)"#, in: Timeline.render(VisualsStory.timeline(many)).string)[0]
        let shapes = occurrences("<circle", in: bokeh) + occurrences("<path", in: bokeh)
        #expect(shapes <= Bokeh.maximumShapes)
        #expect(shapes >= 10)
    }

    @Test("one node per entry, in order, with one connector between each pair")
    func nodesAndConnectors() {
        let html = Timeline.render(VisualsStory.timeline()).string
        #expect(occurrences("<svg class=\"timeline__node ", in: html) == 4)
        #expect(occurrences("<li class=\"timeline__entry ", in: html) == 4)
        #expect(occurrences("<svg class=\"timeline__connector\"", in: html) == 3)
        #expect(captures(#"data-entry="(\d+)""#, in: html) == ["1", "2", "3", "4"])

        let single = Timeline.render(VisualsStory.timeline([VisualsStory.sang])).string
        #expect(occurrences("<svg class=\"timeline__node ", in: single) == 1)
        #expect(!single.contains("timeline__connector"))
    }

    @Test("challenges and dares are blue, gifts gold, adjustments neutral; a dare carries the classified mark")
    func coloursByKind() {
        let html = Timeline.render(
            VisualsStory.timeline([VisualsStory.sang, VisualsStory.dare, VisualsStory.letter, VisualsStory.bonus])
        ).string
        let beads = captures(#"<circle class="timeline__bead" cx="20" cy="20" r="13" fill="(#[0-9A-F]{6})"/>"#, in: html)
        #expect(beads == ["#5B8DEF", "#5B8DEF", "#F5A623", "#8C839A"])
        let nodeKinds = captures(#"<svg class="timeline__node timeline__node--(\w+)""#, in: html)
        #expect(nodeKinds == ["challenge", "dare", "gift", "adjustment"])
        #expect(occurrences("timeline__classified", in: html) == 1)
        let dareNode = captures(#"(<svg class="timeline__node timeline__node--dare".*?</svg>)"#, in: html)[0]
        #expect(dareNode.contains("timeline__classified"))
    }

    @Test("only the newest entry, the last one, is marked to breathe")
    func newestNode() {
        let html = Timeline.render(VisualsStory.timeline()).string
        #expect(occurrences("timeline__entry--newest", in: html) == 1)
        let items = captures(#"(<li class="[^"]*")"#, in: html)
        #expect(items.last?.contains("timeline__entry--newest") == true)
        #expect(items.dropLast().allSatisfy { !$0.contains("newest") })
    }

    @Test("entries arrive staggered by class, alternate sides, and no element carries a style attribute")
    func staggerAndSides() {
        let entries = (1...14).map { index in
            TimelineEntryView(
                id: Int64(index), kind: .gift, title: "Gift \(index)", detail: nil, points: -10, when: "Sun",
                isoTime: "2026-11-15T10:00:00Z")
        }
        let html = Timeline.render(VisualsStory.timeline(entries)).string
        let staggers = captures(#"class="timeline__entry [^"]*stagger-(\d+)"#, in: html).compactMap(Int.init)
        #expect(staggers == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 12])
        let sides = captures(#"timeline__entry--(left|right)"#, in: html)
        #expect(sides.prefix(4) == ["left", "right", "left", "right"])
        #expect(!html.contains("style="))
    }

    @Test("every connector is a well-formed S-curve from its node's side to the next node's side")
    func pathsAreWellFormed() {
        let html = Timeline.render(VisualsStory.timeline()).string
        let paths = captures(#"<path class="timeline__trail" d="([^"]*)""#, in: html)
        #expect(paths == ["M30 0C30 50 70 50 70 100", "M70 0C70 50 30 50 30 100", "M30 0C30 50 70 50 70 100"])
        let curve = try! NSRegularExpression(pattern: #"^M(\d+) 0C\1 50 (\d+) 50 \2 100$"#)
        for path in paths {
            #expect(curve.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil, "\(path)")
        }
        // Every path in the drawing, sparkles included, is a plain list of
        // commands and numbers.
        let number = #"-?\d+(\.\d)?"#
        let command = #"[MCQLZmcqlhvzHVa-z]"#
        let allPaths = captures(#"<path[^>]* d="([^"]*)""#, in: html)
        #expect(allPaths.count > paths.count)
        let wellFormed = try! NSRegularExpression(pattern: "^(\(command)|\(number)|[ ,.]|\\d)+$")
        for path in allPaths {
            #expect(wellFormed.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil, "\(path)")
        }
    }

    @Test("each entry reads as words: what happened, the title, the points and the time")
    func entriesReadAloud() {
        let html = Timeline.render(VisualsStory.timeline([VisualsStory.sang])).string
        #expect(
            html.contains(
                """
                <span class="timeline__kind">Challenge completed<span class="visually-hidden">:</span></span> \
                <strong class="timeline__title">Sing in the square</strong>\
                <span class="visually-hidden">, </span><span class="timeline__points timeline__points--gain">+20 points</span>\
                <span class="visually-hidden">, </span><time class="timeline__time" datetime="2026-11-14T18:05:00Z">Sat 14 Nov, 18:05</time>
                """))
        let spent = Timeline.render(VisualsStory.timeline([VisualsStory.letter])).string
        #expect(spent.contains("<span class=\"timeline__points timeline__points--spend\">\u{2212}30 points</span>"))
        let finale = Timeline.render(VisualsStory.timeline([VisualsStory.finale])).string
        #expect(!finale.contains("timeline__points"))
        let adjusted = Timeline.render(VisualsStory.timeline([VisualsStory.bonus])).string
        #expect(adjusted.contains("<span class=\"timeline__detail\">Reason: bonus for style</span>"))
        // The drawing is decoration; assistive technology skips it. (The
        // sparkles nested in the background are inside a hidden one.)
        let drawings = captures(#"(<svg class=[^>]*>)"#, in: html)
        #expect(drawings.count == 3)  // background, node, badge
        for svg in drawings {
            #expect(svg.contains(#"aria-hidden="true""#))
        }
    }

    @Test("an empty timeline says what will appear, and still shows the badge")
    func emptyTimeline() {
        let html = Timeline.render(TimelineView(entries: [], badge: VisualsStory.badge(unlocked: 0, offered: 0), seed: 1)).string
        #expect(html.contains("The path starts here"))
        #expect(!html.contains("timeline__list"))
        #expect(!html.contains("timeline__node"))
        #expect(html.contains("No gifts on offer yet"))
        #expect(html.contains("final-badge final-badge--sealed glow-0"))
    }

    @Test("titles, details and times with markup stay text")
    func escaping() {
        let hostile = TimelineEntryView(
            id: 9, kind: .dare, title: "<script>alert(1)</script>", detail: "\"onmouseover=alert(1) x=\"", points: 10,
            when: "<img src=x onerror=alert(1)>", isoTime: "\"onmouseover=alert(1)")
        let badge = BadgeView(
            unlocked: 1, offered: 1, isOpen: true, celebrantName: "<script>", message: "<script>alert(2)</script>\"onmouseover=")
        let html = Timeline.render(TimelineView(entries: [hostile], badge: badge, seed: 7)).string
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("\"onmouseover"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("datetime=\"&quot;onmouseover=alert(1)\""))
        #expect(html.contains("&lt;script&gt;alert(2)&lt;/script&gt;&quot;onmouseover="))
    }
}

@Suite("Occasion visuals: the final badge")
struct OccasionVisualsBadgeTests {
    @Test(
        "the glow grows a step with each unlock and is full only when every gift is unlocked",
        arguments: [
            (0, 0, 0), (0, 5, 0), (1, 5, 1), (2, 5, 2), (3, 5, 3), (4, 5, 4), (5, 5, 5),
            (1, 10, 1), (9, 10, 4), (1, 3, 2), (2, 3, 4), (3, 3, 5), (1, 1, 5),
        ])
    func glowSteps(unlocked: Int, offered: Int, level: Int) {
        let badge = VisualsStory.badge(unlocked: unlocked, offered: offered)
        #expect(Timeline.glowLevel(badge) == level)
        #expect(Timeline.badge(badge).string.contains("final-badge final-badge--sealed glow-\(level)\""))
    }

    @Test("a sealed badge counts the gifts and keeps the message and the celebration back")
    func sealed() {
        let html = Timeline.badge(VisualsStory.badge(unlocked: 2, offered: 5)).string
        #expect(html.contains("<p class=\"final-badge__progress\">2 of 5 gifts unlocked</p>"))
        #expect(!html.contains("Happy birthday"))
        #expect(!html.contains("data-finale"))
        #expect(!html.contains("data-celebrate"))
        #expect(Timeline.badge(VisualsStory.badge(unlocked: 0, offered: 1)).string.contains("0 of 1 gift unlocked"))
    }

    @Test("an open badge shows the message at full glow and asks the page for confetti")
    func open() {
        let html = Timeline.badge(VisualsStory.badge(unlocked: 5, offered: 5, isOpen: true)).string
        #expect(html.contains("<div class=\"final-badge final-badge--open glow-5\" data-finale=\"confetti\" role=\"status\">"))
        #expect(html.contains("<p class=\"final-badge__message\">Happy birthday, Alex! Every gift is yours.</p>"))
        #expect(html.contains("5 of 5 gifts unlocked"))
        // Not motion.js's data-celebrate, which replays on every live refresh.
        #expect(!html.contains("data-celebrate"))
    }

    @Test("the host's finale opens the badge before every gift is unlocked")
    func hostFinale() {
        let badge = VisualsStory.badge(unlocked: 1, offered: 4, isOpen: true)
        #expect(Timeline.glowLevel(badge) == 5)
        #expect(Timeline.badge(badge).string.contains("final-badge--open"))
    }
}

@Suite("Occasion visuals: the gift carousel")
struct OccasionVisualsCarouselTests {
    let secret: HTML = "<p>SECRET-LETTER-TEXT</p>"

    @Test("a locked card shows giver, avatar, kind and cost, and never content, even if the view held some")
    func lockedCard() {
        let card = VisualsStory.gift(state: .locked, content: secret, unlockAction: "/occasions/3/gifts/7/unlock")
        let html = GiftCarousel.render(cards: [card], balance: 12, csrfToken: "tok").string
        #expect(html.contains("gift-card gift-card--locked frosted"))
        #expect(html.contains("<img class=\"gift-card__avatar\" src=\"/static/avatars/fox.svg\" alt=\"\""))
        #expect(html.contains("<span class=\"gift-card__kind\">Letter</span>"))
        #expect(html.contains("from <strong>Sam</strong>"))
        #expect(html.contains("<span class=\"badge badge--gold\">30 points</span>"))
        #expect(html.contains("Locked: 18 points to go"))
        #expect(!html.contains("SECRET-LETTER-TEXT"))
        #expect(!html.contains("<form"))
        #expect(!html.contains("_csrf"))
    }

    @Test("an affordable card pulses gold and carries a real unlock form with the CSRF field")
    func affordableCard() {
        let card = VisualsStory.gift(state: .affordable, content: secret, unlockAction: "/occasions/3/gifts/7/unlock")
        let html = GiftCarousel.render(cards: [card], balance: 45, csrfToken: "tok").string
        #expect(html.contains("gift-card gift-card--affordable pulse-gold"))
        #expect(
            html.contains(
                """
                <form class="gift-card__unlock" method="post" action="/occasions/3/gifts/7/unlock">\
                <input type="hidden" name="_csrf" value="tok">\
                <button class="button button--gold" type="submit">Unlock for 30 points</button></form>
                """))
        #expect(!html.contains("SECRET-LETTER-TEXT"))
    }

    @Test("without an unlock action (not the celebrant, or closed) an affordable card has no form")
    func noActionNoForm() {
        let html = GiftCarousel.render(cards: [VisualsStory.gift(state: .affordable)], balance: 45, csrfToken: "tok").string
        #expect(html.contains("gift-card--affordable"))
        #expect(!html.contains("<form"))
        #expect(!html.contains("Unlock for"))
    }

    @Test("an unlocked card shows the gift itself in a focusable region, and no form")
    func unlockedCard() {
        let card = VisualsStory.gift(state: .unlocked, content: secret, unlockAction: "/occasions/3/gifts/7/unlock")
        let html = GiftCarousel.render(cards: [card], balance: 0, csrfToken: "tok").string
        #expect(html.contains("<li class=\"gift-card gift-card--unlocked\" tabindex=\"-1\""))
        #expect(
            html.contains(
                "<div class=\"gift-card__content\" tabindex=\"0\" role=\"region\" aria-label=\"Letter from Sam\"><p>SECRET-LETTER-TEXT</p></div>"
            ))
        #expect(!html.contains("<form"))
    }

    @Test("every card is reachable: a link to its page, a label with its place, and a focusable row")
    func keyboardReach() {
        let cards = [
            VisualsStory.gift(id: 1, giver: "Sam", state: .unlocked, content: secret),
            VisualsStory.gift(id: 2, giver: "Maya", state: .affordable, unlockAction: "/u/2"),
            VisualsStory.gift(id: 3, giver: "Jo", state: .locked),
        ]
        let html = GiftCarousel.render(cards: cards, balance: 30, csrfToken: "tok").string
        #expect(captures(#"<a class="gift-card__link" href="([^"]*)""#, in: html) == [
            "/occasions/3/gifts/1", "/occasions/3/gifts/2", "/occasions/3/gifts/3",
        ])
        #expect(captures(#"aria-label="(Gift \d of \d[^"]*)""#, in: html) == [
            "Gift 1 of 3: Letter from Sam", "Gift 2 of 3: Letter from Maya", "Gift 3 of 3: Letter from Jo",
        ])
        #expect(html.contains("<ul class=\"gift-carousel__track\" tabindex=\"0\""))
        #expect(html.contains("aria-live=\"polite\""))
        // The script's controls stay hidden until the script shows them.
        #expect(html.contains("data-carousel-controls hidden>"))
        #expect(occurrences("type=\"button\" data-carousel-step", in: html) == 2)
        #expect(html.contains("Your balance <strong class=\"gift-carousel__points\">30 points</strong>"))
        #expect(!html.contains("style="))
    }

    @Test("no gifts: an empty state, with the balance")
    func empty() {
        let html = GiftCarousel.render(cards: [], balance: 25, csrfToken: "tok").string
        #expect(html.contains("No gifts on offer yet"))
        #expect(html.contains("25 points"))
        #expect(!html.contains("gift-carousel__track"))
        #expect(!html.contains("data-carousel-controls"))
    }

    @Test("giver names, kinds and URLs with markup stay text")
    func escaping() {
        let card = GiftCardView(
            id: 1, giverName: "<script>alert(1)</script>", giverAvatarURL: "\"onmouseover=alert(1)",
            kindLabel: "\"onmouseover=alert(2) x=\"", cost: 10, state: .affordable, content: nil,
            unlockAction: "\"><script>alert(3)</script>", detailURL: "javascript\"onmouseover=x")
        let html = GiftCarousel.render(cards: [card], balance: 10, csrfToken: "\"><script>").string
        #expect(!html.contains("<script"))
        #expect(!html.contains("\"onmouseover"))
        #expect(html.contains("from <strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong>"))
        #expect(html.contains("src=\"&quot;onmouseover=alert(1)\""))
    }
}

@Suite("Occasion visuals: the dossier")
struct OccasionVisualsDossierTests {
    @Test("the classified frame: a stamp, a title and the caller's body inside")
    func frame() {
        let html = Dossier.render(title: "Secret dare", stamp: "Eyes only", body: "<form method=\"post\"></form>").string
        #expect(
            html == """
                <section class="dossier dossier--framed">
                <header class="dossier__head"><p class="stamp dossier__stamp">Eyes only</p><h2 class="dossier__title">Secret dare</h2></header>
                <div class="dossier__body stack">
                <form method="post"></form>
                </div>
                </section>
                """)
    }

    @Test("title and stamp are escaped; the body is the caller's HTML")
    func escaping() {
        let html = Dossier.render(title: "<script>x</script>", stamp: "\"onmouseover=y", body: "<p>ok</p>").string
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;x&lt;/script&gt;"))
        #expect(html.contains("&quot;onmouseover=y"))
        #expect(html.contains("<p>ok</p>"))
    }
}

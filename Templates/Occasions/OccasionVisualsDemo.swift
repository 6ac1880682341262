/// The occasion visuals on the styleguide, with a made-up weekend: a
/// timeline four entries long under a badge two gifts of five bright, a
/// carousel with one gift of each state, and a dossier holding a dare. The
/// page links `css/timeline.css` for it.
enum OccasionVisualsDemo {
    static func render(assetURL: (String) -> String) -> HTML {
        let entries = [
            TimelineEntryView(
                id: 1, kind: .challenge, title: "Sing in the town square", detail: nil, points: 20, when: "Sat 14 Nov, 18:05",
                isoTime: "2026-11-14T18:05:00Z"),
            TimelineEntryView(
                id: 2, kind: .dare, title: "Order a coffee in a pirate accent", detail: "Option B", points: 35,
                when: "Sat 14 Nov, 19:10", isoTime: "2026-11-14T19:10:00Z"),
            TimelineEntryView(
                id: 3, kind: .gift, title: "A letter from Sam", detail: nil, points: -30, when: "Sat 14 Nov, 20:00",
                isoTime: "2026-11-14T20:00:00Z"),
            TimelineEntryView(
                id: 4, kind: .adjustment, title: "Points adjusted", detail: "Reason: bonus for style", points: 5,
                when: "Sun 15 Nov, 09:00", isoTime: "2026-11-15T09:00:00Z"),
        ]
        let badge = BadgeView(
            unlocked: 2, offered: 5, isOpen: false, celebrantName: "Alex", message: "Happy birthday, Alex! Every gift is yours.")
        let cards = [
            GiftCardView(
                id: 1, giverName: "Sam", giverAvatarURL: assetURL("avatars/fox.svg"), kindLabel: "Letter", cost: 30,
                state: .unlocked, content: Markdown.render("Dear Alex,\n\nHere's to many more **adventures**.\n\nSam"),
                unlockAction: nil, detailURL: "#main"),
            GiftCardView(
                id: 2, giverName: "Maya", giverAvatarURL: assetURL("avatars/owl.svg"), kindLabel: "Voice note", cost: 25,
                state: .affordable, content: nil, unlockAction: nil, detailURL: "#main"),
            GiftCardView(
                id: 3, giverName: "Jo", giverAvatarURL: assetURL("avatars/bear.svg"), kindLabel: "Photos", cost: 60,
                state: .locked, content: nil, unlockAction: nil, detailURL: "#main"),
        ]
        let dare: HTML = """
            <p class="dossier__meta"><span>File 0042</span><span>Eyes: celebrant only</span></p>
            <p>Agent, your mission: teach a stranger one dance move before sundown.</p>
            """
        return """
            <div class="sg-section stack">
            <h3>Occasion visuals</h3>
            \(Timeline.render(TimelineView(entries: entries, badge: badge, seed: 7)))
            \(GiftCarousel.render(cards: cards, balance: 45, csrfToken: nil))
            \(Dossier.render(title: "Secret dare", stamp: "Eyes only", body: dare))
            </div>
            """
    }
}

/// The front door for people who are not signed in.
public enum Landing {
    public static func render(context: PageContext) -> HTML {
        Layout.page(
            title: "Celebrate, play and count together", context: context,
            main: """
                <section class="hero">
                <h1>Little rituals for your people.</h1>
                <p class="lede">Kith gives a small group three things to share through one link:
                an occasion where the guest of honour earns their gifts, a road-trip plate game
                that lasts all summer, and tallies you keep with friends.</p>
                </section>
                <section class="features" aria-label="What you can do">
                <article class="feature feature--occasion">
                <h2>Occasions</h2>
                <p>Friends write challenges and secret dares; the celebrant completes them to unlock
                letters, photos and voice notes, one by one, on a timeline that keeps the day.</p>
                </article>
                <article class="feature feature--plates">
                <h2>Plate games</h2>
                <p>Spot licence plates from all fifty states on a live map, racing each other or
                filling one board together.</p>
                </article>
                <article class="feature feature--tallies">
                <h2>Tallies</h2>
                <p>Count anything with friends — coffees, push-ups, days until the trip — and see
                every tap as it happens.</p>
                </article>
                </section>
                """)
    }
}

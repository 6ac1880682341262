/// What every page needs from the app to render its frame: where assets
/// live, who is looking, what to announce. Templates import nothing of the
/// server, so a template is a pure function of its inputs.
public struct PageContext: Sendable {
    /// Maps a file in `Public/` to its content-hashed URL.
    public var assetURL: @Sendable (String) -> String
    public var flash: [Flash]

    public init(assetURL: @escaping @Sendable (String) -> String, flash: [Flash] = []) {
        self.assetURL = assetURL
        self.flash = flash
    }
}

public struct Flash: Sendable, Equatable {
    public enum Kind: String, Sendable { case notice, error }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

public enum Layout {
    /// The document frame around every page.
    public static func page(title: String, context: PageContext, main: HTML) -> HTML {
        let flashes = context.flash.map { flash -> HTML in
            "<p class=\"flash flash--\(flash.kind.rawValue)\" role=\"status\">\(flash.message)</p>"
        }
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="theme-color" content="#7C5CFC">
            <title>\(title) · Kith</title>
            <link rel="icon" href="\(context.assetURL("icons/kith.svg"))" type="image/svg+xml">
            <link rel="stylesheet" href="\(context.assetURL("css/app.css"))">
            <script type="module" src="\(context.assetURL("js/app.js"))"></script>
            </head>
            <body>
            <a class="skip-link" href="#main">Skip to content</a>
            <header class="site-header">
            <nav class="site-nav" aria-label="Main">
            <a class="brand" href="/">Kith</a>
            </nav>
            </header>
            \(flashes)
            <main id="main" tabindex="-1">
            \(main)
            </main>
            <footer class="site-footer"><p>Kith — made for small groups.</p></footer>
            </body>
            </html>

            """
    }
}

import Foundation
import Testing

@testable import KithTemplates

@Suite("Form fields wire labels, hints and errors")
struct FormFieldTests {
    @Test("a text field with a hint and an error lists both, marks itself invalid and keeps its constraints")
    func textFieldWithEverything() {
        let html = FormField.text(
            name: "username", label: "Username", value: "dad_ross", hint: "3–30 letters.",
            error: "That username is taken.", required: true, maxLength: 30, autocomplete: "username")
        #expect(
            html.string == """
                <div class="field field--invalid">
                <label class="field__label" for="field-username">Username</label>
                <p class="field__hint" id="field-username-hint">3–30 letters.</p>
                <p class="field__error" id="field-username-error"><span class="visually-hidden">Error: </span>That username is taken.</p>
                <input class="field__input" id="field-username" name="username" type="text" value="dad_ross" required maxlength="720" autocomplete="username" aria-describedby="field-username-hint field-username-error" aria-invalid="true">
                </div>
                """)
    }

    @Test("a bare field has no described-by, no invalid flag and no value attribute")
    func bareTextField() {
        #expect(
            FormField.text(name: "q", label: "Search", type: .search).string == """
                <div class="field">
                <label class="field__label" for="field-q">Search</label>
                <input class="field__input" id="field-q" name="q" type="search">
                </div>
                """)
    }

    @Test("input mode and placeholder are written when given")
    func inputModeAndPlaceholder() {
        let html = FormField.text(name: "code", label: "Invite code", inputMode: "text", placeholder: "ABC 234")
        #expect(html.string.contains(#"<input class="field__input" id="field-code" name="code" type="text" inputmode="text" placeholder="ABC 234">"#))
    }

    @Test("a password field never writes its value back into the page")
    func passwordIsNotEchoed() {
        let html = FormField.text(name: "password", label: "Password", value: "hunter2!", type: .password)
        #expect(!html.string.contains("hunter2"))
        #expect(html.string.contains(#"<input class="field__input" id="field-password" name="password" type="password">"#))
    }

    @Test("label, value, hint and error are escaped")
    func escapes() {
        let html = FormField.text(
            name: "name", label: "Name <b>", value: "\"><script>x</script>", hint: "a & b", error: "it's <wrong>")
        #expect(html.string.contains(#"<label class="field__label" for="field-name">Name &lt;b&gt;</label>"#))
        #expect(html.string.contains(#"value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;""#))
        #expect(html.string.contains(#"<p class="field__hint" id="field-name-hint">a &amp; b</p>"#))
        #expect(html.string.contains("</span>it&#39;s &lt;wrong&gt;</p>"))
        #expect(!html.string.contains("<script>"))
    }

    @Test("ids keep letters, digits, dashes and underscores and replace everything else")
    func ids() {
        #expect(FormField.id(for: "display_name") == "field-display_name")
        #expect(FormField.id(for: "dare[points] x") == "field-dare-points--x")
        #expect(FormField.id(for: "Zoë") == "field-Zo-")
    }

    @Test("a number field keeps what was typed and its bounds")
    func number() {
        let html = FormField.number(
            name: "points", label: "Points", value: "abc", error: "Points must be a number.", required: true, min: 5,
            max: 100, step: 5)
        #expect(
            html.string == """
                <div class="field field--invalid">
                <label class="field__label" for="field-points">Points</label>
                <p class="field__error" id="field-points-error"><span class="visually-hidden">Error: </span>Points must be a number.</p>
                <input class="field__input" id="field-points" name="points" type="number" inputmode="numeric" value="abc" required min="5" max="100" step="5" aria-describedby="field-points-error" aria-invalid="true">
                </div>
                """)
    }

    @Test("a textarea starts its content after a newline, so a leading blank line survives")
    func textarea() {
        let html = FormField.textarea(
            name: "letter", label: "Letter", value: "\nDear Sam <3", hint: "Markdown works.", maxLength: 5000, rows: 4)
        #expect(
            html.string == """
                <div class="field">
                <label class="field__label" for="field-letter">Letter</label>
                <p class="field__hint" id="field-letter-hint">Markdown works.</p>
                <textarea class="field__input" id="field-letter" name="letter" rows="4" maxlength="120000" aria-describedby="field-letter-hint">

                Dear Sam &lt;3</textarea>
                </div>
                """)
    }

    @Test("a select marks the chosen option, its prompt only when nothing is chosen, and is required only with a prompt")
    func select() {
        let options: [(value: String, label: String)] = [("off", "Never"), ("daily", "Every day")]
        #expect(
            FormField.select(name: "reset", label: "Reset", options: options, selected: "daily", prompt: "Choose…").string
                == """
                <div class="field">
                <label class="field__label" for="field-reset">Reset</label>
                <span class="select"><select class="field__input" id="field-reset" name="reset">
                <option value="">Choose…</option>
                <option value="off">Never</option>
                <option value="daily" selected>Every day</option>
                </select></span>
                </div>
                """)
        let unchosen = FormField.select(
            name: "reset", label: "Reset", options: options, error: "Pick one.", required: true, prompt: "Choose…")
        #expect(unchosen.string.contains(#"<option value="" selected>Choose…</option>"#))
        #expect(unchosen.string.contains(#"name="reset" required aria-describedby="field-reset-error" aria-invalid="true">"#))
        let noPrompt = FormField.select(name: "reset", label: "Reset", options: options, required: true)
        #expect(noPrompt.string.contains(#"<select class="field__input" id="field-reset" name="reset">"#))
    }

    @Test("a checkbox puts its label after the box and its messages beneath")
    func checkbox() {
        #expect(
            FormField.checkbox(name: "fireworks", label: "Fireworks", checked: true, hint: "On this tally.").string == """
                <div class="field field--checkbox">
                <input class="field__checkbox" id="field-fireworks" name="fireworks" type="checkbox" value="on" checked aria-describedby="field-fireworks-hint">
                <label class="field__label" for="field-fireworks">Fireworks</label>
                <p class="field__hint" id="field-fireworks-hint">On this tally.</p>
                </div>
                """)
        let invalid = FormField.checkbox(name: "agree", label: "I understand", error: "Tick this first.", required: true)
        #expect(invalid.string.hasPrefix(#"<div class="field field--checkbox field--invalid">"#))
        #expect(
            invalid.string.contains(
                #"type="checkbox" value="on" required aria-describedby="field-agree-error" aria-invalid="true">"#))
    }

    @Test("radios share a fieldset whose legend asks the question; the first radio carries the field's id")
    func radios() {
        let html = FormField.radios(
            name: "theme", legend: "Theme", options: [("system", "System"), ("dark", "Dark")], selected: "dark",
            error: "Pick a theme.")
        #expect(
            html.string == """
                <fieldset class="field field--choices field--invalid" aria-describedby="field-theme-error">
                <legend class="field__label">Theme</legend>
                <p class="field__error" id="field-theme-error"><span class="visually-hidden">Error: </span>Pick a theme.</p>
                <div class="choices">
                <label class="choice"><input class="choice__input" id="field-theme" name="theme" type="radio" value="system"> <span>System</span></label>
                <label class="choice"><input class="choice__input" id="field-theme-2" name="theme" type="radio" value="dark" checked> <span>Dark</span></label>
                </div>
                </fieldset>
                """)
    }
}

@Suite("Form error summary")
struct FormErrorsTests {
    @Test("each error links to its field; a form-wide error is listed without a link")
    func summary() {
        let html = FormErrors.render([
            (field: "username", message: "That username is taken."), (field: nil, message: "Nothing was saved <yet>."),
        ])
        #expect(
            html.string == """
                <div class="form-errors" role="alert" tabindex="-1">
                <h2 class="form-errors__title">Please check the form</h2>
                <ul class="form-errors__list">
                <li><a href="#field-username">That username is taken.</a></li>
                <li>Nothing was saved &lt;yet&gt;.</li>
                </ul>
                </div>
                """)
    }

    @Test("no errors, no summary")
    func empty() {
        #expect(FormErrors.render([]).isEmpty)
    }
}

@Suite("Buttons")
struct ButtonTests {
    @Test("each style has its class; primary is the plain button")
    func styles() {
        #expect(Button.primary("Save").string == #"<button class="button" type="submit">Save</button>"#)
        #expect(
            Button.secondary("Cancel", type: .button).string
                == #"<button class="button button--secondary" type="button">Cancel</button>"#)
        #expect(
            Button.danger("Delete", small: true).string
                == #"<button class="button button--danger button--small" type="submit">Delete</button>"#)
        #expect(Button.gold("Unlock").string == #"<button class="button button--gold" type="submit">Unlock</button>"#)
    }

    @Test("name and value say which of several buttons was pressed")
    func nameAndValue() {
        #expect(
            Button.primary("Option A", name: "option", value: "a").string
                == #"<button class="button" type="submit" name="option" value="a">Option A</button>"#)
    }

    @Test("a link styled as a button escapes its label and address")
    func link() {
        #expect(
            Button.link("Tom & Jo's game", href: "/games?id=1&x=\"y\"", style: .secondary, small: true).string
                == #"<a class="button button--secondary button--small" href="/games?id=1&amp;x=&quot;y&quot;">Tom &amp; Jo&#39;s game</a>"#
        )
    }
}

@Suite("Empty states and cards")
struct EmptyStateAndCardTests {
    @Test("an empty state draws its illustration, then title, message and action")
    func emptyState() {
        let html = EmptyState.render(
            title: "No games <yet>", message: "Start one.", action: Button.link("New game", href: "/games/new"))
        #expect(
            html.string == """
                <div class="empty-state">
                \(EmptyState.illustration.string)
                <h2 class="empty-state__title">No games &lt;yet&gt;</h2>
                <p class="empty-state__message">Start one.</p>
                <div class="empty-state__action"><a class="button" href="/games/new">New game</a></div>
                </div>
                """)
    }

    @Test("without an action there is no action wrapper; heading levels stay within 2 to 6")
    func emptyStateWithoutAction() {
        let html = EmptyState.render(title: "Quiet", message: "Nothing new.", headingLevel: 9)
        #expect(html.string.hasSuffix("<h6 class=\"empty-state__title\">Quiet</h6>\n<p class=\"empty-state__message\">Nothing new.</p>\n</div>"))
        #expect(!html.string.contains("empty-state__action"))
    }

    @Test("the illustration is decorative and needs no style attribute")
    func illustration() {
        let svg = EmptyState.illustration.string
        #expect(svg.hasPrefix(#"<svg class="empty-state__art" viewBox="0 0 160 128" width="160" height="128" aria-hidden="true">"#))
        #expect(svg.hasSuffix("</svg>"))
        #expect(!svg.contains("style"))
    }

    @Test("a card with a title, an accent and a footer")
    func card() {
        let html = Card.render(title: "Coffees & co", headingLevel: 3, accent: .gold, body: "<p>12</p>", footer: "<p>Shared</p>")
        #expect(
            html.string == """
                <article class="card card--gold">
                <h3 class="card__title">Coffees &amp; co</h3>
                <p>12</p>
                <footer class="card__footer"><p>Shared</p></footer>
                </article>
                """)
    }

    @Test("a plain card is only its body")
    func plainCard() {
        #expect(Card.render(headingLevel: 1, body: "<p>x</p>").string == "<article class=\"card\">\n<p>x</p>\n</article>")
    }
}

@Suite("The styleguide")
struct StyleguideTests {
    static let page = Styleguide.render(context: PageContext(assetURL: { "/static/" + $0 }, links: SiteLinks { "/sample/\($0)" })).string

    /// Every value of `attribute="…"` in the page.
    static func values(of attribute: String) -> [String] {
        page.components(separatedBy: " \(attribute)=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    @Test("it shows a light panel and a dark panel")
    func bothThemes() {
        #expect(Self.page.contains(#"<section class="sg-panel theme-light" aria-labelledby="sg-light">"#))
        #expect(Self.page.contains(#"<section class="sg-panel theme-dark" aria-labelledby="sg-dark">"#))
    }

    @Test("it has no inline style, no inline script and no event-handler attributes, which CSP would refuse")
    func cspClean() {
        let lowered = Self.page.lowercased()
        #expect(!lowered.contains("style="))
        #expect(!lowered.contains("<style"))
        #expect(!lowered.contains("<script>"))
        #expect(lowered.components(separatedBy: "<script").count == 2, "only the layout's module script")
        #expect(lowered.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
    }

    @Test("ids are unique across both panels, and every label and description points at one")
    func ids() {
        let ids = Self.values(of: "id")
        #expect(Set(ids).count == ids.count, "duplicated: \(Dictionary(grouping: ids) { $0 }.filter { $1.count > 1 }.keys)")
        let known = Set(ids)
        for target in Self.values(of: "for") { #expect(known.contains(target), "label for \(target)") }
        for list in Self.values(of: "aria-describedby") {
            for target in list.split(separator: " ") { #expect(known.contains(String(target)), "described by \(target)") }
        }
        for href in Self.values(of: "href") where href.hasPrefix("#") {
            #expect(known.contains(String(href.dropFirst())), "link to \(href)")
        }
    }

    @Test("the celebration demo buttons name a celebration motion.js knows")
    func celebrations() {
        let kinds = Self.values(of: "data-celebrate-on-click")
        #expect(Set(kinds) == ["confetti", "fireworks", "sparkle"])
    }
}

@Suite("The stylesheet keeps its promises")
struct StylesheetTests {
    static let publicFolder = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Public")

    static func read(_ path: String) throws -> String {
        try String(contentsOf: publicFolder.appendingPathComponent(path), encoding: .utf8)
    }

    /// The declarations between a rule's header and its closing brace.
    static func block(_ css: String, after header: String, closing: String = "\n}") throws -> String {
        let start = try #require(css.range(of: header), "no \(header)")
        let end = try #require(css.range(of: closing, range: start.upperBound..<css.endIndex))
        return String(css[start.upperBound..<end.lowerBound])
    }

    /// The value a block declares for `--token`.
    static func value(of token: String, in block: String) -> String? {
        guard let range = block.range(of: "--\(token): ") else { return nil }
        return String(block[range.upperBound...].prefix { $0 != ";" })
    }

    static func luminance(_ hex: String) -> Double {
        let digits = Array(hex.dropFirst())
        let channels = stride(from: 0, to: 6, by: 2).map { Double(Int(String(digits[$0...$0 + 1]), radix: 16)!) / 255 }
        let linear = channels.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    }

    static func contrast(_ a: String, _ b: String) -> Double {
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test("every colour the styleguide prints is the one the stylesheet declares, in both dark blocks too")
    func swatchesMatch() throws {
        let css = try Self.read("css/app.css")
        let brand = try Self.block(css, after: ":root {")
        let light = try Self.block(css, after: ":root,\n.theme-light {")
        let dark = try Self.block(css, after: "\n.theme-dark {")
        let systemDark = try Self.block(css, after: ":root:not(.theme-light) {", closing: "\n  }")
        for swatch in Styleguide.brandSwatches {
            #expect(Self.value(of: swatch.token, in: brand) == swatch.light, "--\(swatch.token)")
        }
        let themed =
            Styleguide.surfaceSwatches.map { ($0.token, $0.light, $0.dark) }
            + Styleguide.textSwatches.map { ($0.token, $0.light, $0.dark) }
        for (token, lightValue, darkValue) in themed {
            #expect(Self.value(of: token, in: light) == lightValue, "light --\(token)")
            #expect(Self.value(of: token, in: dark) == darkValue, "dark --\(token)")
            if darkValue != lightValue {
                #expect(Self.value(of: token, in: systemDark) == darkValue, "system dark --\(token)")
            }
        }
    }

    @Test("the system dark theme repeats the dark class's values exactly")
    func systemDarkMatchesClass() throws {
        let css = try Self.read("css/app.css")
        let dark = try Self.block(css, after: "\n.theme-dark {")
        let systemDark = try Self.block(css, after: ":root:not(.theme-light) {", closing: "\n  }")
        let tokens = systemDark.components(separatedBy: "--").dropFirst().map { String($0.prefix { $0 != ":" }) }
        #expect(tokens.count >= 25)
        for token in tokens {
            #expect(Self.value(of: token, in: systemDark) == Self.value(of: token, in: dark), "--\(token)")
        }
    }

    @Test("every text colour passes WCAG AA on the page and on a card, and the printed ratio is the computed one")
    func textContrast() {
        let surfaces = (light: (page: "#FBF7F4", surface: "#FFFFFF"), dark: (page: "#17141D", surface: "#221D2B"))
        for swatch in Styleguide.textSwatches {
            let computed = [
                Self.contrast(swatch.light, surfaces.light.page), Self.contrast(swatch.light, surfaces.light.surface),
                Self.contrast(swatch.dark, surfaces.dark.page), Self.contrast(swatch.dark, surfaces.dark.surface),
            ]
            let printed = [swatch.lightRatios.page, swatch.lightRatios.surface, swatch.darkRatios.page, swatch.darkRatios.surface]
            for (value, shown) in zip(computed, printed) {
                #expect(value >= 4.5, "--\(swatch.token) at \(value)")
                #expect(abs(value - shown) < 0.006, "--\(swatch.token): printed \(shown), computed \(value)")
            }
        }
    }

    @Test("every swatch the styleguide shows has its class in the styleguide's stylesheet")
    func swatchClasses() throws {
        let css = try Self.read("css/styleguide.css")
        let tokens = (Styleguide.brandSwatches + Styleguide.surfaceSwatches).map(\.token) + Styleguide.textSwatches.map(\.token)
        for token in tokens { #expect(css.contains(".sg-swatch--\(token) {"), "--\(token)") }
    }

    @Test("ratios print with two decimals")
    func ratioFormat() {
        #expect(Styleguide.ratio(6.33) == "6.33:1")
        #expect(Styleguide.ratio(16.09) == "16.09:1")
        #expect(Styleguide.ratio(4.5) == "4.50:1")
        #expect(Styleguide.ratio(5.049) == "5.05:1")
    }

    @Test("motion.js exports the celebration API and never writes a style attribute")
    func motionModule() throws {
        let js = try Self.read("js/motion.js")
        for name in ["confetti", "fireworks", "sparkle", "celebrate", "scan", "wireClickDemos"] {
            #expect(js.contains("export function \(name)("), "\(name)")
        }
        #expect(!js.contains(".style"))
        #expect(!js.contains("setAttribute(\"style\""))
    }
}

import Foundation
import KithTestSupport
import Testing

/// axe-core in a real browser, for every browser suite: where this machine
/// keeps a copy, the WCAG A and AA violations on a page, and whether the
/// page fits its width.
enum Axe {
    /// The Python axe package carries axe-core; `make test-deps` installs it.
    static let path: String? = {
        var candidates = [
            "/usr/lib/node_modules/axe-core/axe.min.js", "/usr/local/lib/node_modules/axe-core/axe.min.js",
        ]
        // Wherever pip put the package, ask Python rather than guess its version's folder.
        if let python = Tools.path("python3"),
            let found = try? runProgram(
                python, ["-c", "import axe_playwright_python, os; print(os.path.dirname(axe_playwright_python.__file__))"]),
            found.status == 0
        {
            candidates.insert(found.output.trimmingCharacters(in: .whitespacesAndNewlines) + "/axe.min.js", at: 0)
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// axe-core's script, read once.
    static let source: String? = path.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }

    static var isAvailable: Bool { Tools.browser && source != nil }

    /// The WCAG A and AA violations axe finds on the browser's page, as "rule: where".
    static func violations(_ browser: WebDriverSession) throws -> [String] {
        guard let source else { throw TestError("axe-core is not on this machine") }
        // Contrast is measured as drawn: a card still fading in would fail it.
        try waitUntil("the page's entrances finish") {
            (try browser.execute(
                "return document.getAnimations().every(a => a.playState !== 'running' || a.effect.getComputedTiming().iterations === Infinity);")
                as? Bool) == true
        }
        try browser.execute(source + "\nwindow.__axe = null;")
        try browser.execute(
            """
            axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })
              .then(r => { window.__axe = r.violations.map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', ')); });
            """)
        var found: [String]? = nil
        try waitUntil("axe finishes", timeout: 30) {
            found = try browser.execute("return window.__axe;") as? [String]
            return found != nil
        }
        return found ?? []
    }

    /// Whether the page scrolls sideways: a phone layout must not.
    static func fits(_ browser: WebDriverSession) throws -> Bool {
        (try browser.execute("return document.documentElement.scrollWidth <= document.documentElement.clientWidth;") as? Bool) == true
    }
}

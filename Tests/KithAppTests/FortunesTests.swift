import Foundation
import KithTestSupport
import Testing

/// The benchmark's Fortunes page is the one the engine figures are measured
/// on; it must stay the TechEmpower page, whatever is done to make it fast.
@Suite("kith-bench Fortunes")
struct FortunesTests {
    @Test("thirteen rows sorted by message in code-point order, every message escaped, ids as digits")
    func fortunesPage() throws {
        let directory = try TemporaryDirectory()
        let server = try KithProcess("kith-bench", arguments: ["--port", "0", "--data", directory.path, "--quiet"])
        let client = try TestClient(port: server.port)
        try client.send("GET /fortunes HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let page = response.text
        #expect(page.hasPrefix("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>"))
        #expect(page.hasSuffix("</table></body></html>"))

        let rows = page.components(separatedBy: "<tr><td>").dropFirst().map { row in
            let cells = row.components(separatedBy: "</td><td>")
            return (id: cells[0], message: cells[1].components(separatedBy: "</td></tr>")[0])
        }
        #expect(rows.count == 13)
        let messages = rows.map(\.message)
        // By the messages' own bytes: `<script>` first (its `<` is below every
        // letter), upper case before lower case, the Japanese text last.
        let expected = [
            "&lt;script&gt;alert(&quot;This should not be displayed in a browser alert box.&quot;);&lt;/script&gt;",
            "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1", "A computer program does what you tell it to do, not what you want it to do.",
            "A computer scientist is someone who fixes things that aren&#39;t broken.", "A list is only as strong as its weakest link.",
            "Additional fortune added at request time.", "After enough decimal places, nobody gives a damn.",
            "Any program that runs right is obsolete.", "Computers make very fast, very accurate mistakes.",
            "Emacs is a nice operating system, but I prefer UNIX.", "Feature: A bug with seniority.", "fortune: No such file or directory",
            "フレームワークのベンチマーク",
        ]
        #expect(messages == expected)
        #expect(rows.first { $0.message.hasPrefix("Additional") }?.id == "0")
        #expect(rows.allSatisfy { Int($0.id) != nil })

        // The same handler on a worker, the row bench_app.py compares with.
        try client.send("GET /fortunes/worker HTTP/1.1\r\nHost: t\r\n\r\n")
        let onWorker = try client.readResponse()
        #expect(onWorker.status == 200)
        #expect(onWorker.text == page)
    }
}

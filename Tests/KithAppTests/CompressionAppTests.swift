import Foundation
import KithHTTP
import KithTestSupport
import Testing

@Suite("Compression in Kith's own pages")
struct CompressionAppTests {
    @Test("a signed-in page over 1 KB comes back compressed and decompresses to the page sent without it", arguments: [ContentCoding.br, .gzip])
    func signedInPage(coding: ContentCoding) throws {
        let app = try AppHarness()
        let session = try signUp(app, username: "ada")
        let plain = try session.get("/")
        #expect(plain.status == 200)
        #expect(plain.body.count > 1024)
        #expect(plain.header("Content-Encoding") == nil)
        let packed = try session.get("/", headers: ["Accept-Encoding": coding.rawValue])
        #expect(packed.status == 200)
        #expect(packed.header("Content-Encoding") == coding.rawValue)
        #expect(packed.header("Vary")?.contains("Accept-Encoding") == true)
        #expect(packed.body.count < plain.body.count / 2)
        let unpacked = try #require(Compression.decompress(packed.body, coding))
        #expect(String(decoding: unpacked, as: UTF8.self) == plain.text)
    }

    @Test("the stylesheet a page links to is served precompressed")
    func stylesheet() throws {
        let app = try AppHarness()
        let url = app.app.assets.url("css/app.css")
        let identity = try app.get(url)
        let br = try app.get(url, headers: "Accept-Encoding: br\r\n")
        #expect(br.header("Content-Encoding") == "br")
        #expect(br.header("ETag") != identity.header("ETag"))
        #expect(Compression.unbrotli(br.body) == identity.body)
        #expect(br.body.count * 3 < identity.body.count)
    }

    @Test("the event stream is never compressed, whatever the client accepts")
    func liveStream() throws {
        let app = try AppHarness(prepare: { app in
            app.liveTopics.register(kind: "open") { _, _ in true }
        })
        let client = try TestClient(port: app.port)
        try client.send("GET /live?topics=open:1 HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: gzip, br\r\n\r\n")
        let head = try client.read(until: "retry: 2000", timeout: 5)
        #expect(head.hasPrefix("HTTP/1.1 200"))
        #expect(head.contains("Content-Type: text/event-stream"))
        #expect(!head.lowercased().contains("content-encoding"))
        #expect(head.contains("retry: 2000"))
    }

    @Test("a response under 1 KB is not compressed")
    func smallResponse() throws {
        let app = try AppHarness()
        let health = try app.get("/healthz", headers: "Accept-Encoding: gzip, br\r\n")
        #expect(health.text == "ok\n")
        #expect(health.header("Content-Encoding") == nil)
    }
}

import Foundation
import Glibc
import KithHTTP
import KithTestSupport
import Testing

@Suite("Accept-Encoding negotiation")
struct AcceptEncodingTests {
    @Test(
        "the highest q-value wins, brotli on a tie, q=0 refuses, * stands for the rest",
        arguments: [
            (nil, ContentCoding.identity),
            ("", .identity),
            ("gzip", .gzip),
            ("br", .br),
            ("gzip, br", .br),
            ("gzip, deflate, br, zstd", .br),
            ("BR", .br),
            ("x-gzip", .gzip),
            ("br;q=0, gzip", .gzip),
            ("br; q=0, gzip; q=0", .identity),
            ("gzip;q=1, br;q=0.5", .gzip),
            ("gzip;q=0.2, br;q=0.8", .br),
            ("*", .br),
            ("*;q=0", .identity),
            ("*, br;q=0", .gzip),
            ("gzip;q=0.5, *;q=0.1", .gzip),
            ("identity", .identity),
            ("identity;q=1, gzip;q=0.5", .identity),
            ("deflate", .identity),
            ("gzip;q=nonsense", .identity),
            (" gzip ;q=0.7 ,  br ; q=0.7 ", .br),
            ("gzip;q=0.001, br;q=0", .gzip),
            ("gzip;Q=0.5, br;q=0.25", .gzip),
            ("gzip;q=, br;q=0", .identity),
            ("gzip ; q = 0.5 , br ; q = 0.6", .br),
            (",,gzip,,", .gzip),
        ] as [(String?, ContentCoding)])
    func negotiation(header: String?, expected: ContentCoding) {
        #expect(AcceptEncoding.choose(header, offered: [.br, .gzip]) == expected)
    }

    @Test("a coding not on offer is never chosen")
    func notOffered() {
        #expect(AcceptEncoding.choose("br", offered: [.gzip]) == .identity)
        #expect(AcceptEncoding.choose("br, gzip", offered: [.gzip]) == .gzip)
        #expect(AcceptEncoding.choose("gzip, br", offered: []) == .identity)
    }
}

@Suite("Compression round trips")
struct CompressionRoundTripTests {
    static let text = Array(String(repeating: "<li class=\"tally\">Laps of the park: 12</li>\n", count: 200).utf8)

    @Test("gzip and brotli shrink text and decompress to the same bytes", arguments: [ContentCoding.gzip, .br])
    func roundTrip(coding: ContentCoding) throws {
        for level: Int32 in coding == .br ? [0, 4, 11] : [1, 5, 9] {
            let packed = try #require(Compression.compress(Self.text, coding, level: level))
            #expect(packed.count < Self.text.count / 4)
            #expect(Compression.decompress(packed, coding) == Self.text)
        }
        let empty = try #require(Compression.compress([], coding, level: 5))
        #expect(Compression.decompress(empty, coding) == [])
    }

    @Test("gzip output is a gzip member (magic bytes), so any client can read it")
    func gzipMagic() throws {
        let packed = try #require(Compression.gzip(Self.text, level: 9))
        #expect(Array(packed.prefix(2)) == [0x1f, 0x8b])
    }

    @Test("garbage, truncated input and bombs over the limit do not decompress")
    func refusals() throws {
        #expect(Compression.gunzip(Array("not gzip at all".utf8)) == nil)
        #expect(Compression.unbrotli([0xff, 0xff, 0xff, 0xff]) == nil)
        let gz = try #require(Compression.gzip(Self.text))
        #expect(Compression.gunzip(Array(gz.dropLast(10))) == nil)
        let br = try #require(Compression.brotli(Self.text))
        #expect(Compression.unbrotli(Array(br.dropLast(5))) == nil)
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        #expect(Compression.gunzip(try #require(Compression.gzip(zeros)), limit: 1000) == nil)
        #expect(Compression.unbrotli(try #require(Compression.brotli(zeros)), limit: 1000) == nil)
    }

    @Test("only text types are compressible")
    func types() {
        for type in ["text/html; charset=utf-8", "text/css", "application/json", "application/manifest+json", "image/svg+xml", "text/javascript"] {
            #expect(Compression.isCompressible(contentType: type), "\(type)")
        }
        for type in ["image/png", "image/jpeg", "video/mp4", "application/octet-stream", "font/woff2", ""] {
            #expect(!Compression.isCompressible(contentType: type), "\(type)")
        }
    }

    @Test("Vary keeps the names already there and adds each once")
    func vary() {
        var headers = HTTPHeaders()
        headers.addVary("Accept-Encoding")
        headers.addVary("accept-encoding")
        #expect(headers["Vary"] == "Accept-Encoding")
        var cookie = HTTPHeaders([("Vary", "Cookie")])
        cookie.addVary("Accept-Encoding")
        #expect(cookie["Vary"] == "Cookie, Accept-Encoding")
    }
}

/// The engine with routes that answer each kind of body the compressor must
/// tell apart, and a folder of assets of which one is worth compressing.
final class CompressionHarness: @unchecked Sendable {
    static let page = Route(.get, "/page")
    static let small = Route(.get, "/small")
    static let json = Route(.get, "/json")
    static let image = Route(.get, "/image")
    static let encoded = Route(.get, "/encoded")
    static let tagged = Route(.get, "/tagged")
    static let events = Route(.get, "/events")
    static let asset = Route(.get, "/static/*file", runsInline: true)

    static let html = Array(("<!doctype html><title>t</title><ul>" + String(repeating: "<li>Forty-two laps around the park</li>", count: 100) + "</ul>").utf8)
    static let text = String(repeating: "0123456789", count: 400)

    let server: Server
    let port: Int
    let directory: TemporaryDirectory
    let assets: StaticFiles

    init(configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory("kith-compression")
        let publicDirectory = directory.path + "/public"
        mkdir(publicDirectory, 0o755)
        try Self.text.write(toFile: publicDirectory + "/data.txt", atomically: true, encoding: .utf8)
        try "a{}".write(toFile: publicDirectory + "/tiny.css", atomically: true, encoding: .utf8)
        try Data(repeating: 7, count: 4000).write(to: URL(fileURLWithPath: publicDirectory + "/picture.png"))
        let assets = try StaticFiles(directory: publicDirectory)
        self.assets = assets

        let router = Router<EngineHarness.Context>(makeContext: { EngineHarness.Context(request: $0) })
        router.on(Self.page) { _ in .bytes(Self.html, contentType: "text/html; charset=utf-8") }
        router.on(Self.small) { _ in .bytes(Array("<p>short</p>".utf8), contentType: "text/html; charset=utf-8") }
        router.on(Self.json) { _ in
            .bytes(Array(("[" + Array(repeating: "{\"name\":\"lap\"}", count: 200).joined(separator: ",") + "]").utf8), contentType: "application/json")
        }
        router.on(Self.image) { _ in .bytes([UInt8](repeating: 7, count: 4000), contentType: "image/png") }
        router.on(Self.encoded) { _ in
            var response = Response.bytes(Compression.gzip(Self.html)!, contentType: "text/html; charset=utf-8")
            response.headers.add("Content-Encoding", "gzip")
            return response
        }
        router.on(Self.tagged) { _ in
            var response = Response.bytes(Self.html, contentType: "text/html; charset=utf-8")
            response.headers.add("ETag", "\"v1\"")
            response.headers.add("Vary", "Cookie")
            return response
        }
        router.on(Self.events) { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/event-stream")
            return Response(status: .ok, headers: headers, body: .stream({ stream in
                _ = stream.write(": " + String(repeating: "open ", count: 400) + "\n\n")
            }))
        }
        router.on(Self.asset) { context in
            let name = try context.request.parameter("file", as: String.self)
            guard let response = assets.response(for: name, head: context.request.head) else { throw HTTPError.notFound() }
            return response
        }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.workers = 2
        configuration.temporaryDirectory = directory.path
        configure(&configuration)
        server = Server(
            configuration: configuration, responder: TestResponder(router: router, admission: { _ in .proceed }),
            logger: Logger(enabled: false))
        port = try server.start()
    }

    deinit { server.shutdown() }

    func get(_ path: String, _ headers: String = "", method: String = "GET") throws -> TestResponse {
        let client = try TestClient(port: port)
        try client.send("\(method) \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n")
        return try client.readResponse(headRequest: method == "HEAD")
    }
}

@Suite("Compressed responses over real sockets")
struct CompressionTests {
    @Test("an asset is sent in the coding the client prefers, with Vary, its own ETag and the encoded length")
    func assetVariants() throws {
        let harness = try CompressionHarness()
        var tags: Set<String> = []
        for (header, coding) in [("", ContentCoding.identity), ("Accept-Encoding: gzip\r\n", .gzip), ("Accept-Encoding: gzip, br\r\n", .br)] {
            let response = try harness.get("/static/data.txt", header)
            #expect(response.status == 200)
            #expect(response.header("Vary") == "Accept-Encoding")
            #expect(response.header("Content-Encoding") == (coding == .identity ? nil : coding.rawValue))
            #expect(response.header("Content-Length") == String(response.body.count))
            #expect(Compression.decompress(response.body, coding) == Array(CompressionHarness.text.utf8))
            if coding != .identity { #expect(response.body.count < 200) }
            tags.insert(try #require(response.header("ETag")))
        }
        #expect(tags.count == 3)
        let asset = try #require(harness.assets.asset(named: "data.txt"))
        #expect(asset.variants.map(\.coding) == [.identity, .br, .gzip])
    }

    @Test("the hashed name negotiates too and stays immutable")
    func hashedName() throws {
        let harness = try CompressionHarness()
        let response = try harness.get(harness.assets.url("data.txt"), "Accept-Encoding: br\r\n")
        #expect(response.header("Content-Encoding") == "br")
        #expect(response.header("Cache-Control")?.contains("immutable") == true)
    }

    @Test("If-None-Match is checked against the chosen encoding's ETag; the 304 still says Vary")
    func conditional() throws {
        let harness = try CompressionHarness()
        let br = try harness.get("/static/data.txt", "Accept-Encoding: br\r\n")
        let brTag = try #require(br.header("ETag"))
        let notModified = try harness.get("/static/data.txt", "Accept-Encoding: br\r\nIf-None-Match: \(brTag)\r\n")
        #expect(notModified.status == 304)
        #expect(notModified.header("Vary") == "Accept-Encoding")
        #expect(notModified.header("ETag") == brTag)
        // The brotli tag does not validate the gzip bytes.
        let gzip = try harness.get("/static/data.txt", "Accept-Encoding: gzip\r\nIf-None-Match: \(brTag)\r\n")
        #expect(gzip.status == 200)
        #expect(gzip.header("Content-Encoding") == "gzip")
        #expect(Compression.gunzip(gzip.body) == Array(CompressionHarness.text.utf8))
    }

    @Test("a Range request gets identity bytes even when the client accepts br")
    func rangeIsIdentity() throws {
        let harness = try CompressionHarness()
        let partial = try harness.get("/static/data.txt", "Accept-Encoding: br, gzip\r\nRange: bytes=10-19\r\n")
        #expect(partial.status == 206)
        #expect(partial.header("Content-Encoding") == nil)
        #expect(partial.text == "0123456789")
        #expect(partial.header("Content-Range") == "bytes 10-19/4000")
        #expect(partial.header("Vary") == "Accept-Encoding")
        let identityTag = try #require(harness.get("/static/data.txt").header("ETag"))
        let ifRange = try harness.get("/static/data.txt", "Accept-Encoding: br\r\nRange: bytes=0-3\r\nIf-Range: \(identityTag)\r\n")
        #expect(ifRange.status == 206)
        #expect(ifRange.text == "0123")
    }

    @Test("HEAD tells the encoded length and sends no body")
    func head() throws {
        let harness = try CompressionHarness()
        let get = try harness.get("/static/data.txt", "Accept-Encoding: br\r\n")
        let client = try TestClient(port: harness.port)
        try client.send("HEAD /static/data.txt HTTP/1.1\r\nHost: test\r\nAccept-Encoding: br\r\n\r\n")
        let head = try client.readResponse(headRequest: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Encoding") == "br")
        #expect(head.header("Content-Length") == String(get.body.count))
        // The connection is clean after it: the next answer is the next request's.
        try client.send("GET /small HTTP/1.1\r\nHost: test\r\n\r\n")
        #expect(try client.readResponse().text == "<p>short</p>")
    }

    @Test("files that do not shrink, and images, are not negotiable: no encoding, no Vary")
    func notNegotiable() throws {
        let harness = try CompressionHarness()
        for path in ["/static/tiny.css", "/static/picture.png"] {
            let response = try harness.get(path, "Accept-Encoding: br, gzip\r\n")
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == nil, "\(path)")
            #expect(response.header("Vary") == nil, "\(path)")
        }
        #expect(try #require(harness.assets.asset(named: "picture.png")).variants.count == 1)
    }

    @Test("assets are held in buffers of their own size: no read chunks, no encoder's worst case")
    func assetsHeldTight() throws {
        let directory = try TemporaryDirectory("kith-asset-sizes")
        let words = (0..<20_000).map { "word\($0 % 997) " }.joined()
        try words.write(toFile: directory.path + "/large.js", atomically: true, encoding: .utf8)
        try Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) })
            .write(to: URL(fileURLWithPath: directory.path + "/noise.png"))
        let assets = try StaticFiles(directory: directory.path)
        let large = try #require(assets.asset(named: "large.js"))
        #expect(large.variants.map(\.coding) == [.identity, .br, .gzip])
        #expect(large.bytes == Array(words.utf8))
        for asset in assets.assets {
            for variant in asset.variants {
                // Allowing for malloc's rounding; a buffer grown by appending
                // or cut from the encoder's bound is kilobytes over.
                #expect(variant.bytes.capacity - variant.bytes.count < 64, "\(asset.name) \(variant.coding)")
            }
        }
    }

    @Test("a page over 1 KB is compressed on the fly and decompresses to the same bytes", arguments: [ContentCoding.gzip, .br])
    func dynamicPage(coding: ContentCoding) throws {
        let harness = try CompressionHarness()
        let response = try harness.get("/page", "Accept-Encoding: \(coding.rawValue)\r\n")
        #expect(response.header("Content-Encoding") == coding.rawValue)
        #expect(response.header("Vary") == "Accept-Encoding")
        #expect(response.header("Content-Length") == String(response.body.count))
        #expect(response.body.count < CompressionHarness.html.count / 4)
        #expect(Compression.decompress(response.body, coding) == CompressionHarness.html)
        let json = try harness.get("/json", "Accept-Encoding: \(coding.rawValue)\r\n")
        #expect(json.header("Content-Encoding") == coding.rawValue)
    }

    @Test("pages prefer gzip on a tie (cheaper per byte saved on the fly); assets prefer brotli (made once)")
    func dynamicPreference() throws {
        let harness = try CompressionHarness()
        #expect(try harness.get("/page", "Accept-Encoding: gzip, deflate, br\r\n").header("Content-Encoding") == "gzip")
        #expect(try harness.get("/page", "Accept-Encoding: gzip;q=0.5, br\r\n").header("Content-Encoding") == "br")
        #expect(try harness.get("/static/data.txt", "Accept-Encoding: gzip, deflate, br\r\n").header("Content-Encoding") == "br")
    }

    @Test("without Accept-Encoding a compressible page is identity but still says Vary")
    func dynamicIdentity() throws {
        let harness = try CompressionHarness()
        let response = try harness.get("/page")
        #expect(response.header("Content-Encoding") == nil)
        #expect(response.header("Vary") == "Accept-Encoding")
        #expect(response.body == CompressionHarness.html)
    }

    @Test("small bodies, images, HEAD and bodies already encoded are left alone")
    func leftAlone() throws {
        let harness = try CompressionHarness()
        let small = try harness.get("/small", "Accept-Encoding: br, gzip\r\n")
        #expect(small.header("Content-Encoding") == nil)
        #expect(small.text == "<p>short</p>")
        let image = try harness.get("/image", "Accept-Encoding: br, gzip\r\n")
        #expect(image.header("Content-Encoding") == nil)
        #expect(image.body.count == 4000)
        let head = try harness.get("/page", "Accept-Encoding: br\r\n", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.header("Content-Encoding") == nil)
        let encoded = try harness.get("/encoded", "Accept-Encoding: br\r\n")
        #expect(encoded.header("Content-Encoding") == "gzip")
        #expect(Compression.gunzip(encoded.body) == CompressionHarness.html)
    }

    @Test("a handler's ETag gets the coding's suffix and its Vary keeps its names")
    func taggedPage() throws {
        let harness = try CompressionHarness()
        let response = try harness.get("/tagged", "Accept-Encoding: gzip\r\n")
        #expect(response.header("ETag") == "\"v1-gz\"")
        #expect(response.header("Vary") == "Cookie, Accept-Encoding")
    }

    @Test("an event stream is never compressed")
    func streamNotCompressed() throws {
        let harness = try CompressionHarness()
        let client = try TestClient(port: harness.port)
        try client.send("GET /events HTTP/1.1\r\nHost: test\r\nAccept-Encoding: gzip, br\r\n\r\n")
        let text = try client.read(until: "open \n\n", timeout: 5)
        #expect(text.hasPrefix("HTTP/1.1 200"))
        #expect(!text.lowercased().contains("content-encoding"))
        #expect(text.contains(": open open"))
    }

    @Test("with compression switched off, pages go out as they are")
    func switchedOff() throws {
        let harness = try CompressionHarness { $0.compression = nil }
        let response = try harness.get("/page", "Accept-Encoding: br, gzip\r\n")
        #expect(response.header("Content-Encoding") == nil)
        #expect(response.header("Vary") == nil)
        #expect(response.body == CompressionHarness.html)
    }
}

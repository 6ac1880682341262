import Foundation
@testable import KithApp
import KithMedia
import KithStorage
import KithTestSupport
import Testing

/// A multipart form as a browser sends it.
struct MultipartForm {
    static let boundary = "----KithTestBoundary7MA4YWxkTrZu0gW"
    var parts: [[UInt8]] = []

    mutating func field(_ name: String, _ value: String) {
        parts.append(Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
    }

    mutating func file(_ name: String, filename: String, type: String, _ bytes: [UInt8]) {
        parts.append(
            Array("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"\(filename)\"\r\nContent-Type: \(type)\r\n\r\n".utf8)
                + bytes + Array("\r\n".utf8))
    }

    var body: [UInt8] { parts.flatMap { $0 } + Array("--\(Self.boundary)--\r\n".utf8) }
    static let contentType = "multipart/form-data; boundary=\(boundary)"
}

extension OccasionParty {
    /// Uploads files to the author's gift through one of the upload forms.
    @discardableResult
    func upload(_ session: WebSession, _ kind: String, files: [(name: String, type: String, bytes: [UInt8])], duration: Int? = nil) throws -> TestResponse {
        var form = MultipartForm()
        form.field("_csrf", try session.token(from: "\(base)/gift"))
        let field = kind == "photos" ? "photo" : kind
        for file in files { form.file(field, filename: file.name, type: file.type, file.bytes) }
        if let duration { form.field("duration_ms", String(duration)) }
        return try session.post("\(base)/gift/\(kind)", rawBody: form.body, headers: ["Content-Type": MultipartForm.contentType])
    }

    func mediaIDs(gift: Int64) throws -> [Int64] {
        try app.app.database.read { db in
            try db.query("SELECT id FROM occasion_media WHERE gift_id = \(gift) ORDER BY position").map { try $0.get("id") }
        }
    }

    func giftOf(_ username: String) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT id FROM occasion_gifts WHERE author_id = \(userIDs[username]!)", as: Int64.self) } ?? 0
    }
}

/// Files under a directory, recursively, by name.
func filesBelow(_ path: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
    return enumerator.compactMap { $0 as? String }.filter { name in
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}

@Suite("Occasion media: uploads, storage, privacy and serving")
struct OccasionMediaTests {
    static func harness(photoLimit: Int? = nil) throws -> AppHarness {
        try AppHarness(configure: { config in
            config.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            if let photoLimit { config.mediaLimits.photoBytes = photoLimit }
        })
    }

    static func mediaDirectory(_ app: AppHarness) -> String { app.app.media.directory }
    static func temporaryFiles(_ app: AppHarness) -> [String] { filesBelow(app.app.configuration.dataDirectory + "/tmp") }

    @Test("every allowed type is accepted from its bytes and stored once under its hash")
    func allowedTypes() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let friend = party.contributors[0]
        let photos: [(String, String, [UInt8])] = [
            ("a.jpg", "image/jpeg", Fixture.jpegWithLocation()), ("b.png", "image/png", Fixture.pngWithLocation()),
            ("c.gif", "image/gif", Fixture.gif), ("d.webp", "image/webp", Fixture.webpWithLocation()),
        ]
        #expect(try party.upload(friend, "photos", files: photos).status == 303)
        let gift = try party.giftOf("friend_1")
        #expect(try party.mediaIDs(gift: gift).count == 4)
        for (name, bytes) in [("v.mp4", Fixture.mp4WithLocation().bytes), ("v.mov", Fixture.mov), ("v.webm", Fixture.webm)] {
            let response = try party.upload(friend, "video", files: [(name, "video/mp4", bytes)])
            #expect(response.status == 303, "\(name): \(response.status)")
            #expect(try party.mediaIDs(gift: gift).count == 1, "a video replaces what was there")
        }
        for (name, bytes) in [
            ("n.m4a", Fixture.m4a), ("n.mp3", Fixture.id3Tag + Fixture.mp3Frames), ("n.ogg", Fixture.oggOpus), ("n.wav", Fixture.wav),
            ("n.webm", Fixture.webm),
        ] {
            let response = try party.upload(friend, "voice", files: [(name, "audio/webm", bytes)], duration: 4200)
            #expect(response.status == 303, "\(name): \(response.status)")
        }
        let kinds = try app.app.database.read { db in
            try db.query("SELECT f.mime_type, m.duration_ms FROM occasion_media m JOIN media_files f USING (sha256) WHERE m.gift_id = \(gift)")
                .map { (try $0.get("mime_type") as String, try $0.get("duration_ms") as Int?) }
        }
        #expect(kinds.count == 1)
        #expect(kinds.first?.0 == "audio/webm")
        #expect(kinds.first?.1 == 4200)
        // Only what a row names is on disk, each under its hash.
        let stored = filesBelow(Self.mediaDirectory(app))
        let hashes = try app.app.database.read { db in try db.query("SELECT sha256 FROM media_files").map { try $0.get("sha256") as String } }
        #expect(Set(stored.map { String($0.split(separator: "/").last!) }) == Set(hashes))
        #expect(Self.temporaryFiles(app).isEmpty)
    }

    @Test("a renamed HTML file and a HEIC photo are refused with a message; nothing is kept")
    func refused() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let before = try rowCounts(app)
        let html = try party.upload(party.contributors[0], "photos", files: [("cat.jpg", "image/jpeg", Array("<!doctype html><script>alert(1)</script>".utf8))])
        #expect(html.status == 415)
        #expect(html.text.contains("Kith can&#39;t use “cat.jpg”") || html.text.contains("Kith can't use “cat.jpg”"))
        let heic = try party.upload(party.contributors[0], "photos", files: [("IMG_0001.HEIC", "image/heic", Fixture.heic)])
        #expect(heic.status == 415)
        #expect(heic.text.contains("Choose JPEG or take the photo again"))
        let wrongKind = try party.upload(party.contributors[0], "voice", files: [("song.jpg", "audio/mpeg", Fixture.jpegWithLocation())])
        #expect(wrongKind.status == 415)
        #expect(wrongKind.text.contains("this takes a voice note"))
        // Only contributors upload: the celebrant is told, a stranger finds nothing.
        #expect(try party.upload(party.celebrant, "photos", files: [("a.jpg", "image/jpeg", Fixture.jpegWithLocation())]).status == 403)
        #expect(try party.upload(party.stranger, "photos", files: [("a.jpg", "image/jpeg", Fixture.jpegWithLocation())]).status == 404)
        #expect(try rowCounts(app) == before)
        #expect(filesBelow(Self.mediaDirectory(app)).isEmpty)
        #expect(Self.temporaryFiles(app).isEmpty)
    }

    @Test("a file over the limit is refused while it arrives, before the disk fills; an aborted upload leaves no file and no row")
    func limitsAndAborts() throws {
        let app = try Self.harness(photoLimit: 2_000)
        let party = try OccasionParty.make(app, contributors: 1)
        let before = try rowCounts(app)
        let big = try party.upload(party.contributors[0], "photos", files: [("big.jpg", "image/jpeg", Fixture.jpegWithLocation() + [UInt8](repeating: 0, count: 50_000))])
        #expect(big.status == 413)
        // An upload cut off half way: the connection drops after some of the file.
        var form = MultipartForm()
        form.field("_csrf", try party.contributors[0].token(from: "\(party.base)/gift"))
        form.file("video", filename: "cut.mp4", type: "video/mp4", Fixture.mp4WithLocation().bytes + [UInt8](repeating: 7, count: 400_000))
        let body = form.body
        var client: TestClient? = try TestClient(port: app.port)
        try client!.send(
            "POST \(party.base)/gift/video HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\nOrigin: http://127.0.0.1:\(app.port)\r\n"
                + "Cookie: kith_session=\(party.contributors[0].sessionCookie!)\r\nContent-Type: \(MultipartForm.contentType)\r\n"
                + "Content-Length: \(body.count)\r\n\r\n")
        try client!.send(Array(body.prefix(body.count / 2)))
        try waitUntil("the partial file is being written") { !Self.temporaryFiles(app).isEmpty }
        client = nil  // closes the socket mid-upload
        try waitUntil("the aborted upload is cleaned away") { Self.temporaryFiles(app).isEmpty }
        #expect(try rowCounts(app) == before)
        #expect(filesBelow(Self.mediaDirectory(app)).isEmpty)
    }

    @Test("location goes before storing and orientation stays; the file is served only to those who may see the gift, with safe headers and Range")
    func privacyAndServing() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let friend = party.contributors[0]
        #expect(try party.upload(friend, "photos", files: [("me.jpg", "image/jpeg", Fixture.jpegWithLocation(orientation: 6))]).status == 303)
        let gift = try party.giftOf("friend_1")
        let photo = try #require(try party.mediaIDs(gift: gift).first)
        let url = "\(party.base)/media/\(photo)"
        let served = try friend.get(url)
        #expect(served.status == 200)
        #expect(!served.body.contains(Fixture.latitudeRationals))
        #expect(!served.body.contains([0x88, 0x25]) && !served.body.contains([0x25, 0x88]), "no GPS IFD pointer")
        // Stripping again finds the orientation still there and nothing else to remove.
        let again = try MetadataStripper.strip(served.body, container: .jpeg).1
        #expect(again.orientation == 6)
        #expect(!again.removedLocation)
        #expect(served.header("Content-Type") == "image/jpeg")
        #expect(served.header("X-Content-Type-Options") == "nosniff")
        #expect(served.header("Content-Security-Policy")?.contains("sandbox") == true)
        #expect(served.header("Content-Disposition")?.hasPrefix("inline; filename=\"kith-") == true)

        // Draft: the author only. Sent: the host too. Unlocked: the celebrant too.
        func statuses() throws -> [Int] {
            try [party.host, friend, party.contributors[1], party.celebrant, party.stranger, party.visitor].map { try $0.get(url).status }
        }
        #expect(try statuses() == [404, 200, 404, 404, 404, 303])
        #expect(try party.post(friend, "\(party.base)/gift/submit", [], from: "\(party.base)/gift").status == 303)
        #expect(try statuses() == [200, 200, 404, 404, 404, 303])
        try party.price(gift, cost: 10)
        #expect(try statuses() == [200, 200, 404, 404, 404, 303])
        let challenge = try party.addChallenge("Sing", points: 10)
        #expect(try party.complete(challenge).status == 303)
        #expect(try party.unlock(gift).status == 303)
        #expect(try statuses() == [200, 200, 404, 200, 404, 303])
        // The celebrant's unlocked gift and the timeline show it.
        #expect(try party.celebrant.get("\(party.base)/gifts/\(gift)").text.contains(url))
        #expect(try party.celebrant.get("\(party.base)/timeline").text.contains(url))
        #expect(!(try party.contributors[1].get("\(party.base)/timeline").text.contains(url)))
    }

    @Test("video and audio seek: Range gets 206 with the asked bytes")
    func range() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let (video, _) = Fixture.mp4WithLocation()
        #expect(try party.upload(party.contributors[0], "video", files: [("clip.mp4", "video/mp4", video)]).status == 303)
        let id = try #require(try party.mediaIDs(gift: try party.giftOf("friend_1")).first)
        let whole = try party.contributors[0].get("\(party.base)/media/\(id)")
        let part = try party.contributors[0].get("\(party.base)/media/\(id)", headers: ["Range": "bytes=100-199"])
        #expect(part.status == 206)
        #expect(part.header("Content-Range") == "bytes 100-199/\(whole.body.count)")
        #expect(part.body == Array(whole.body[100..<200]))
        #expect(part.header("Content-Type") == "video/mp4")
    }

    @Test("files go when nothing refers to them: removed from a draft, shared between gifts, purged with an account")
    func garbageCollection() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let same = Fixture.jpegWithLocation()
        #expect(try party.upload(party.contributors[0], "photos", files: [("a.jpg", "image/jpeg", same)]).status == 303)
        #expect(try party.upload(party.contributors[1], "photos", files: [("b.jpg", "image/jpeg", same)]).status == 303)
        #expect(filesBelow(Self.mediaDirectory(app)).count == 1, "the same bytes are stored once")
        let first = try #require(try party.mediaIDs(gift: try party.giftOf("friend_1")).first)
        #expect(try party.post(party.contributors[0], "\(party.base)/gift/media/\(first)/remove", [], from: "\(party.base)/gift").status == 303)
        #expect(filesBelow(Self.mediaDirectory(app)).count == 1, "still used by the other gift")
        // Friend two deletes their account: the last reference goes, and the file with it.
        #expect(try postDelete(party.contributors[1], [("password", "correct horse")]).status == 303)
        #expect(filesBelow(Self.mediaDirectory(app)).isEmpty)
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM media_files", as: Int.self) } == 0)
        // A file left on disk by a crash between rename and commit is swept at start.
        try FileManager.default.createDirectory(atPath: Self.mediaDirectory(app) + "/ab", withIntermediateDirectories: true)
        let orphan = Self.mediaDirectory(app) + "/ab/" + String(repeating: "ab", count: 32)
        _ = FileManager.default.createFile(atPath: orphan, contents: Data([1, 2, 3]))
        try app.app.media.sweepOrphans(app.app.database)
        #expect(!FileManager.default.fileExists(atPath: orphan))
    }

    @Test("a challenge's photo proof is stored, shown with the challenge, and a wrong file is refused beside the field")
    func photoProof() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let challenge = try party.addChallenge("Selfie with a llama", points: 10)
        func complete(_ bytes: [UInt8], name: String) throws -> TestResponse {
            var form = MultipartForm()
            form.field("_csrf", try party.celebrant.token(from: "\(party.base)/challenges/\(challenge)"))
            form.field("proof", "photo")
            form.field("proof_text", "Llama approved")
            form.file("photo", filename: name, type: "image/jpeg", bytes)
            return try party.celebrant.post(
                "\(party.base)/challenges/\(challenge)/complete", rawBody: form.body, headers: ["Content-Type": MultipartForm.contentType])
        }
        let wrong = try complete(Array("not a photo".utf8), name: "llama.jpg")
        #expect(wrong.status == 422)
        #expect(wrong.text.contains("Kith can"))
        #expect(try party.balance() == 0)
        #expect(try complete(Fixture.jpegWithLocation(), name: "llama.jpg").status == 303)
        #expect(try party.balance() == 10)
        let page = try party.contributors[0].get("\(party.base)/challenges/\(challenge)").text
        let proof = try #require(try app.app.database.read {
            try $0.queryValue("SELECT id FROM occasion_media WHERE challenge_id = \(challenge)", as: Int64.self)
        })
        #expect(page.contains("\(party.base)/media/\(proof)"))
        #expect(try party.contributors[0].get("\(party.base)/media/\(proof)").status == 200)
    }
}

import CVips
import Foundation
@testable import KithApp
import KithMedia
import KithStorage
import KithTemplates
import KithTestSupport
import Testing

/// Photos made at test time with libvips: a colour gradient under noise, so
/// they weigh what a real photo of that size does.
enum SamplePhotos {
    static let vipsStarted = kith_vips_start() == 0

    static func make(_ name: String, width: Int, height: Int, quality: Int = 90, edit: String? = nil) throws -> [UInt8] {
        guard vipsStarted else { throw TestError("libvips did not start") }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/" + name
        guard kith_vips_sample_photo(path, Int32(width), Int32(height), Int32(quality)) == 0 else {
            defer { vips_error_clear() }
            throw TestError("libvips could not make \(name): \(String(cString: vips_error_buffer()))")
        }
        if let edit {
            let result = try runProgram("/bin/sh", ["-c", "cd '\(directory.path)' && \(edit) '\(name)'"], mergingErrors: true)
            guard result.status == 0 else { throw TestError("\(edit): \(result.output)") }
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static let addLocation =
        "exiftool -q -overwrite_original -GPSLatitude=48.8577 -GPSLatitudeRef=N -GPSLongitude=2.295 -GPSLongitudeRef=E"

    /// What exiftool finds about location and orientation in a file.
    static func metadata(_ path: String) throws -> String {
        try runProgram(Tools.path("exiftool") ?? "exiftool", ["-a", "-G", "-GPS:all", "-XMP:all", "-Orientation", path], mergingErrors: true).output
    }
}

extension OccasionParty {
    /// Waits until the background maker has done every stored photo.
    func waitForVariants(timeout: Double = 120) throws {
        try waitUntil("every photo's variants are made", timeout: timeout, interval: 0.1) {
            try app.app.database.read { db in
                try db.queryValue("""
                    SELECT count(*) FROM media_files f LEFT JOIN media_photos p USING (sha256)
                    WHERE f.kind = 'photo' AND (p.state IS NULL OR p.state = 'pending')
                    """, as: Int.self) == 0
            }
        }
    }

    func variants(of sha256: String) throws -> [(width: Int, height: Int, format: String, sha256: String)] {
        try app.app.database.read { db in
            try db.query("SELECT width, height, format, sha256 FROM media_variants WHERE source_sha256 = \(sha256) ORDER BY width, format")
                .map { (try $0.get("width"), try $0.get("height"), try $0.get("format"), try $0.get("sha256")) }
        }
    }

    func photoRow(_ sha256: String) throws -> (width: Int?, height: Int?, state: String)? {
        try app.app.database.read { db in
            try db.queryOne("SELECT width, height, state FROM media_photos WHERE sha256 = \(sha256)")
                .map { (try $0.get("width"), try $0.get("height"), try $0.get("state")) }
        }
    }

    func mediaHashes(gift: Int64) throws -> [String] {
        try app.app.database.read { db in
            try db.query("SELECT sha256 FROM occasion_media WHERE gift_id = \(gift) ORDER BY position").map { try $0.get("sha256") }
        }
    }
}

@Suite("Photo variants: right-sized WebP and JPEG, HEIC accepted")
struct PhotoVariantTests {
    static func harness() throws -> AppHarness { try OccasionMediaTests.harness() }

    /// Checks a stored photo's variants: the widths asked for, each as WebP
    /// and JPEG, the right shape, and no location or orientation left.
    static func expectVariants(
        _ party: OccasionParty, of sha256: String, widths: [Int], aspect: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let made = try party.variants(of: sha256)
        #expect(made.map(\.width) == widths.flatMap { [$0, $0] }, sourceLocation: sourceLocation)
        #expect(made.map(\.format) == widths.flatMap { _ in ["jpeg", "webp"] }, sourceLocation: sourceLocation)
        for variant in made {
            #expect(abs(Double(variant.height) - Double(variant.width) / aspect) <= 1, "\(variant)", sourceLocation: sourceLocation)
            let path = party.app.app.media.variantPath(for: variant.sha256)
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let expected: MediaType = variant.format == "webp" ? .webp : .jpeg
            #expect(MediaSniffer.identify(Array(bytes.prefix(64 * 1024))) == .allowed(expected), sourceLocation: sourceLocation)
            let found = try SamplePhotos.metadata(path)
            #expect(!found.contains("GPS") && !found.contains("Orientation"), "\(found)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "gift, proof and thank-you photos get 480/960/1600 WebP and JPEG variants, never enlarged, turned upright, with no location",
        .enabled(if: Tools.has("exiftool"), "needs exiftool (Debian: libimage-exiftool-perl); `make test` installs it"))
    func variantsForEveryKind() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let large = try SamplePhotos.make("large.jpg", width: 2400, height: 1800, edit: SamplePhotos.addLocation)
        let small = try SamplePhotos.make("small.jpg", width: 700, height: 500)
        // Stored 400×300, shown 300×400: EXIF orientation 6 is a quarter turn.
        let turned = try SamplePhotos.make("turned.jpg", width: 400, height: 300, edit: "exiftool -q -overwrite_original -n -Orientation=6")
        #expect(
            try party.upload(
                party.contributors[0], "photos",
                files: [("large.jpg", "image/jpeg", large), ("small.jpg", "image/jpeg", small), ("turned.jpg", "image/jpeg", turned)]
            ).status == 303)
        let gift = try party.giftOf("friend_1")
        try party.waitForVariants()
        let hashes = try party.mediaHashes(gift: gift)
        try Self.expectVariants(party, of: hashes[0], widths: [480, 960, 1600], aspect: 4.0 / 3)
        try Self.expectVariants(party, of: hashes[1], widths: [480, 700], aspect: 7.0 / 5)
        try Self.expectVariants(party, of: hashes[2], widths: [300], aspect: 3.0 / 4)
        #expect(try party.photoRow(hashes[0])?.width == 2400)
        #expect(try party.photoRow(hashes[2]).map { [$0.width, $0.height] } == [300, 400])
        #expect(try party.photoRow(hashes[2])?.state == "ready")

        // A challenge's photo proof.
        let challenge = try party.addChallenge("Selfie with a llama", points: 10)
        var form = MultipartForm()
        form.field("_csrf", try party.celebrant.token(from: "\(party.base)/challenges/\(challenge)"))
        form.field("proof", "photo")
        form.field("proof_text", "")
        let proofPhoto = try SamplePhotos.make("proof.jpg", width: 1200, height: 900, edit: SamplePhotos.addLocation)
        form.file("photo", filename: "proof.jpg", type: "image/jpeg", proofPhoto)
        let completed = try party.celebrant.post(
            "\(party.base)/challenges/\(challenge)/complete", rawBody: form.body, headers: ["Content-Type": MultipartForm.contentType])
        #expect(completed.status == 303)
        try party.waitForVariants()
        let proofHash = try #require(try app.app.database.read {
            try $0.queryValue("SELECT sha256 FROM occasion_media WHERE challenge_id = \(challenge)", as: String.self)
        })
        try Self.expectVariants(party, of: proofHash, widths: [480, 960, 1200], aspect: 4.0 / 3)

        // A thank-you photo.
        let (unlocked, _) = try party.unlockedGift()
        let thanksPhoto = try SamplePhotos.make("thanks.jpg", width: 1000, height: 1000, edit: SamplePhotos.addLocation)
        #expect(try party.thank(party.celebrant, gift: unlocked, photo: thanksPhoto).status == 303)
        try party.waitForVariants()
        let thanksHash = try #require(try app.app.database.read {
            try $0.queryValue("SELECT sha256 FROM occasion_thanks WHERE gift_id = \(unlocked)", as: String.self)
        })
        try Self.expectVariants(party, of: thanksHash, widths: [480, 960, 1000], aspect: 1)
        let page = try party.contributors[0].get("\(party.base)/gifts/\(unlocked)").text
        #expect(page.contains("w=480&amp;f=webp") || page.contains("w=480&f=webp"), "the thank-you photo is drawn from its variants")
    }

    @Test("pages draw a photo from its variants with srcset, sizes and its size; variant addresses keep outsiders out")
    func pagesAndAccess() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        let (_, id, sha256) = try Self.givePhoto(party, width: 2000, height: 1000)
        let page = try party.contributors[0].get("\(party.base)/gift").text
        #expect(page.contains("<picture><source type=\"image/webp\""))
        #expect(page.contains("sizes=\"\(MediaViews.gallerySizes)\""))
        #expect(page.contains("width=\"2000\" height=\"1000\""))
        #expect(page.contains("960w"))
        #expect(page.contains("loading=\"eager\""), "the first photo is not lazy")
        let variant = try #require(try party.variants(of: sha256).first { $0.width == 960 && $0.format == "webp" })
        let url = "\(party.base)/media/\(id)?w=960&f=webp&v=\(variant.sha256.prefix(16))"
        #expect(page.contains(url.replacingOccurrences(of: "&", with: "&amp;")))

        let fetched = try party.contributors[0].get(url)
        #expect(fetched.status == 200)
        #expect(fetched.header("Content-Type") == "image/webp")
        #expect(fetched.header("Cache-Control")?.contains("max-age=31536000") == true)
        #expect(fetched.body.count == Int(try party.variantSize(variant.sha256)))
        // Outsiders, and members who may not see this draft, find nothing.
        #expect(try party.stranger.get(url).status == 404)
        #expect(try party.contributors[1].get(url).status == 404)
        #expect(try party.celebrant.get(url).status == 404)
        // A wrong version, a size never made, or a format never made: not found.
        #expect(try party.contributors[0].get("\(party.base)/media/\(id)?w=960&f=webp&v=0000000000000000").status == 404)
        #expect(try party.contributors[0].get("\(party.base)/media/\(id)?w=333&f=webp").status == 404)
        #expect(try party.contributors[0].get("\(party.base)/media/\(id)?w=960&f=png").status == 404)
        // The original is still there for opening and downloading.
        let original = try party.contributors[0].get("\(party.base)/media/\(id)")
        #expect(original.header("Content-Type") == "image/jpeg")
        #expect(original.body.count == Int(MediaStore.size(of: app.app.media.path(for: sha256)) ?? -1))
    }

    @Test("before its variants exist a photo is drawn as itself with its size; a HEIC one waits with a download link")
    func beforeVariants() {
        let picture = MediaView.Picture(width: 4032, height: 3024, sources: [], original: "/original.jpg")
        var view = MediaView(id: 1, kind: .photo, url: "/original.jpg", mimeType: "image/jpeg", durationMs: nil, label: "Photo from Sam", picture: picture)
        let plain = MediaViews.render([view], csrf: nil).string
        #expect(plain.contains("<img src=\"/original.jpg\" alt=\"Photo from Sam\" width=\"4032\" height=\"3024\" loading=\"lazy\""))
        view.picture?.original = nil
        let heic = MediaViews.render([view], csrf: nil).string
        #expect(!heic.contains("<img"))
        #expect(heic.contains("getting it ready to show"))
        #expect(heic.contains("download"))
    }

    @Test(
        "a HEIC photo is accepted, its original loses its location, and pages show it through JPEG and WebP variants only",
        .enabled(if: Tools.has("exiftool"), "needs exiftool (Debian: libimage-exiftool-perl); `make test` installs it"))
    func heic() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let photo = try SamplePhotos.make("IMG_0001.HEIC", width: 1600, height: 1200, quality: 60, edit: SamplePhotos.addLocation)
        #expect(try SamplePhotos.metadata(try Self.write(photo, "before.heic")).contains("GPS Latitude"), "the fixture has a location")
        let response = try party.upload(party.contributors[0], "photos", files: [("IMG_0001.HEIC", "image/heic", photo)])
        #expect(response.status == 303, "\(response.text.prefix(500))")
        let gift = try party.giftOf("friend_1")
        let sha256 = try #require(try party.mediaHashes(gift: gift).first)
        let original = app.app.media.path(for: sha256)
        let kept = try SamplePhotos.metadata(original)
        #expect(!kept.contains("GPS"), "\(kept)")
        #expect(try app.app.database.read { try $0.queryValue("SELECT mime_type FROM media_files", as: String.self) } == "image/heic")
        try party.waitForVariants()
        try Self.expectVariants(party, of: sha256, widths: [480, 960, 1600], aspect: 4.0 / 3)
        let id = try #require(try party.mediaIDs(gift: gift).first)
        let page = try party.contributors[0].get("\(party.base)/gift").text
        let originalURL = "\(party.base)/media/\(id)?v=\(sha256.prefix(16))"
        // The browser is sent the variants; the HEIC itself only as a download.
        #expect(page.contains("<picture>"))
        #expect(!page.contains("src=\"\(originalURL)\""))
        #expect(!page.contains("<a href=\"\(originalURL)\">"))
        #expect(page.contains("w=1600&amp;f=jpeg"))
    }

    @Test("a HEIC that cannot be decoded, or an AVIF, gets a clear 415 and nothing is kept")
    func undecodableHEIC() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let broken = try party.upload(party.contributors[0], "photos", files: [("IMG_0002.HEIC", "image/heic", Fixture.heic)])
        #expect(broken.status == 415)
        #expect(broken.text.contains("is a HEIC or HEIF photo Kith couldn"))
        #expect(broken.text.contains("Choose JPEG or take the photo again"))
        let avif = Fixture.ftyp("avif", ["avif", "mif1", "miaf"]) + Fixture.heic.dropFirst(Fixture.heic.count - 12)
        #expect(try party.upload(party.contributors[0], "photos", files: [("a.avif", "image/avif", Array(avif))]).status == 415)
        #expect(filesBelow(app.app.media.directory).isEmpty)
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM media_files", as: Int.self) } == 0)
    }

    @Test("photos stored before variants existed are picked up, and removing a photo removes its variants")
    func resumesAndCollects() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 1)
        let (gift, _, sha256) = try Self.givePhoto(party, width: 1000, height: 800)
        // As if stored before this release: no size, no variants.
        try app.app.database.write { tx in
            try tx.execute("DELETE FROM media_variants")
            try tx.execute("DELETE FROM media_photos")
        }
        let second = try SamplePhotos.make("b.jpg", width: 600, height: 600)
        #expect(try party.upload(party.contributors[0], "photos", files: [("b.jpg", "image/jpeg", second)]).status == 303)
        try party.waitForVariants()
        #expect(try party.variants(of: sha256).count == 6)
        #expect(try party.photoRow(sha256)?.width == 1000)
        // Variants no row names (a crash before the commit) go at the next start.
        try app.app.media.sweepOrphans(app.app.database)
        #expect(filesBelow(app.app.media.variantDirectory).count == 6 + 4)
        for id in try party.mediaIDs(gift: gift) {
            #expect(try party.post(party.contributors[0], "\(party.base)/gift/media/\(id)/remove", [], from: "\(party.base)/gift").status == 303)
        }
        #expect(filesBelow(app.app.media.variantDirectory).isEmpty)
        #expect(try app.app.database.read { try $0.queryValue("SELECT count(*) FROM media_variants", as: Int.self) } == 0)
    }

    @Test(
        "pages drawing photos from variants, and a HEIC photo without them, pass the Nu HTML checker",
        .enabled(if: HTMLValidationTests.isAvailable, "needs Java and the Nu HTML checker; `make test` installs them"))
    func validHTML() throws {
        let app = try Self.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        _ = try Self.givePhoto(party, width: 1200, height: 900)
        let directory = try TemporaryDirectory()
        try HTMLValidationTests.expectValid([("variants", party.contributors[0], "\(party.base)/gift")], directory: directory)
        let heic = try SamplePhotos.make("b.heic", width: 800, height: 600, quality: 50)
        #expect(try party.upload(party.contributors[1], "photos", files: [("b.heic", "image/heic", heic)]).status == 303)
        try party.waitForVariants()
        // As if its variants could not be made: the page offers the download.
        try app.app.database.write { tx in
            try tx.execute("DELETE FROM media_variants")
            try tx.execute("UPDATE media_photos SET state = 'failed'")
        }
        let waiting = try party.contributors[1].get("\(party.base)/gift").text
        #expect(waiting.contains("getting it ready to show"))
        try HTMLValidationTests.expectValid([("heic", party.contributors[1], "\(party.base)/gift")], directory: directory)
    }

    /// Friend 1 adds one sample photo to their gift and waits for its
    /// variants: (gift, media id, file hash).
    static func givePhoto(_ party: OccasionParty, width: Int, height: Int) throws -> (Int64, Int64, String) {
        let photo = try SamplePhotos.make("a.jpg", width: width, height: height)
        let response = try party.upload(party.contributors[0], "photos", files: [("a.jpg", "image/jpeg", photo)])
        guard response.status == 303 else { throw TestError("upload failed: \(response.status)") }
        try party.waitForVariants()
        let gift = try party.giftOf("friend_1")
        return (gift, try #require(try party.mediaIDs(gift: gift).first), try #require(try party.mediaHashes(gift: gift).first))
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "kith-\(UUID().uuidString)-\(name)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension OccasionParty {
    func variantSize(_ sha256: String) throws -> Int64 {
        try app.app.database.read { try $0.queryValue("SELECT byte_count FROM media_variants WHERE sha256 = \(sha256)", as: Int64.self) } ?? -1
    }
}

import Foundation
@testable import KithApp
import KithTestSupport
import Testing

/// `kith-photos` runs as a child process; these make it crash, hang, run
/// out of memory or meet a file it cannot read, and check that the server
/// carries on and shows the photo as its original.
@Suite("Photo helper: a failing kith-photos leaves the server healthy and the photo as its original")
struct PhotoHelperTests {
    /// A wrapper around the real helper that notes each job's command
    /// (probe or make) in `runs`, then does `onMake` for `make` jobs.
    struct Wrapper {
        let directory: TemporaryDirectory
        let path: String
        let runs: String

        init(onMake: String) throws {
            directory = try TemporaryDirectory("kith-photos-wrapper")
            path = directory.file("kith-photos")
            runs = directory.file("runs")
            let real = KithProcess.executable("kith-photos").path
            #expect(FileManager.default.isExecutableFile(atPath: real), "swift build makes kith-photos beside the tests")
            // Arguments: --memory-limit BYTES probe|make PATH ...
            let script = """
                #!/bin/sh
                echo "$3" >> '\(runs)'
                if [ "$3" = make ]; then \(onMake); fi
                exec '\(real)' "$@"

                """
            try script.write(toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }

        func count(_ job: String) throws -> Int {
            let text = (try? String(contentsOfFile: runs, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0 == job }.count
        }
    }

    /// Uploads `photo` as friend 1's gift, waits for the maker to give up on
    /// it, and checks it is served as its original: (party, file hash).
    static func uploadAndSettle(
        _ app: AppHarness, _ photo: [UInt8], configure: (inout PhotoHelper.Settings) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (OccasionParty, String) {
        configure(&app.app.media.photos.settings)
        let party = try OccasionParty.make(app, contributors: 1)
        let response = try party.upload(party.contributors[0], "photos", files: [("a.jpg", "image/jpeg", photo)])
        #expect(response.status == 303, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        try party.waitForVariants(timeout: 60)
        let gift = try party.giftOf("friend_1")
        let sha256 = try #require(try party.mediaHashes(gift: gift).first, sourceLocation: sourceLocation)
        let id = try #require(try party.mediaIDs(gift: gift).first, sourceLocation: sourceLocation)
        #expect(try party.photoRow(sha256)?.state == "failed", sourceLocation: sourceLocation)
        #expect(try party.variants(of: sha256).isEmpty, sourceLocation: sourceLocation)
        #expect(MediaStore.entries(of: app.app.media.variantDirectory + "/making").isEmpty, "no half-made files stay", sourceLocation: sourceLocation)

        // The server still answers, and draws the photo from its original.
        let page = try party.contributors[0].get("\(party.base)/gift")
        #expect(page.status == 200, sourceLocation: sourceLocation)
        let original = "\(party.base)/media/\(id)?v=\(sha256.prefix(16))"
        #expect(page.text.contains("src=\"\(original)\""), "the page shows the original", sourceLocation: sourceLocation)
        #expect(!page.text.contains("&amp;f=webp"), sourceLocation: sourceLocation)
        let fetched = try party.contributors[0].get(original)
        #expect(fetched.status == 200, sourceLocation: sourceLocation)
        #expect(fetched.body.count == Int(MediaStore.size(of: app.app.media.path(for: sha256)) ?? -1), sourceLocation: sourceLocation)
        return (party, sha256)
    }

    @Test("a helper that crashes while making variants is tried a bounded number of times, then the photo stays as its original")
    func crash() throws {
        let app = try PhotoVariantTests.harness()
        let wrapper = try Wrapper(onMake: "kill -SEGV $$")
        let photo = try SamplePhotos.make("a.jpg", width: 1200, height: 900)
        let (party, sha256) = try Self.uploadAndSettle(app, photo) {
            $0.executable = wrapper.path
            $0.attempts = 3
        }
        #expect(try wrapper.count("make") == 3)
        #expect(try wrapper.count("probe") == 1, "the upload asked the helper for the photo's size")
        // The size read at upload survives the failed job, so the page keeps its layout.
        #expect(try party.photoRow(sha256).map { [$0.width, $0.height] } == [1200, 900])
    }

    @Test("a helper that outlives its time limit is killed, and the photo stays as its original")
    func timeout() throws {
        let app = try PhotoVariantTests.harness()
        let wrapper = try Wrapper(onMake: "exec sleep 600")
        let photo = try SamplePhotos.make("a.jpg", width: 800, height: 600)
        let started = Date()
        let (party, sha256) = try Self.uploadAndSettle(app, photo) {
            $0.executable = wrapper.path
            $0.makeTimeLimit = 1
            $0.attempts = 2
        }
        #expect(Date().timeIntervalSince(started) < 60, "the sleeping helpers were not waited for")
        #expect(try wrapper.count("make") == 2)
        #expect(try party.photoRow(sha256).map { [$0.width, $0.height] } == [800, 600])
    }

    @Test("a helper over its memory limit fails to run, and the photo stays as its original")
    func memoryLimit() throws {
        let app = try PhotoVariantTests.harness()
        let wrapper = try Wrapper(onMake: ":")
        let photo = try SamplePhotos.make("a.jpg", width: 800, height: 600)
        // Too little address space even to map libvips's libraries.
        _ = try Self.uploadAndSettle(app, photo) {
            $0.executable = wrapper.path
            $0.memoryLimit = 4 << 20
            $0.attempts = 2
        }
        // However libvips fails under the limit (an allocation it reports,
        // or an abort), the job fails and is tried at most twice.
        #expect((1...2).contains(try wrapper.count("make")))
    }

    @Test("a file the helper cannot read is recorded as failed once, not retried, and served as its original")
    func unreadable() throws {
        let app = try PhotoVariantTests.harness()
        let wrapper = try Wrapper(onMake: ":")
        // A JPEG whose frame header claims 7-bit samples: its segments are
        // sound, so the upload's checks pass, but no decoder will draw it.
        var photo = try SamplePhotos.make("a.jpg", width: 640, height: 480)
        let frame = try #require((2..<photo.count - 4).first { photo[$0] == 0xFF && photo[$0 + 1] == 0xC0 })
        photo[frame + 4] = 7
        let (party, sha256) = try Self.uploadAndSettle(app, photo) {
            $0.executable = wrapper.path
            $0.attempts = 3
        }
        #expect(try wrapper.count("make") == 1)
        #expect(try party.photoRow(sha256).map { [$0.width, $0.height] } == [nil, nil])
    }
}

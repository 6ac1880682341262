import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Occasion media in real browsers", .serialized)
struct OccasionMediaBrowserTests {
    /// A phone-sized Chromium with a fake microphone and camera that needs
    /// no permission prompt, and media that may play without a tap.
    static var capabilities: [String: Any] {
        [
            "alwaysMatch": [
                "browserName": "chrome",
                "goog:chromeOptions": [
                    "binary": BrowserTests.chromium,
                    "args": [
                        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=375,800",
                        "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required",
                        "--allow-file-access-from-files",
                    ],
                ],
            ]
        ]
    }

    static func text(_ browser: WebDriverSession) throws -> String {
        try browser.execute("return document.body.innerText;") as? String ?? ""
    }

    @Test(
        "a contributor records a voice note in the browser, another gives photos and a video; the celebrant unlocks and plays them; the host's keepsake opens offline with every image, video and audio loaded",
        .enabled(if: Tools.browser && Tools.python3, "needs chromium, chromedriver and python3; `make test` installs them"))
    func story() throws {
        let app = try accountsHarness()
        let party = try OccasionParty.make(app)
        let base = "http://127.0.0.1:\(app.port)"
        let occasion = base + party.base
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        let phone = try driver.newSession(capabilities: Self.capabilities)
        defer { phone.delete() }

        // Friend 1 records a voice note on the gift page: record, stop, listen, save.
        try BrowserTests.signIn(phone, base: base, username: "friend_1")
        try phone.navigate(to: occasion + "/gift")
        try waitUntil("the recorder is offered") {
            (try phone.execute("return !document.querySelector('[data-recorder]').hidden;") as? Bool) == true
        }
        try phone.click("[data-recorder-start]")
        try waitUntil("it records", timeout: 10) { try Self.text(phone).contains("Recording…") }
        Thread.sleep(forTimeInterval: 1.5)
        try phone.click("[data-recorder-stop]")
        try waitUntil("the recording can be heard", timeout: 10) {
            (try phone.execute("return !document.querySelector('[data-recorder-preview]').hidden;") as? Bool) == true
        }
        try phone.click("[data-recorder-save]")
        try waitUntil("the voice note is part of the draft", timeout: 15) { try Self.text(phone).contains("Voice note from you") }
        let voice = try app.app.database.read { db in
            try db.queryOne("""
                SELECT f.mime_type, m.duration_ms FROM occasion_media m JOIN media_files f USING (sha256)
                WHERE m.gift_id = (SELECT id FROM occasion_gifts WHERE author_id = \(party.userIDs["friend_1"]!))
                """).map { (try $0.get("mime_type") as String, try $0.get("duration_ms") as Int?) }
        }
        #expect(voice?.0.hasPrefix("audio/") == true)
        #expect((voice?.1 ?? 0) >= 1000, "the browser's measured duration is kept")

        // The same browser films a second of a canvas: a real WebM for friend 3's video gift.
        try phone.execute(
            """
            const canvas = document.createElement('canvas'); canvas.width = 64; canvas.height = 48;
            const g = canvas.getContext('2d'); let frame = 0;
            const draw = setInterval(() => { g.fillStyle = `hsl(${frame++ * 12}, 80%, 50%)`; g.fillRect(0, 0, 64, 48); }, 40);
            const recorder = new MediaRecorder(canvas.captureStream(25), { mimeType: 'video/webm' });
            const chunks = []; recorder.ondataavailable = (e) => chunks.push(e.data);
            recorder.onstop = async () => {
              clearInterval(draw);
              const bytes = new Uint8Array(await new Blob(chunks).arrayBuffer());
              let binary = ''; for (const b of bytes) binary += String.fromCharCode(b);
              window.__video = btoa(binary);
            };
            recorder.start(100); setTimeout(() => recorder.stop(), 1200);
            """)
        var videoBase64 = ""
        try waitUntil("the canvas video is recorded", timeout: 15) {
            videoBase64 = try phone.execute("return window.__video || '';") as? String ?? ""
            return !videoBase64.isEmpty
        }
        let video = try #require(Data(base64Encoded: videoBase64))
        #expect(try party.upload(party.contributors[2], "video", files: [("clip.webm", "video/webm", [UInt8](video))]).status == 303)
        #expect(try party.upload(
            party.contributors[1], "photos",
            files: [("red-blue.jpg", "image/jpeg", Fixture.jpegWithLocation()), ("red-blue.png", "image/png", Fixture.pngWithLocation())]
        ).status == 303)

        // Everyone sends, the host prices, the celebrant earns and unlocks.
        var gifts: [Int64] = []
        for (index, friend) in party.contributors.enumerated() {
            #expect(try party.post(friend, "\(party.base)/gift/submit", [], from: "\(party.base)/gift").status == 303)
            let gift = try party.giftOf("friend_\(index + 1)")
            try party.price(gift, cost: 10, position: index)
            gifts.append(gift)
        }
        #expect(try party.post(party.host, "\(party.base)/host/points", [("delta", "30"), ("reason", "Birthday")], from: "\(party.base)/host").status == 303)
        let celebrant = try driver.newSession(capabilities: Self.capabilities)
        defer { celebrant.delete() }
        try BrowserTests.signIn(celebrant, base: base, username: "alex_star")
        for gift in gifts {
            try celebrant.navigate(to: occasion + "/gifts")
            try celebrant.execute("document.querySelector(arguments[0]).scrollIntoView();", ["form[action$='/gifts/\(gift)/unlock'] button"])
            try celebrant.click("form[action$='/gifts/\(gift)/unlock'] button")
            try waitUntil("gift \(gift) is unlocked") { try Self.text(celebrant).contains("Unlocked!") }
        }
        // The celebrant plays the voice note and the video on their gift pages.
        for (gift, element) in [(gifts[0], "audio"), (gifts[2], "video")] {
            try celebrant.navigate(to: "\(occasion)/gifts/\(gift)")
            try celebrant.execute("const m = document.querySelector(arguments[0]); m.muted = true; m.play();", ["\(element).media-item__player"])
            try waitUntil("the \(element) plays", timeout: 15) {
                (try celebrant.execute("const m = document.querySelector(arguments[0]); return m.currentTime > 0 || m.ended;", ["\(element).media-item__player"]) as? Bool) == true
            }
        }
        try celebrant.navigate(to: "\(occasion)/gifts/\(gifts[1])")
        try waitUntil("both photos show") {
            (try celebrant.execute("return [...document.querySelectorAll('.media-gallery img')].filter(i => i.complete && i.naturalWidth > 0).length;") as? Int) == 2
        }

        // The host's keepsake: unzipped, opened from file:// with no server involved.
        let zip = try party.host.get("\(party.base)/keepsake")
        #expect(zip.status == 200)
        #expect(zip.header("Content-Type") == "application/zip")
        #expect(zip.header("Content-Disposition") == "attachment; filename=\"kith-alex-turns-30.zip\"")
        let folder = try TemporaryDirectory("kith-keepsake")
        try Data(zip.body).write(to: URL(fileURLWithPath: folder.path + "/keepsake.zip"))
        let unzip = Process()
        unzip.executableURL = URL(fileURLWithPath: Tools.path("python3")!)
        unzip.arguments = ["-m", "zipfile", "-e", folder.path + "/keepsake.zip", folder.path + "/out"]
        try unzip.run()
        unzip.waitUntilExit()
        #expect(unzip.terminationStatus == 0)
        let index = try String(contentsOfFile: folder.path + "/out/index.html", encoding: .utf8)
        #expect(!index.contains("http://") && !index.contains("https://"), "the page names nothing online")
        #expect(index.contains("Voice note from Friend 1"))
        try celebrant.navigate(to: "file://\(folder.path)/out/index.html")
        try waitUntil("every image, video and audio element in the keepsake has loaded", timeout: 20) {
            let counts = try celebrant.execute(
                """
                const images = [...document.images], players = [...document.querySelectorAll('video, audio')];
                return [images.length, images.filter(i => i.complete && i.naturalWidth > 0).length,
                        players.length, players.filter(p => p.readyState >= 1).length];
                """) as? [Int] ?? []
            return counts.count == 4 && counts[0] == 2 && counts[1] == 2 && counts[2] == 2 && counts[3] == 2
        }
        let errors = try BrowserTests.consoleErrors(celebrant) ?? []
        #expect(errors.filter { !$0.contains("favicon") }.isEmpty, "console errors: \(errors)")
    }
}

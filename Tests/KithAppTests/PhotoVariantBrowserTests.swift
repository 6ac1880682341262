import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Right-sized photos on a phone", .serialized)
struct PhotoVariantBrowserTests {
    /// A 375-pixel touch phone at three device pixels per CSS pixel, as
    /// most phones are: it asks for the most pixels a phone ever does.
    static var capabilities: [String: Any] { BrowserTests.emulating(width: 375, height: 812, pixelRatio: 3, touch: true) }

    /// Scrolls through the page and every sideways row so every photo is
    /// fetched (an upper bound on what a person scrolling would cost), then
    /// waits until each has loaded and adds up every byte the page took.
    static func bytesFetched(_ phone: WebDriverSession, _ url: String) throws -> Int {
        try phone.navigate(to: url)
        try waitUntil("the page and its photos have loaded", timeout: 60, interval: 0.2) {
            (try phone.execute(
                """
                window.scrollTo(0, document.body.scrollHeight);
                for (const track of document.querySelectorAll('[data-carousel-track]')) track.scrollLeft = track.scrollWidth;
                const photos = [...document.querySelectorAll('.media-gallery img')];
                return photos.length > 0 && photos.every(img => img.complete && img.naturalWidth > 0);
                """) as? Bool) == true
        }
        let bytes = try phone.execute(
            """
            const navigation = performance.getEntriesByType('navigation')[0];
            const resources = performance.getEntriesByType('resource');
            return navigation.transferSize + resources.reduce((sum, entry) => sum + entry.transferSize, 0);
            """)
        return (bytes as? Int) ?? Int((bytes as? Double) ?? -1)
    }

    @Test(
        "a phone opening a gift of ten 12-megapixel photos fetches under 1.5 MB per page, WebP variants with their sizes",
        .enabled(if: Tools.browser, "needs chromium and chromedriver; `make test` installs them"))
    func tenLargePhotos() throws {
        let app = try OccasionMediaTests.harness()
        let party = try OccasionParty.make(app, contributors: 2)
        // 4000 × 3000, as a phone's camera takes them.
        let photos = try (1...10).map { index in
            ("IMG_\(index).jpg", "image/jpeg", try SamplePhotos.make("p\(index).jpg", width: 4000, height: 3000, quality: 85))
        }
        let originals = photos.reduce(0) { $0 + $1.2.count }
        #expect(originals > 20_000_000, "the photos weigh what real ones do: \(originals) bytes")
        #expect(try party.upload(party.contributors[0], "photos", files: photos).status == 303)
        let gift = try party.sendGift(party.contributors[0], letter: "Ten photos of us")
        try party.price(gift, cost: 10)
        let other = try party.sendGift(party.contributors[1], letter: "A second letter")
        try party.price(other, cost: 500)
        guard try party.complete(try party.addChallenge("Sing", points: 20)).status == 303, try party.unlock(gift).status == 303 else {
            throw TestError("unlocking failed")
        }
        try party.waitForVariants(timeout: 300)

        let base = "http://127.0.0.1:\(app.port)"
        let driver = try WebDriver(executable: BrowserTests.chromedriver, startupTimeout: 20)
        defer { driver.stop() }
        for page in ["\(party.base)/gifts", "\(party.base)/gifts/\(gift)"] {
            // A new browser for each page: what a first visit costs.
            let phone = try driver.newSession(capabilities: Self.capabilities)
            defer { phone.delete() }
            try BrowserTests.signIn(phone, base: base, username: "alex_star")
            let bytes = try Self.bytesFetched(phone, base + page)
            #expect(bytes > 0 && bytes <= 1_500_000, "\(page): \(bytes) bytes")
            let photos = try phone.execute(
                """
                return [...document.querySelectorAll('.media-gallery img')].map(img =>
                  [img.getAttribute('width'), img.getAttribute('height'), img.currentSrc, img.getAttribute('loading')]);
                """) as? [[Any]] ?? []
            #expect(photos.count == 10, "\(page)")
            for photo in photos {
                #expect(photo[0] as? String == "4000" && photo[1] as? String == "3000", "no layout shift: \(photo)")
                let source = photo[2] as? String ?? ""
                #expect(source.contains("f=webp") && !source.contains("w=1600"), "a right-sized WebP: \(source)")
            }
            #expect(photos.first?[3] as? String == "eager")
            #expect(photos.dropFirst().allSatisfy { $0[3] as? String == "lazy" })
            print("PhotoVariantBrowserTests: \(page) fetched \(bytes) bytes for ten photos of \(originals / 10) bytes each")
        }
    }
}

import Foundation

extension BrowserTests {
    /// Capabilities for a browser whose viewport is exactly `width` × `height`
    /// CSS px: headless Chromium will not make a window narrower than 500 px,
    /// so the size comes from device emulation. `pixelRatio` and `touch` make
    /// it a phone in what it asks the server for too.
    static func emulating(width: Int, height: Int, pixelRatio: Int = 1, touch: Bool = false) -> [String: Any] {
        var metrics: [String: Any] = ["width": width, "height": height, "pixelRatio": pixelRatio]
        if touch { metrics["touch"] = true }
        return [
            "alwaysMatch": [
                "browserName": "chrome",
                "goog:chromeOptions": [
                    "binary": chromium,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
                    "mobileEmulation": ["deviceMetrics": metrics],
                ],
            ]
        ]
    }
}

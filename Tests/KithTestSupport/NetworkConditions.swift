/// Taking a browser off the network and back, through chromedriver's own
/// extension (not W3C): what a phone losing its signal looks like to a page.
extension WebDriverSession {
    /// Offline, every request the page makes fails at once, as with no
    /// signal at all; back online, the network is as fast as it was.
    public func setOffline(_ offline: Bool) throws {
        try command(
            "POST", "/chromium/network_conditions",
            [
                "network_conditions": [
                    "offline": offline, "latency": 0, "download_throughput": -1, "upload_throughput": -1,
                ] as [String: Any]
            ])
    }
}

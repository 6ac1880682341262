import Foundation

/// Cutting a browser off the network and giving it back, through Chrome's
/// network emulation: the page's requests fail as they would in a tunnel,
/// `navigator.onLine` turns false and `offline`/`online` fire. Service
/// workers are targets of their own, which the page's emulation does not
/// reach, so each gets the same conditions over the DevTools protocol,
/// through a session that is kept until the network is given back (the
/// conditions last as long as the session that set them).
extension WebDriverSession {
    private static let workerSessions = Locked<[String: [String]]>([:])

    public func setOffline(_ offline: Bool) throws {
        _ = try driver.command(
            "POST", "/session/\(id)/chromium/network_conditions",
            ["network_conditions": ["offline": offline, "latency": 0, "download_throughput": -1, "upload_throughput": -1]])
        let previous = Self.workerSessions.withLock { sessions in sessions.removeValue(forKey: id) ?? [] }
        for session in previous {
            try send(session, "Network.emulateNetworkConditions", conditions(offline: false))
            _ = try? cdp("Target.detachFromTarget", ["sessionId": session])
        }
        guard offline else { return }
        let targets = try cdp("Target.getTargets")?["targetInfos"] as? [[String: Any]] ?? []
        var attached: [String] = []
        for target in targets where target["type"] as? String == "service_worker" {
            guard let targetID = target["targetId"] as? String,
                let session = try cdp("Target.attachToTarget", ["targetId": targetID, "flatten": false])?["sessionId"] as? String
            else { continue }
            try send(session, "Network.enable", [:])
            try send(session, "Network.emulateNetworkConditions", conditions(offline: true))
            attached.append(session)
        }
        Self.workerSessions.withLock { $0[id] = attached }
    }

    private func conditions(offline: Bool) -> [String: Any] {
        ["offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1]
    }

    /// A command to an attached worker, wrapped for a non-flat session.
    private func send(_ session: String, _ method: String, _ params: [String: Any]) throws {
        let message = try JSONSerialization.data(withJSONObject: ["id": Int.random(in: 1...1_000_000), "method": method, "params": params])
        _ = try cdp("Target.sendMessageToTarget", ["sessionId": session, "message": String(decoding: message, as: UTF8.self)])
    }

    private func cdp(_ command: String, _ params: [String: Any] = [:]) throws -> [String: Any]? {
        try driver.command("POST", "/session/\(id)/goog/cdp/execute", ["cmd": command, "params": params]) as? [String: Any]
    }
}

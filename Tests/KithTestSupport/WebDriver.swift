import Foundation
import Glibc

/// A chromedriver process and the few W3C WebDriver commands the browser
/// tests need. chromedriver speaks JSON over plain HTTP/1.1, so every command
/// is one request on a fresh `TestClient` connection: no URLSession, and a
/// command that hangs fails on its own deadline instead of blocking the suite.
public final class WebDriver {
    public let port: Int
    private let process = Process()
    private let logDirectory: TemporaryDirectory
    private var stopped = false

    /// Starts `executable --port=N` on a free port and waits until `/status`
    /// says it is ready for sessions.
    public init(executable: String, startupTimeout: Double = 20) throws {
        port = try Self.freePort()
        logDirectory = try TemporaryDirectory("kith-chromedriver")
        let logPath = logDirectory.path + "/chromedriver.log"
        // chromedriver's own output goes to a file: a pipe nobody reads would
        // fill up and stall it, and the file is worth showing when a test fails.
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
            let log = FileHandle(forWritingAtPath: logPath)
        else { throw TestError("cannot create \(logPath)") }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--port=\(port)"]
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? log.close()

        let deadline = Clock.now + startupTimeout
        while true {
            if !process.isRunning { throw TestError("chromedriver exited at start:\n\(self.log)") }
            // Probe with a socket of our own first: `TestClient` closes its
            // descriptor twice when a connection is refused (once in `init`,
            // once in `deinit`), which can close another test's socket.
            if Self.accepts(port: port), let status = try? command("GET", "/status", timeout: 2) as? [String: Any],
                status["ready"] as? Bool == true
            {
                return
            }
            if Clock.now > deadline {
                stop()
                throw TestError("chromedriver did not become ready within \(Int(startupTimeout)) s:\n\(self.log)")
            }
            usleep(50_000)
        }
    }

    deinit { stop() }

    /// What chromedriver printed, for failure messages.
    public var log: String {
        (try? String(contentsOfFile: logDirectory.path + "/chromedriver.log", encoding: .utf8)) ?? ""
    }

    /// Opens a browser. The caller deletes the session; `stop()` alone would
    /// leave the browser process behind.
    public func newSession(capabilities: [String: Any], timeout: Double = 30) throws -> WebDriverSession {
        let value = try command("POST", "/session", ["capabilities": capabilities], timeout: timeout)
        guard let id = (value as? [String: Any])?["sessionId"] as? String else {
            throw TestError("no session id in \(String(describing: value))")
        }
        return WebDriverSession(driver: self, id: id)
    }

    /// Terminates chromedriver (SIGTERM, then SIGKILL after a grace period) and reaps it.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Clock.now + 5
        while process.isRunning && Clock.now < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Sends one command and returns the JSON `value` of the answer, or throws
    /// the WebDriver error it carries.
    @discardableResult
    public func command(_ method: String, _ path: String, _ body: [String: Any]? = nil, timeout: Double = 30) throws -> Any? {
        let payload = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if body != nil || method == "POST" {
            head += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(payload.count)\r\n"
        }
        let client = try TestClient(port: port)
        try client.send(Array((head + "\r\n").utf8) + Array(payload))
        let response = try client.readResponse(timeout: timeout)
        let json = response.body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed])
        guard let envelope = json as? [String: Any] else {
            throw TestError("\(method) \(path): \(response.status) with a body that is not JSON: \(response.text.prefix(300))")
        }
        let value = envelope["value"]
        if response.status >= 400 || (value as? [String: Any])?["error"] != nil {
            let details = value as? [String: Any]
            throw WebDriverError(
                command: "\(method) \(path)", status: response.status,
                error: details?["error"] as? String ?? "unknown error",
                message: details?["message"] as? String ?? response.text)
        }
        return value is NSNull ? nil : value
    }

    /// Whether something accepts connections on the port yet.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
        return address
    }

    /// A port nobody listens on right now: bind port 0, read it back, close.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestError("socket failed") }
        defer { close(fd) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw TestError("cannot find a free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// One browser, driven through its session.
public final class WebDriverSession {
    public let id: String
    let driver: WebDriver
    private var deleted = false

    init(driver: WebDriver, id: String) {
        self.driver = driver
        self.id = id
    }

    /// The key under which W3C WebDriver returns an element reference.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    @discardableResult
    func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) throws -> Any? {
        try driver.command(method, "/session/\(id)\(path)", body)
    }

    /// Loads a URL and returns once the page's load event has fired.
    public func navigate(to url: String) throws {
        try command("POST", "/url", ["url": url])
    }

    public func currentURL() throws -> String {
        try command("GET", "/url") as? String ?? ""
    }

    /// Runs `script` as the body of a function in the page and returns what it returns.
    @discardableResult
    public func execute(_ script: String, _ arguments: [Any] = []) throws -> Any? {
        try command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// The reference of the first element matching a CSS selector.
    public func element(_ selector: String) throws -> String {
        let value = try command("POST", "/element", ["using": "css selector", "value": selector])
        guard let reference = (value as? [String: Any])?[Self.elementKey] as? String else {
            throw TestError("no element reference for \(selector) in \(String(describing: value))")
        }
        return reference
    }

    /// Clicks the first element matching `selector`, as a person would.
    /// Live pages swap fragments in at any moment, so an element found a
    /// moment ago may be gone by the click: find it again and retry.
    public func click(_ selector: String) throws {
        for attempt in 1...5 {
            do {
                try command("POST", "/element/\(try element(selector))/click", [:])
                return
            } catch let error as WebDriverError where error.error == "stale element reference" && attempt < 5 {
                usleep(50_000)
            }
        }
    }

    /// The rendered text of the first element matching `selector`.
    public func text(_ selector: String) throws -> String {
        try command("GET", "/element/\(try element(selector))/text") as? String ?? ""
    }

    /// Browser console entries (level, message), or nil when this driver does
    /// not expose logs: reading them is chromedriver's extension, not W3C.
    public func browserLog() throws -> [(level: String, message: String)]? {
        do {
            let entries = try command("POST", "/se/log", ["type": "browser"]) as? [[String: Any]] ?? []
            return entries.map { ($0["level"] as? String ?? "", $0["message"] as? String ?? "") }
        } catch let error as WebDriverError where error.error == "unknown command" || error.error == "unknown method" {
            return nil
        }
    }

    /// Opens a new tab (or window) in this browser and returns its handle;
    /// the session stays where it was until `switchTo`. Windows stay visible
    /// in headless Chromium, where a background tab counts as hidden.
    public func newTab(window: Bool = false) throws -> String {
        let value = try command("POST", "/window/new", ["type": window ? "window" : "tab"])
        guard let handle = (value as? [String: Any])?["handle"] as? String else {
            throw TestError("no window handle in \(String(describing: value))")
        }
        return handle
    }

    /// Makes the tab with `handle` the one later commands act on.
    public func switchTo(_ handle: String) throws {
        try command("POST", "/window", ["handle": handle])
    }

    /// The handle of the tab commands act on now.
    public func currentTab() throws -> String {
        try command("GET", "/window") as? String ?? ""
    }

    /// One DevTools protocol command on the current tab, through
    /// chromedriver's `goog/cdp/execute`: for what W3C WebDriver has no
    /// command for (cookie flags, emulated media).
    @discardableResult
    public func devTools(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any]? {
        try command("POST", "/goog/cdp/execute", ["cmd": method, "params": params]) as? [String: Any]
    }

    /// The tab as drawn now, as PNG bytes.
    public func screenshot() throws -> Data {
        guard let encoded = try command("GET", "/screenshot") as? String, let data = Data(base64Encoded: encoded) else {
            throw TestError("no screenshot")
        }
        return data
    }

    /// A slow network, as Chrome emulates it: every request waits `latency`
    /// milliseconds first. 0 gives the network back as it was.
    public func setLatency(_ latency: Int) throws {
        try command("POST", "/chromium/network_conditions", [
            "network_conditions": ["offline": false, "latency": latency, "download_throughput": -1, "upload_throughput": -1]
        ])
    }

    /// Two taps of one finger on the element's centre, as close together as
    /// the driver can send them: one action sequence, no pause between. The
    /// spot is fixed first, so the second tap lands there even if the first
    /// already changed the page. With the default page load strategy
    /// chromedriver waits out a navigation between the taps; a session
    /// made with `pageLoadStrategy: none` sends them back to back.
    public func doubleTap(_ selector: String) throws {
        let centre = try execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)];",
            [selector]) as? [Int] ?? []
        guard centre.count == 2 else { throw TestError("nothing to tap at \(selector)") }
        let tap: [[String: Any]] = [
            ["type": "pointerMove", "duration": 0, "origin": "viewport", "x": centre[0], "y": centre[1]],
            ["type": "pointerDown", "button": 0], ["type": "pointerUp", "button": 0],
        ]
        try command("POST", "/actions", [
            "actions": [["type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"], "actions": tap + tap]]
        ])
        try command("DELETE", "/actions")
    }

    /// Closes the browser. Safe to call twice.
    public func delete() {
        guard !deleted else { return }
        deleted = true
        _ = try? driver.command("DELETE", "/session/\(id)", timeout: 15)
    }
}

public struct WebDriverError: Error, CustomStringConvertible {
    public let command: String
    public let status: Int
    public let error: String
    public let message: String

    public var description: String { "\(command) → \(status) \(error): \(message)" }
}

/// Polls `condition` every `interval` until it holds, and throws once
/// `timeout` has passed: for what a browser does in its own time.
public func waitUntil(_ what: String, timeout: Double = 10, interval: Double = 0.05, _ condition: () throws -> Bool) throws {
    let deadline = Clock.now + timeout
    while true {
        if try condition() { return }
        if Clock.now > deadline { throw TestError("timed out after \(Int(timeout)) s waiting until \(what)") }
        usleep(useconds_t(interval * 1_000_000))
    }
}

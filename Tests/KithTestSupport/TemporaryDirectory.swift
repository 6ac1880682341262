import Foundation
import Glibc

/// A fresh directory under /tmp, removed with everything in it on deinit.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "kith-test") throws {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw TestError("mkdtemp failed") }
        path = String(cString: created)
    }

    deinit {
        _ = system("rm -rf '\(path)'")
    }

    /// The path of `name` inside this directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }

    /// Writes `contents` as UTF-8 to `name` inside this directory.
    public func write(_ name: String, _ contents: String) throws {
        try contents.write(toFile: file(name), atomically: true, encoding: .utf8)
    }
}

/// Runs a shell command and returns its exit status.
@discardableResult
public func shell(_ command: String) -> Int32 {
    let status = system(command)
    return (status >> 8) & 0xFF
}

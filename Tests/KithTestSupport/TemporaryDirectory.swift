import Glibc

/// A fresh directory under /tmp, removed with everything in it on deinit.
public final class TemporaryDirectory {
    public let path: String

    public init(_ label: String = "kith-test") throws {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw TestError("mkdtemp failed") }
        path = String(cString: created)
    }

    deinit {
        _ = system("rm -rf '\(path)'")
    }
}

/// Runs a shell command and returns its exit status.
@discardableResult
public func shell(_ command: String) -> Int32 {
    let status = system(command)
    return (status >> 8) & 0xFF
}

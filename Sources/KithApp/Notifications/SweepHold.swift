import Glibc

/// Lets a test stop an instance in the middle of a digest sweep, so that it
/// can be killed there and another instance shown to finish the work. With
/// `KITH_TEST_HOLD_SWEEP=FILE`, the first sweep that has delivered something
/// inside its still-open transaction creates FILE (exclusively, so among
/// instances given the same FILE only one holds), writes its process id
/// there and waits until the process is killed. Unset, it costs one branch
/// per sweep that delivered anything.
enum SweepHold {
    static let marker: String? = getenv("KITH_TEST_HOLD_SWEEP").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }

    static func holdIfAsked() {
        guard let marker else { return }
        // Written under another name first, so the test never reads a
        // half-written id.
        let partial = marker + ".\(getpid())"
        let fd = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let text = Array("\(getpid())\n".utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        // link fails when the marker exists: another instance holds already.
        guard link(partial, marker) == 0 else {
            unlink(partial)
            return
        }
        unlink(partial)
        while true { sleep(3600) }
    }
}

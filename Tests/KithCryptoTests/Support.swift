import Foundation
import KithCrypto
import Synchronization

/// Counts how many threads are inside a region at once and remembers the most.
final class OverlapCounter: Sendable {
    private let state = Mutex<(current: Int, peak: Int)>((0, 0))

    /// Enters, stays `milliseconds` so that others have time to overlap, leaves.
    func occupy(milliseconds: Int) {
        state.withLock { state in
            state.current += 1
            state.peak = max(state.peak, state.current)
        }
        usleep(UInt32(milliseconds * 1_000))
        state.withLock { $0.current -= 1 }
    }

    var peak: Int { state.withLock { $0.peak } }
}

func bytes(_ hex: String) -> [UInt8] {
    guard let bytes = Hex.decode(hex) else { fatalError("bad hex in a test: \(hex)") }
    return bytes
}

/// A door threads wait at until the test opens it, once, for everyone.
final class DispatchGate: Sendable {
    private let state = Mutex<Bool>(false)

    func wait() {
        while !state.withLock({ $0 }) { usleep(1_000) }
    }

    func open() { state.withLock { $0 = true } }
}

/// Monotonic seconds, for asserting that something did not wait.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

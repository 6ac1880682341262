import Foundation
@testable import KithApp
import KithTestSupport
import Testing

@Suite("Periodic tasks")
struct PeriodicTaskTests {
    /// Polls rather than sleeping a fixed time, so a slow machine only
    /// makes the test slower, never wrong.
    static func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    @Test("the work runs once as soon as the task starts, without waiting an interval")
    func runsAtStart() {
        let runs = Locked(0)
        let task = PeriodicTask("test-start", every: 3_600) { runs.withLock { $0 += 1 } }
        task.start()
        defer { task.stop() }
        #expect(Self.eventually(within: 5) { runs.value == 1 })
    }

    @Test("the work repeats every interval, and a second start adds no second thread")
    func repeats() {
        let running = Locked(0)
        let overlapped = Locked(false)
        let runs = Locked(0)
        let task = PeriodicTask("test-repeat", every: 0.02) {
            if running.withLock({ $0 += 1; return $0 }) > 1 { overlapped.withLock { $0 = true } }
            usleep(2_000)
            running.withLock { $0 -= 1 }
            runs.withLock { $0 += 1 }
        }
        task.start()
        task.start()
        defer { task.stop() }
        #expect(Self.eventually(within: 10) { runs.value >= 3 })
        #expect(!overlapped.value)
    }

    @Test("waiting for the first run returns once it finishes, gives up at its deadline, and never waits on a task not started")
    func waitForFirstRun() {
        let release = Locked(false)
        let task = PeriodicTask("test-first-run", every: 3_600) {
            while !release.value { usleep(5_000) }
        }
        #expect(task.waitForFirstRun(seconds: 5), "a task not started has nothing to wait for")
        task.start()
        defer { task.stop() }
        let started = Date()
        #expect(!task.waitForFirstRun(seconds: 0.2), "the run is still going")
        #expect(Date().timeIntervalSince(started) < 5)
        release.withLock { $0 = true }
        #expect(task.waitForFirstRun(seconds: 30))
        #expect(task.waitForFirstRun(seconds: 0), "once finished, it stays finished")
    }

    @Test("a server's background threads finish their start-up runs, and the server says so")
    func serverSettles() throws {
        let harness = try AppHarness()
        #expect(harness.kith.waitForStartRuns(seconds: 30))
    }

    @Test("stop wakes a sleeping task at once, waits for a run in progress, and nothing runs after it")
    func stopIsPromptAndJoins() {
        let runs = Locked(0)
        let finished = Locked(0)
        let task = PeriodicTask("test-stop", every: 3_600) {
            runs.withLock { $0 += 1 }
            usleep(200_000)
            finished.withLock { $0 += 1 }
        }
        task.start()
        #expect(Self.eventually(within: 5) { runs.value == 1 })
        let started = Date()
        task.stop()
        #expect(finished.value == 1, "stop returned only after the run in progress finished")
        #expect(Date().timeIntervalSince(started) < 5, "stop did not wait out the hour-long interval")
        usleep(50_000)
        task.start()
        #expect(runs.value == 1, "a stopped task stays stopped")
    }
}

@testable import KithApp
import KithTestSupport
import Testing

/// A topic's publish walks a list gathered once from its subscribers; the
/// list must follow every change to them.
@Suite("Live fan-out list")
struct LiveFanOutTests {
    /// Counts every write, even after it is closed, so a write to a stream
    /// the hub should have forgotten shows.
    final class CountingSink: LiveSink, @unchecked Sendable {
        private let state = Locked<(writes: Int, onClose: [@Sendable () -> Void])>((0, []))
        func write(_ bytes: [UInt8]) -> Bool {
            state.withLock { $0.writes += 1 }
            return true
        }
        func close() {
            let callbacks = state.withLock { state -> [@Sendable () -> Void] in
                defer { state.onClose = [] }
                return state.onClose
            }
            for callback in callbacks { callback() }
        }
        func onClose(_ action: @escaping @Sendable () -> Void) { state.withLock { $0.onClose.append(action) } }
        var writes: Int { state.withLock { $0.writes } }
    }

    @Test("a stream that joins after a publish hears the next one, and one that left hears nothing more")
    func followsSubscribers() {
        let hub = LiveHub(epoch: "cd34")
        let first = CountingSink(), later = CountingSink()
        hub.attach(first, topics: ["game:1"], cursor: nil, viewerKey: nil)
        #expect(first.writes == 1, "the opening")
        hub.publish(topic: "game:1", fragments: ["board"])
        #expect(first.writes == 2)

        hub.attach(later, topics: ["game:1"], cursor: nil, viewerKey: nil)
        hub.publish(topic: "game:1", fragments: ["board"])
        #expect(first.writes == 3)
        #expect(later.writes == 2, "the list was gathered again after the new stream joined")

        // Closing runs the hub's detach: the sink leaves the topic.
        first.close()
        hub.publish(topic: "game:1", fragments: ["board"])
        #expect(later.writes == 3)
        #expect(first.writes == 3, "a stream that left is not written to")
        #expect(hub.openStreams == 1)
    }
    @Test("streams leaving from the front, middle and end leave every other one hearing each publish exactly once")
    func leavingKeepsTheRest() {
        let hub = LiveHub(epoch: "ef56")
        let sinks = (0..<6).map { _ in CountingSink() }
        // One of them follows the topic twice over: it must hear each event once.
        hub.attach(sinks[0], topics: ["tally:7", "tally:7"], cursor: nil, viewerKey: nil)
        for sink in sinks.dropFirst() { hub.attach(sink, topics: ["tally:7"], cursor: nil, viewerKey: nil) }
        hub.publish(topic: "tally:7", fragments: ["count"])
        #expect(sinks.allSatisfy { $0.writes == 2 }, "the opening and one event each")

        for leaving in [2, 5, 0] { sinks[leaving].close() }
        hub.publish(topic: "tally:7", fragments: ["count"])
        hub.publish(topic: "tally:7", fragments: ["count"])
        for (index, sink) in sinks.enumerated() {
            #expect(sink.writes == ([0, 2, 5].contains(index) ? 2 : 4), "sink \(index)")
        }
        #expect(hub.openStreams == 3)

        let late = CountingSink()
        hub.attach(late, topics: ["tally:7"], cursor: nil, viewerKey: nil)
        hub.publish(topic: "tally:7", fragments: ["count"])
        #expect(late.writes == 2)
        #expect([1, 3, 4].allSatisfy { sinks[$0].writes == 5 })
    }
}

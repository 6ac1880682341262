import CKithShim
import Glibc
import KithCrypto
import KithHTTP
import KithTemplates
import Synchronization

/// Where live events go out. A `ResponseStream` in the server; a recording
/// fake in tests. `write` and `close` never call back into the hub
/// synchronously: a stream ends on its event loop, later.
protocol LiveSink: AnyObject, Sendable {
    @discardableResult func write(_ bytes: [UInt8]) -> Bool
    func close()
    func onClose(_ action: @escaping @Sendable () -> Void)
}

extension ResponseStream: LiveSink {}

/// Fans published invalidations out to open event streams.
///
/// Events are invalidations, never HTML: `{"topic":"occasion:12","fragments":["gift-3"]}`.
/// Each page refetches the fragments it shows with its own cookie, so no
/// viewer ever receives markup rendered for someone with other rights.
///
/// Every event gets the next id of one sequence; each topic keeps its recent
/// events so a page (or a reconnecting stream) can replay from its cursor.
/// When the buffer no longer reaches back that far, or the server restarted
/// (a new epoch), the stream says `reload` instead.
public final class LiveHub: Sendable {
    public struct Limits: Sendable {
        /// Recent events kept per topic for replay.
        public var eventsPerTopic = 64
        public var maxTopicsPerStream = 16
        /// At this many streams for one viewer, the oldest is closed for the new one.
        public var maxStreamsPerViewer = 8
        /// At this many streams from one client address, a new one is refused
        /// (429) and the open ones are left alone. Refused rather than evicting:
        /// an address is shared (a home, an office, a carrier's NAT), and
        /// evicting would let one of its users close everyone else's streams —
        /// and the evicted tabs would reconnect and evict in turn. A browser
        /// stops retrying on a 429, so refusing also ends the churn. 64 lets a
        /// family of eight keep eight tabs each.
        public var maxStreamsPerAddress = 64
        public var heartbeatSeconds = 15.0
        /// Streams are closed after this long; the browser reconnects and replays.
        public var maxLifetimeSeconds = 3600.0
        /// A topic nobody listens to is forgotten this long after its last event.
        public var idleTopicSeconds = 600.0
        public init() {}
    }

    final class Subscriber: Sendable {
        let sink: any LiveSink
        /// The sink when it is the server's stream, found once at attach so
        /// a publish can hand all of them to the engine in one batch.
        let stream: ResponseStream?
        let topics: [String]
        let viewerKey: String?
        /// The session the stream was opened with: it closes when that session ends.
        let sessionID: Int64?
        /// The client address, for the per-address cap.
        let address: String?
        let opened: UInt64
        init(sink: any LiveSink, topics: [String], viewerKey: String?, sessionID: Int64?, address: String?, opened: UInt64) {
            self.sink = sink
            stream = sink as? ResponseStream
            self.topics = topics
            self.viewerKey = viewerKey
            self.sessionID = sessionID
            self.address = address
            self.opened = opened
        }
    }

    struct TopicState {
        var events: [(id: UInt64, bytes: [UInt8])] = []
        /// The newest event id that has fallen out of `events`.
        var droppedThrough: UInt64 = 0
        var lastPublished: UInt64 = 0
        init(droppedThrough: UInt64) { self.droppedThrough = droppedThrough }
        var audience = Audience()
    }

    /// A topic's subscribers, kept the way a publish wants them: the
    /// engine's streams in one array handed over as it is, any other sink
    /// apart. Joining appends and leaving swaps the last entry into the
    /// gap, so neither walks the list, and a publish never does more than
    /// hand it over. Gathering it from the subscribers instead, at the first
    /// publish after any of them came or went (which on a busy topic is
    /// nearly every publish), walked ten thousand cold objects before any
    /// byte went out: about a fifth of the server's CPU for such a publish.
    struct Audience {
        private(set) var streams: [ResponseStream] = []
        private(set) var others: [any LiveSink] = []
        /// Each subscriber's index in its array, and whose entry each index
        /// holds, so the entry moved into a gap can be found again.
        private var slots: [ObjectIdentifier: Int] = [:]
        private var streamOwners: [ObjectIdentifier] = []
        private var otherOwners: [ObjectIdentifier] = []

        var isEmpty: Bool { slots.isEmpty }

        /// Adds `subscriber` unless it is already here.
        mutating func insert(_ subscriber: Subscriber) {
            let id = ObjectIdentifier(subscriber)
            guard slots[id] == nil else { return }
            if let stream = subscriber.stream {
                slots[id] = streams.count
                streams.append(stream)
                streamOwners.append(id)
            } else {
                slots[id] = others.count
                others.append(subscriber.sink)
                otherOwners.append(id)
            }
        }

        /// Takes `subscriber` out, if it is here. Call it while the
        /// subscriber is alive: its identity is the key.
        mutating func remove(_ subscriber: Subscriber) {
            let id = ObjectIdentifier(subscriber)
            guard let slot = slots.removeValue(forKey: id) else { return }
            if subscriber.stream != nil {
                Self.fillGap(at: slot, in: &streams, owners: &streamOwners, slots: &slots)
            } else {
                Self.fillGap(at: slot, in: &others, owners: &otherOwners, slots: &slots)
            }
        }

        private static func fillGap<Element>(
            at slot: Int, in items: inout [Element], owners: inout [ObjectIdentifier], slots: inout [ObjectIdentifier: Int]
        ) {
            let last = items.count - 1
            if slot != last {
                items.swapAt(slot, last)
                owners.swapAt(slot, last)
                slots[owners[slot]] = slot
            }
            items.removeLast()
            owners.removeLast()
        }

        func write(_ bytes: [UInt8]) {
            for sink in others { sink.write(bytes) }
            ResponseStream.write(bytes, to: streams)
        }
    }

    struct State {
        var lastEventID: UInt64 = 0
        var topics: [String: TopicState] = [:]
        /// The newest event id of any topic state that was forgotten.
        var forgottenThrough: UInt64 = 0
        var viewers: [String: [Subscriber]] = [:]
        var addresses: [String: Int] = [:]
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        var stopped = false
    }

    public let epoch: String
    public let limits: Limits
    /// On PostgreSQL, where events come from and go to: ids and epoch are
    /// then shared by every instance (LiveRelay). Nil on SQLite.
    let relay: LiveRelay?
    private let state = Mutex(State())
    private let heartbeat = Monitor()
    private let heartbeatThread = Mutex<pthread_t?>(nil)

    public init(limits: Limits = Limits(), epoch: String = LiveHub.newEpoch()) {
        self.limits = limits
        self.epoch = epoch
        relay = nil
    }

    /// A hub whose events are shared through `relay` with every instance
    /// on the same PostgreSQL database; it starts from the newest kept events.
    public init(limits: Limits = Limits(), relay: LiveRelay) throws {
        self.limits = limits
        epoch = relay.epoch
        self.relay = relay
        try relay.preload(self)
    }

    /// A random boot epoch: a restarted server never matches an old cursor.
    public static func newEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16)
    }

    /// The cursor a page renders, read *before* the page reads its data, so an
    /// event that commits in between is replayed rather than missed.
    public var cursor: String {
        let last = state.withLock { $0.lastEventID }
        return LiveCursor(epoch: epoch, eventID: last).description
    }

    var lastEventID: UInt64 { state.withLock { $0.lastEventID } }

    public var openStreams: Int { state.withLock { $0.subscribers.count } }

    /// Whether `address` may open one more stream. Asked before the stream's
    /// response starts, so a refusal can still be a 429; `attach` enforces
    /// the cap again for streams that raced past this check.
    func hasRoom(forAddress address: String) -> Bool {
        state.withLock { ($0.addresses[address] ?? 0) < limits.maxStreamsPerAddress }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    // MARK: Publishing

    /// Tells every stream on `topic` that these fragments changed. Call it
    /// after the change is committed (`tx.afterCommit`).
    public func publish(topic: String, fragments: [FragmentID]) {
        publish(topic: topic, fragments: fragments.map(\.rawValue))
    }

    public func publish(topic: String, fragments: [String]) {
        let data = "{\"topic\":\(JSONString.quoted(topic)),\"fragments\":[\(fragments.map(JSONString.quoted).joined(separator: ","))]}"
        if let relay {
            if !isStopped { relay.publish(topic: topic, data: data, to: self) }
            return
        }
        state.withLock { state in
            guard !state.stopped else { return }
            state.lastEventID += 1
            append(id: state.lastEventID, topic: topic, data: data, to: &state)
        }
    }

    /// An event numbered elsewhere (LiveRelay): delivered unless this hub
    /// has passed its id already, so hearing one twice is harmless.
    func deliver(id: UInt64, topic: String, data: String) {
        state.withLock { state in
            guard !state.stopped, id > state.lastEventID else { return }
            state.lastEventID = id
            append(id: id, topic: topic, data: data, to: &state)
        }
    }

    /// Says that events through `id` can no longer be replayed here (they
    /// were never seen): cursors from before it get `reload`.
    func forget(through id: UInt64) {
        state.withLock { state in
            state.lastEventID = max(state.lastEventID, id)
            state.forgottenThrough = max(state.forgottenThrough, id)
            for topic in Array(state.topics.keys) {
                state.topics[topic]!.droppedThrough = max(state.topics[topic]!.droppedThrough, id)
            }
        }
    }

    private func append(id: UInt64, topic: String, data: String, to state: inout State) {
        let bytes = ServerSentEvent(id: "\(epoch)-\(id)", event: "invalidate", data: data).bytes
        // A topic made anew knows nothing before what was forgotten.
        var topicState = state.topics.removeValue(forKey: topic) ?? TopicState(droppedThrough: state.forgottenThrough)
        topicState.events.append((id, bytes))
        if topicState.events.count > limits.eventsPerTopic {
            topicState.droppedThrough = topicState.events.removeFirst().id
        }
        topicState.lastPublished = kith_monotonic_nanos()
        // Writing is an append under each stream's own lock; holding the hub's
        // lock meanwhile keeps every stream's events in id order.
        topicState.audience.write(bytes)
        state.topics[topic] = topicState
    }

    /// Before a stream attaches with `cursor`: on PostgreSQL the page may
    /// have been rendered by an instance a little ahead of this one, so read
    /// what this one has not heard yet instead of calling the cursor stale.
    func catchUp(toReach cursor: String?) {
        guard let relay, let cursor = cursor.flatMap(LiveCursor.init), cursor.epoch == epoch, cursor.eventID > lastEventID else { return }
        relay.catchUp(self)
    }


    // MARK: Subscribing

    /// Starts delivering `topics` to `sink`: replays what came after `cursor`
    /// (or says `reload` when that is impossible), then streams live events.
    func attach(
        _ sink: any LiveSink, topics: [String], cursor: String?, viewerKey: String?, sessionID: Int64? = nil, address: String? = nil
    ) {
        let subscriber = Subscriber(
            sink: sink, topics: topics, viewerKey: viewerKey, sessionID: sessionID, address: address, opened: kith_monotonic_nanos())
        var evicted: [Subscriber] = []
        let registered = state.withLock { state -> Bool in
            if state.stopped {
                sink.close()
                return false
            }
            if let address, (state.addresses[address] ?? 0) >= limits.maxStreamsPerAddress {
                // Lost a race with `hasRoom`: the headers are out, so say it
                // in the stream; the page's script stops on `evicted`.
                sink.write(ServerSentEvent(event: "evicted", data: "too many live pages from this address").bytes)
                sink.close()
                return false
            }
            var opening = Array("retry: 2000\n\n".utf8)
            if let cursor {
                guard let replay = Self.replay(after: cursor, topics: topics, epoch: epoch, state: state) else {
                    opening += ServerSentEvent(event: "reload", data: "the page is out of date").bytes
                    sink.write(opening)
                    sink.close()
                    return false
                }
                for event in replay { opening += event }
            }
            let id = ObjectIdentifier(subscriber)
            state.subscribers[id] = subscriber
            if let address { state.addresses[address, default: 0] += 1 }
            for topic in topics { state.topics[topic, default: TopicState(droppedThrough: state.forgottenThrough)].audience.insert(subscriber) }
            if let viewerKey {
                state.viewers[viewerKey, default: []].append(subscriber)
                while let list = state.viewers[viewerKey], list.count > limits.maxStreamsPerViewer {
                    let oldest = list[0]
                    Self.remove(oldest, from: &state)
                    evicted.append(oldest)
                }
            }
            sink.write(opening)
            return true
        }
        for old in evicted {
            old.sink.write(ServerSentEvent(event: "evicted", data: "a newer page took this stream's place").bytes)
            old.sink.close()
        }
        // Registered outside the lock: for a sink that has already ended the
        // action runs at once, and it takes the lock itself.
        if registered { sink.onClose { [weak self, weak subscriber] in if let subscriber { self?.detach(subscriber) } } }
    }

    private func detach(_ subscriber: Subscriber) {
        state.withLock { Self.remove(subscriber, from: &$0) }
    }

    private static func remove(_ subscriber: Subscriber, from state: inout State) {
        let id = ObjectIdentifier(subscriber)
        guard state.subscribers.removeValue(forKey: id) != nil else { return }
        for topic in subscriber.topics { state.topics[topic]?.audience.remove(subscriber) }
        if let key = subscriber.viewerKey {
            state.viewers[key]?.removeAll { $0 === subscriber }
            if state.viewers[key]?.isEmpty == true { state.viewers[key] = nil }
        }
        if let address = subscriber.address {
            let left = (state.addresses[address] ?? 1) - 1
            state.addresses[address] = left > 0 ? left : nil
        }
    }

    /// The events after `cursor` on these topics in id order, or nil when the
    /// cursor is from another boot, from the future, or older than what is kept.
    private static func replay(after cursorText: String, topics: [String], epoch: String, state: State) -> [[UInt8]]? {
        guard let cursor = LiveCursor(cursorText), cursor.epoch == epoch, cursor.eventID <= state.lastEventID else {
            return nil
        }
        var events: [(id: UInt64, bytes: [UInt8])] = []
        for topic in topics {
            guard let topicState = state.topics[topic] else {
                if state.forgottenThrough > cursor.eventID { return nil }
                continue
            }
            if topicState.droppedThrough > cursor.eventID { return nil }
            events += topicState.events.filter { $0.id > cursor.eventID }
        }
        return events.sorted { $0.id < $1.id }.map(\.bytes)
    }

    /// Ends every stream of one viewer: after signing out everywhere or
    /// deleting the account, nothing more may reach their open tabs.
    /// The last word on a stream whose page has ended, so the page can say
    /// why in words instead of silently going still. Its data is an
    /// `Ending` (`signed-out` or `gone`), the same word refused requests
    /// carry in `X-Kith-Ending`.
    static func revoked(_ ending: Ending) -> ServerSentEvent { ServerSentEvent(event: "revoked", data: ending.rawValue) }

    /// Ends every stream of a viewer whose sessions all ended.
    public func closeStreams(viewerKey: String) {
        close(saying: Self.revoked(.signedOut)) { state in state.viewers[viewerKey] ?? [] }
    }

    /// Ends the streams opened with these sessions: a stream must not
    /// outlive the cookie that opened it. A session only rotated (sign-in,
    /// a new password on this device) ends quietly: the browser reconnects
    /// with its new cookie and replays what it missed.
    public func closeStreams(sessions: Set<Int64>, rotated: Bool = false) {
        close(saying: rotated ? nil : Self.revoked(.signedOut)) { state in
            state.subscribers.values.filter { $0.sessionID.map(sessions.contains) ?? false }
        }
    }

    /// Ends the viewer's streams that follow `topic` (all of them when nil),
    /// saying `revoked` first: someone whose access ended stops hearing at
    /// once, the page says so, and the topic's rule now refuses them.
    /// Features call it through `KithApp.revoke`, after their commit.
    public func closeStreams(viewerKey: String, topic: String?) {
        close(saying: Self.revoked(.gone)) { state in
            (state.viewers[viewerKey] ?? []).filter { topic.map($0.topics.contains) ?? true }
        }
    }

    private func close(saying last: ServerSentEvent?, _ choose: (State) -> [Subscriber]) {
        let streams = state.withLock { state -> [Subscriber] in
            let list = choose(state)
            for subscriber in list { Self.remove(subscriber, from: &state) }
            return list
        }
        for subscriber in streams {
            if let last { subscriber.sink.write(last.bytes) }
            subscriber.sink.close()
        }
    }

    // MARK: Heartbeats, lifetimes, shutdown

    /// Starts the thread that sends heartbeats, ends old streams and forgets idle topics.
    public func start() {
        relay?.start(feeding: self)
        heartbeatThread.withLock { thread in
            guard thread == nil else { return }
            thread = Threads.spawn(name: "kith-live") { [self] in
                while true {
                    let stopping = heartbeat.withLock { () -> Bool in
                        if isStopped { return true }
                        _ = heartbeat.wait(seconds: limits.heartbeatSeconds)
                        return isStopped
                    }
                    if stopping { return }
                    tick()
                }
            }
        }
    }

    func tick() {
        let now = kith_monotonic_nanos()
        let lifetime = UInt64(limits.maxLifetimeSeconds * 1e9)
        let idle = UInt64(limits.idleTopicSeconds * 1e9)
        let subscribers = state.withLock { state -> [Subscriber] in
            for (name, topic) in state.topics where topic.audience.isEmpty && now &- topic.lastPublished > idle {
                state.forgottenThrough = max(state.forgottenThrough, topic.events.last?.id ?? topic.droppedThrough)
                state.topics[name] = nil
            }
            return Array(state.subscribers.values)
        }
        var alive = Audience()
        for subscriber in subscribers {
            if now &- subscriber.opened > lifetime {
                subscriber.sink.close()
            } else {
                alive.insert(subscriber)
            }
        }
        alive.write(ServerSentEvent.heartbeat)
    }

    /// Closes every stream and stops the heartbeat thread.
    public func stop() {
        let subscribers = state.withLock { state -> [Subscriber] in
            state.stopped = true
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.sink.close() }
        relay?.stop()
        heartbeat.withLock { heartbeat.broadcast() }
        if let thread = heartbeatThread.withLock({ $0 }) { Threads.join(thread) }
    }
}

import KithStorage
import Synchronization

/// Something one feature does that others must follow in the same write:
/// friends part, and whatever was shared between the two must stop being
/// shared before anything commits. The feature that acts owns the event: it
/// names it with a constant of its own and calls `app.emit`; a feature that
/// cares declares a handler for that name in its `Feature.events`. So the
/// one acting never names those that follow, and Core names neither: it
/// only knows an event is a string and two people.
public final class FeatureEvents: Sendable {
    /// Runs inside the emitter's transaction (a throw rolls all of it back);
    /// ends access with `app.revoke(…, after: tx)` and returns what others'
    /// open pages must refetch, published once the transaction commits.
    public typealias Handler = @Sendable (_ tx: Transaction, _ subject: Int64, _ other: Int64) throws -> [LiveInvalidation]

    private let handlers = Mutex<[String: [Handler]]>([:])

    public init() {}

    /// Handlers of one event run in the order their features are installed.
    public func register(_ event: String, _ handler: @escaping Handler) {
        handlers.withLock { $0[event, default: []].append(handler) }
    }

    /// The handlers are copied out first, so none runs with the registry locked.
    func run(_ event: String, _ tx: Transaction, subject: Int64, other: Int64) throws -> [LiveInvalidation] {
        var invalidations: [LiveInvalidation] = []
        for handler in handlers.withLock({ $0[event] ?? [] }) {
            invalidations += try handler(tx, subject, other)
        }
        return invalidations
    }
}

/// One feature's handler for an event another feature emits.
public struct EventHandler: Sendable {
    public let event: String
    public let handle: FeatureEvents.Handler

    public init(_ event: String, _ handle: @escaping FeatureEvents.Handler) {
        self.event = event
        self.handle = handle
    }
}

extension KithApp {
    /// Tells every feature that declared a handler for `event` what happened
    /// between `subject` and `other`, inside `tx`; what they invalidate is
    /// published after the commit, and nothing is if `tx` rolls back.
    public func emit(_ event: String, _ tx: Transaction, subject: Int64, other: Int64) throws {
        let invalidations = try events.run(event, tx, subject: subject, other: other)
        guard !invalidations.isEmpty else { return }
        let live = self.live
        tx.afterCommit { live.publish(invalidations) }
    }
}

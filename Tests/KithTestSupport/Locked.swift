import Synchronization

/// A value shared between a test and the handlers or threads it starts.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public func withLock<T>(_ body: (inout Value) -> T) -> T { mutex.withLock { body(&$0) } }
    public var value: Value { mutex.withLock { $0 } }
}

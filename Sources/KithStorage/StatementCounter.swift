import Synchronization

/// How many statements a database has run, across its writer and readers.
/// A page whose count grows with its rows runs a query inside a loop; tests
/// read the count before and after a request to catch that. One relaxed
/// atomic add per statement is lost in the cost of stepping it, so the count
/// is always on.
final class StatementCounter: Sendable {
    private let count = Atomic<Int>(0)

    @inline(__always)
    func increment() {
        count.add(1, ordering: .relaxed)
    }

    var value: Int { count.load(ordering: .relaxed) }
}

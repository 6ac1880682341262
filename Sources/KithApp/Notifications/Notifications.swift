import KithStorage

/// The inbox and the digest engine. (Being built: see NotificationRoutes.)
public final class Notifications: Sendable {
    let database: Database
    let live: LiveHub
    let clock: @Sendable () -> Int64

    init(database: Database, live: LiveHub, clock: @escaping @Sendable () -> Int64) {
        self.database = database
        self.live = live
        self.clock = clock
    }

    func start() {}
    func stop() {}
}

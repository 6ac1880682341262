import KithHTTP
import KithStorage

/// Web Push delivery. (Being built: see PushRoutes.)
final class PushService: Sendable {
    let database: Database
    let dataDirectory: String
    let baseURL: @Sendable () -> String
    let logger: Logger

    init(database: Database, dataDirectory: String, baseURL: @escaping @Sendable () -> String, logger: Logger) {
        self.database = database
        self.dataDirectory = dataDirectory
        self.baseURL = baseURL
        self.logger = logger
    }

    func start() {}
    func stop() {}
}

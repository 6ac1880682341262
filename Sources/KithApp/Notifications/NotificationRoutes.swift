/// The inbox pages. (Being built.)
enum NotificationRoutes {
    static func register(on app: KithApp) {}
}

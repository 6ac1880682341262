/// Web Push subscriptions and the service worker. (Being built.)
enum PushRoutes {
    static func register(on app: KithApp) {}
}

/// `/join`: invite codes for occasions and games. (Being built.)
enum InviteRoutes {
    static func register(on app: KithApp) {}
}

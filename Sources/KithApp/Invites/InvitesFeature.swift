import KithHTTP

/// The join flow every feature's invite kinds share.
enum InvitesFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("invites")
        feature.endpoints = InviteRoutes.endpoints(app)
        return feature
    }
}

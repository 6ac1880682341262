import KithHTTP

/// The signed-in home page. It shows the dashboard sections other features
/// declare and knows nothing else of them.
enum HomeFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("home")
        feature.endpoints = HomeRoutes.endpoints(app)
        return feature
    }
}

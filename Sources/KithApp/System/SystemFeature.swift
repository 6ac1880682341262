import KithHTTP

/// What every deployment serves whatever its features: health checks,
/// static assets, the manifest, the live stream endpoint and the 404 for
/// unknown pages; and, in development mode only, the styleguide.
enum SystemFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("system")
        feature.endpoints = SystemRoutes.endpoints(app) + LiveRoutes.endpoints(app)
        feature.tasks = [ClientActions.sweeper(app).backgroundTask]
        return feature
    }

    /// The styleguide and its live demo, for `--dev` only.
    static func development(_ app: KithApp) -> Feature {
        var feature = Feature("development")
        guard app.configuration.development else { return feature }
        feature.endpoints = DevelopmentRoutes.endpoints(app)
        feature.topics = [TopicKind("styleguide") { key, _ in key == "demo" }]
        return feature
    }
}

import KithTemplates

/// One invalidation to publish: these fragments of pages following `topic`
/// changed. A value, so work inside a transaction (an account's purge) can
/// say what it changed and leave publishing to whoever commits.
public struct LiveInvalidation: Sendable, Equatable {
    public let topic: String
    public let fragments: [String]

    public init(topic: String, fragments: [FragmentID]) {
        self.topic = topic
        self.fragments = fragments.map(\.rawValue)
    }
}

extension LiveHub {
    public func publish(_ invalidations: [LiveInvalidation]) {
        for invalidation in invalidations { publish(topic: invalidation.topic, fragments: invalidation.fragments) }
    }
}

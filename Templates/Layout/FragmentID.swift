/// The id of an element the page script refetches when the live stream
/// names it. The handler that publishes the change and the template that
/// renders the element share one value, so neither can rename it alone.
public struct FragmentID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

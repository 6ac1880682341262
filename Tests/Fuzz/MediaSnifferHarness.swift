import KithMedia

/// What an upload is, from its first bytes.
///
/// Asking for the kind a form expects may only turn a two-kind container
/// (WebM, generic MP4) into that kind; it never changes the container or
/// admits what plain sniffing refused.
enum MediaSnifferHarness: FuzzHarness {
    static let name = "media-sniffer"

    static func run(_ input: UnsafeRawBufferPointer) {
        let prefix = Array(input.prefix(MediaSniffer.prefixLength))
        let plain = MediaSniffer.identify(prefix)
        for kind in MediaKind.allCases {
            let expecting = MediaSniffer.identify(prefix, expecting: kind)
            switch (plain, expecting) {
            case (.allowed(let type), .allowed(let other)):
                require(
                    other == type || (other.container == type.container && other.kind == kind),
                    "\(type) became \(other) when \(kind) was expected")
            default:
                require(plain == expecting, "\(plain) became \(expecting) when \(kind) was expected")
            }
        }
    }
}

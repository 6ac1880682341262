import KithHTTP

/// Percent-decoding of path segments and form components.
///
/// Whatever decodes must come back unchanged through `PercentEncoding` and a
/// second decoding, and without a `+` in the input the two flavours agree.
enum PercentDecodingHarness: FuzzHarness {
    static let name = "percent-decoding"

    static func run(_ input: UnsafeRawBufferPointer) {
        typealias Decoded = Result<String, PercentDecodingError>
        let segment = Decoded { () throws(PercentDecodingError) in try PercentDecoding.decodePathSegment(input) }
        let component = Decoded { () throws(PercentDecodingError) in try PercentDecoding.decodeFormComponent(input) }

        if case .success(let text) = segment {
            let encoded = PercentEncoding.encodePathSegment(text)
            require(
                (try? PercentDecoding.decodePathSegment(encoded)) == text,
                "path segment \(text.debugDescription) encoded as \(encoded) does not decode back")
        }
        if case .success(let text) = component {
            let encoded = PercentEncoding.encodeQueryComponent(text)
            require(
                (try? PercentDecoding.decodeFormComponent(encoded)) == text,
                "form component \(text.debugDescription) encoded as \(encoded) does not decode back")
        }
        if !input.contains(UInt8(ascii: "+")) {
            require(segment == component, "without a '+', path decoding gave \(segment), form decoding \(component)")
        }
    }
}

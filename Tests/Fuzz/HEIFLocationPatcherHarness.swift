import KithMedia

/// The HEIC location patcher on any bytes, reached through `MetadataStripper`
/// as a HEIC whether or not the file sniffs as one. It checks every range
/// before writing, so a file it refuses must be left exactly as it was.
enum HEIFLocationPatcherHarness: FuzzHarness {
    static let name = "heif-location-patcher"

    static func run(_ input: UnsafeRawBufferPointer) {
        InPlacePatching.check(input, as: .heic, refusedUnchanged: true)
    }
}

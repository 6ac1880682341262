import KithMedia

/// The MP4/MOV location patcher on any bytes, reached through
/// `MetadataStripper` as an MP4 whether or not the file sniffs as one, so the
/// fuzzer need not first find an `ftyp` box.
enum ISOLocationPatcherHarness: FuzzHarness {
    static let name = "iso-location-patcher"

    static func run(_ input: UnsafeRawBufferPointer) {
        InPlacePatching.check(input, as: .mp4, refusedUnchanged: false)
    }
}

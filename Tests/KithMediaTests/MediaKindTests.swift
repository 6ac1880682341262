import KithTestSupport
import KithMedia
import Testing

@Suite("Media kinds")
struct MediaKindTests {
    @Test("the three kinds a gift can hold")
    func kinds() {
        #expect(MediaKind.allCases.map(\.rawValue) == ["photo", "video", "audio"])
    }
}

import KithTestSupport
import Testing

@Suite("The programs the tests use")
struct ToolTests {
    /// Elsewhere a missing program skips the tests that need it; on CI that
    /// would hide a broken set-up behind a green run.
    @Test("on CI every program a test needs is installed, so no test is skipped there", .enabled(if: Tools.onCI, "only on CI"))
    func allInstalledOnCI() {
        let missing = Tools.all.filter { Tools.path($0) == nil }
        #expect(missing.isEmpty, "missing on CI: \(missing.joined(separator: ", ")); `make test` installs them")
    }
}

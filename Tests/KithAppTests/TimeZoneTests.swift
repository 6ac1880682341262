@testable import KithApp
import Testing

@Suite("Time zones from tzdata")
struct TimeZoneTests {
    static let required = [
        "UTC", "America/New_York", "America/Santiago", "Australia/Lord_Howe", "Europe/London", "Asia/Kolkata",
    ]

    @Test("the list holds the zones people pick, including links such as UTC, sorted and without repeats")
    func list() {
        let all = TimeZones.all
        #expect(all.count > 300, "only \(all.count) zones: is tzdata installed?")
        for name in Self.required {
            #expect(all.contains(name), "\(name)")
        }
        #expect(all == all.sorted())
        #expect(Set(all).count == all.count)
        #expect(!all.contains("Factory"))
    }

    @Test("every listed zone is valid")
    func listedAreValid() {
        for name in TimeZones.all {
            #expect(TimeZones.isValid(name), "\(name)")
        }
    }

    @Test(
        "names that are not zones are refused",
        arguments: [
            "Mars/Olympus", "../etc/passwd", "", "/etc/passwd", "Europe/../Europe/London", "europe/london",
            "Europe/London ", "Factory", "zone1970.tab", "tzdata.zi", "posix", "America",
        ]
    )
    func invalid(_ name: String) {
        #expect(!TimeZones.isValid(name))
    }

    @Test("the server default is a valid zone")
    func serverDefault() {
        #expect(TimeZones.isValid(TimeZones.serverDefault))
    }
}

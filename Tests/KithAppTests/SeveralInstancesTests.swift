import Foundation
@testable import KithApp
import KithCrypto
import KithHTTP
import KithStorage
import KithTestSupport
import Testing

extension Instances {
    /// One more instance on the shared media directory, as several
    /// instances behind a proxy run.
    fileprivate func launchSharingMedia(_ environment: [String: String] = [:]) throws -> Instance {
        try launch(environment, arguments: ["--media", media])
    }

    /// Moves every waiting digest's events ten minutes into the past, so
    /// the next sweep on any instance finds them due.
    fileprivate func backdateDigests() throws {
        try database.write { tx in
            try tx.execute("UPDATE notification_digests SET first_event_at = first_event_at - 600, last_event_at = last_event_at - 600")
            try tx.execute("UPDATE notification_scopes SET last_event_at = last_event_at - 600")
        }
    }
}

/// A person signed up on one instance, and their session copied to others.
private struct Person {
    let id: Int64
    let cookie: String

    init(_ instances: Instances, on process: Instances.Instance, _ username: String) throws {
        let session = WebSession(port: process.port)
        let response = try session.post(
            "/signup",
            [("display_name", username.capitalized), ("username", username), ("password", "correct horse"), ("time_zone", "UTC")],
            csrf: try session.token(from: "/signup"))
        guard response.status == 200, let cookie = session.sessionCookie else { throw TestError("sign-up failed: \(response.status)") }
        self.cookie = cookie
        id = try instances.count("SELECT id FROM users WHERE username_key = \(username)")
    }

    /// Their signed-in session on `process`: any instance knows the cookie.
    func on(_ process: Instances.Instance) -> WebSession {
        let session = WebSession(port: process.port)
        session.setCookie("kith_session", cookie)
        return session
    }
}

/// Polls until `condition` holds, for at most `timeout` seconds.
private func eventually(_ timeout: Double, _ condition: () throws -> Bool) throws -> Bool {
    let deadline = Clock.now + timeout
    while Clock.now < deadline {
        if try condition() { return true }
        usleep(100_000)
    }
    return try condition()
}

private let states = ["ID", "OH", "UT", "TX", "CA", "NY", "WA", "OR", "NV", "AZ"]

/// Dad's game with Mom and the kid in it, made and joined across instances.
private func family(_ instances: Instances, _ a: Instances.Instance, _ b: Instances.Instance) throws -> (dad: Person, mom: Person, kid: Person, game: Int64) {
    let dad = try Person(instances, on: a, "dad")
    let mom = try Person(instances, on: b, "mom")
    let kid = try Person(instances, on: a, "kid")
    let game = try Plates.create(dad.on(a))
    let code = try #require(try instances.database.read { try InviteStore.liveCode($0, kind: "game", targetID: game) })
    for (person, process) in [(mom, b), (kid, a)] {
        let session = person.on(process)
        let joined = try session.post("/join/\(code)", [], csrf: try session.token(from: "/join/\(code)"))
        guard joined.status == 303 else { throw TestError("join failed: \(joined.status)") }
    }
    return (dad, mom, kid, game)
}

/// Spots through both instances in turn: dad all of `states`, mom and the kid one each.
private func burst(_ a: Instances.Instance, _ b: Instances.Instance, _ people: (dad: Person, mom: Person, kid: Person, game: Int64)) throws {
    let dadSessions = [people.dad.on(a), people.dad.on(b)]
    for (index, state) in states.enumerated() {
        #expect(try Plates.spot(dadSessions[index % 2], people.game, state).status == 303)
    }
    #expect(try Plates.spot(people.mom.on(b), people.game, "MT").status == 303)
    #expect(try Plates.spot(people.kid.on(a), people.game, "ME").status == 303)
}

@Suite(
    "Several instances on one PostgreSQL database", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["KITH_TEST_DATABASE"].map { !$0.isEmpty } ?? false))
struct SeveralInstancesTests {
    /// Both instances' sweepers run every few seconds; this is long enough
    /// for each to have swept at least twice more.
    static let twoSweeps = 2 * Notifications.sweepInterval + 1

    @Test("a burst of spots through two instances reaches each player as one inbox entry, once")
    func digestOnce() throws {
        guard let instances = try Instances.make() else { return }
        let a = try instances.launchSharingMedia()
        let b = try instances.launchSharingMedia()
        let people = try family(instances, a, b)
        try burst(a, b, people)
        #expect(try instances.count("SELECT count(*) FROM notifications") == 0, "nothing goes out before the quiet period")

        try instances.backdateDigests()
        #expect(try eventually(30) { try instances.count("SELECT count(*) FROM notification_digests") == 0 })
        usleep(useconds_t(Self.twoSweeps * 1_000_000))
        for person in [people.dad, people.mom, people.kid] {
            #expect(try instances.count("SELECT count(*) FROM notifications WHERE user_id = \(person.id)") == 1)
        }
        // Everyone hears of every spot but their own, in that one entry.
        #expect(try instances.count("SELECT event_count FROM notifications WHERE user_id = \(people.mom.id)") == Int64(states.count + 1))
        #expect(try instances.count("SELECT event_count FROM notifications WHERE user_id = \(people.dad.id)") == 2)
    }

    @Test("an instance killed in the middle of a sweep loses nothing: the other delivers every digest, once")
    func killedMidSweep() throws {
        guard let instances = try Instances.make() else { return }
        let marker = instances.directory.path + "/holding"
        let hold = ["KITH_TEST_HOLD_SWEEP": marker]
        let a = try instances.launchSharingMedia(hold)
        let b = try instances.launchSharingMedia(hold)
        let people = try family(instances, a, b)
        try burst(a, b, people)

        try instances.backdateDigests()
        // Whichever instance sweeps first stops with its transaction open,
        // the entries made but not committed, and says which it is.
        var holder: Int32 = 0
        #expect(try eventually(30) {
            holder = (try? String(contentsOfFile: marker, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            return holder != 0
        })
        let killed = try #require([a, b].first { $0.process.process.processIdentifier == holder })
        let survivor = killed === a ? b : a
        #expect(try instances.count("SELECT count(*) FROM notifications") == 0, "nothing is visible before the commit")
        killed.process.signal(SIGKILL)
        #expect(killed.process.wait(timeout: 10) != nil)

        #expect(try eventually(30) { try instances.count("SELECT count(*) FROM notification_digests") == 0 })
        usleep(useconds_t(Self.twoSweeps * 1_000_000))
        for person in [people.dad, people.mom, people.kid] {
            #expect(try instances.count("SELECT count(*) FROM notifications WHERE user_id = \(person.id)") == 1)
        }
        #expect(try instances.count("SELECT event_count FROM notifications WHERE user_id = \(people.mom.id)") == Int64(states.count + 1))
        #expect(try people.mom.on(survivor).get("/inbox").text.contains("Dad"), "the survivor serves the delivered entry")
    }

    @Test("a tally due for its reset is reset once, by one of two instances")
    func tallyResetOnce() throws {
        guard let instances = try Instances.make() else { return }
        let a = try instances.launchSharingMedia()
        let ada = try Person(instances, on: a, "ada")
        let session = ada.on(a)
        let created = try session.post(
            "/tallies", [("name", "Coffee"), ("count", "4"), ("schedule", "daily"), ("fireworks", "on")],
            csrf: try session.token(from: "/tallies/new"))
        let id = try #require(created.header("Location").flatMap { Int64($0.split(separator: "/").last ?? "") })
        // Due since a minute ago; both instances tick once as they start.
        try instances.database.write { tx in
            try tx.execute("UPDATE tallies SET next_reset_at = \(Int64(time(nil)) - 60) WHERE id = \(id)")
        }
        _ = try instances.launchSharingMedia()
        _ = try instances.launchSharingMedia()
        #expect(try eventually(40) { try instances.count("SELECT count FROM tallies WHERE id = \(id)") == 0 })
        usleep(2_000_000)
        #expect(try instances.count("SELECT count(*) FROM tally_history WHERE tally_id = \(id) AND kind = 'reset'") == 1)
        #expect(try instances.count("SELECT next_reset_at FROM tallies WHERE id = \(id)") > Int64(time(nil)), "the next reset is tomorrow's")
    }

    @Test("a photo uploaded through one instance is served by another from the shared media directory, its variants made once")
    func sharedMedia() throws {
        guard let instances = try Instances.make() else { return }
        let a = try instances.launchSharingMedia()
        let b = try instances.launchSharingMedia()
        let host = try Person(instances, on: a, "hana")
        let friend = try Person(instances, on: b, "fred")
        let hostSession = host.on(a)
        let created = try hostSession.post(
            "/occasions",
            [("name", "Alex turns 30"), ("kind", "birthday"), ("celebrant_name", "Alex"), ("date", "2026-12-12"), ("host_name", "Hana")],
            csrf: try hostSession.token(from: "/occasions/new"))
        let occasion = try #require(created.header("Location")?.split(separator: "/").compactMap { Int64($0) }.first)
        let code = try #require(
            try instances.database.read { try InviteStore.liveCode($0, kind: OccasionRoutes.contributorInvite, targetID: occasion) })
        let onA = friend.on(a)
        #expect(try onA.post("/join/\(code)", [], csrf: try onA.token(from: "/join/\(code)")).status == 303)

        var form = MultipartForm()
        form.field("_csrf", try onA.token(from: "/occasions/\(occasion)/gift"))
        form.file("photo", filename: "canvas.jpg", type: "image/jpeg", Fixture.canvasJPEG)
        let uploaded = try onA.post(
            "/occasions/\(occasion)/gift/photos", rawBody: form.body, headers: ["Content-Type": MultipartForm.contentType])
        #expect(uploaded.status == 303, "\(uploaded.text.prefix(300))")
        let media = try instances.count("SELECT id FROM occasion_media")
        let sha256 = try #require(try instances.database.read { try $0.queryValue("SELECT sha256 FROM occasion_media", as: String.self) })
        #expect(FileManager.default.fileExists(atPath: "\(instances.media)/media/\(sha256.prefix(2))/\(sha256)"))

        let served = try friend.on(b).get("/occasions/\(occasion)/media/\(media)")
        #expect(served.status == 200)
        #expect(SHA256.hex(served.body) == sha256, "B serves the very bytes A stored")

        // Both instances' makers were told or will tick; one makes the photo.
        #expect(try eventually(60) { try instances.count("SELECT count(*) FROM media_photos WHERE state <> 'pending'") == 1 })
        #expect(try instances.count("SELECT count(*) FROM media_photos WHERE state = 'ready'") == 1)
        #expect(try instances.count("SELECT count(*) FROM task_leases") == 0, "the maker gave its lease up with the variants")
        let variant = try #require(
            try instances.database.read { try $0.queryValue("SELECT width FROM media_variants WHERE format = 'webp'", as: Int64.self) })
        let small = try friend.on(b).get("/occasions/\(occasion)/media/\(media)?w=\(variant)&f=webp")
        #expect(small.status == 200 && small.header("Content-Type") == "image/webp")
        let partials = filesBelow(instances.media).filter { $0.contains(".partial") }
        #expect(partials.isEmpty, "no temporary file stays in the shared directory: \(partials)")
    }
}

@Suite("Leases on background work")
struct LeaseTests {
    @Test("a lease is held by one instance until it is given up or runs out, then another may take it")
    func claimAndExpire() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try AppHarness()
        let first = Leases(clock: { clock.value })
        let second = Leases(clock: { clock.value })
        #expect(first.holder != second.holder)
        let database = app.app.database
        #expect(try database.write { try first.claim($0, "photo:x", seconds: 60) })
        #expect(try !database.write { try second.claim($0, "photo:x", seconds: 60) }, "held by the first")
        #expect(try database.write { try first.claim($0, "photo:x", seconds: 60) }, "the holder renews")
        #expect(try database.write { try second.claim($0, "photo:y", seconds: 60) }, "another name is free")

        clock.withLock { $0 += 61 }
        #expect(try database.write { try second.claim($0, "photo:x", seconds: 60) }, "a lease that ran out is taken over")
        #expect(try !database.write { try first.claim($0, "photo:x", seconds: 60) })
        try database.write { try first.release($0, "photo:x") }
        #expect(try !database.write { try first.claim($0, "photo:x", seconds: 60) }, "only the holder's release counts")
        try database.write { try second.release($0, "photo:x") }
        #expect(try database.write { try first.claim($0, "photo:x", seconds: 60) })
    }

    @Test("the photo maker leaves a photo another instance holds, and makes it once that lease runs out")
    func makerSkipsClaimedPhoto() throws {
        let clock = Locked<Int64>(1_800_000_000)
        let app = try AppHarness(configure: { $0.clock = { clock.value } })
        let elsewhere = Leases(clock: { clock.value })
        let mine = Leases(clock: { clock.value })
        let sha256 = String(repeating: "a", count: 64)
        try app.app.database.write { tx in
            try tx.execute("""
                INSERT INTO media_files (sha256, mime_type, kind, byte_count, created_at)
                VALUES (\(sha256), 'image/jpeg', 'photo', 10, \(clock.value))
                """)
            #expect(try elsewhere.claim(tx, MediaStore.leaseName(sha256), seconds: 300))
        }
        let media = app.app.media
        #expect(try app.app.database.read { try media.nextPhotoWithoutVariants($0, leases: mine) } == nil)
        #expect(try app.app.database.read { try media.nextPhotoWithoutVariants($0, leases: elsewhere) }?.sha256 == sha256)
        clock.withLock { $0 += 301 }
        #expect(try app.app.database.read { try media.nextPhotoWithoutVariants($0, leases: mine) }?.sha256 == sha256)
    }

    @Test("on SQLite a restart frees the leases its predecessor held; on PostgreSQL they only run out")
    func restartFreesLeasesOnSQLite() throws {
        let app = try AppHarness()
        let database = app.app.database
        let dead = Leases(clock: { 1_800_000_000 })
        #expect(try database.write { try dead.claim($0, "photo:z", seconds: 600) })
        try Leases.forgetPredecessors(database)
        let left = try database.read { try $0.queryValue("SELECT count(*) FROM task_leases", as: Int64.self) }
        #expect(left == (database.dialect == .sqlite ? 0 : 1))
    }
}

@Suite("A shared media directory")
struct SharedMediaDirectoryTests {
    @Test("--media and KITH_MEDIA choose the media directory (the flag wins); without them media stays in the data directory")
    func option() throws {
        let plain = try CommandLineParser.parse(["--data", "/srv/kith"], environment: [:]).1
        #expect(plain.mediaDirectory == nil && plain.effectiveMediaDirectory == "/srv/kith")
        #expect(try CommandLineParser.parse([], environment: ["KITH_MEDIA": "/mnt/shared"]).1.effectiveMediaDirectory == "/mnt/shared")
        let both = try CommandLineParser.parse(["--media", "/mnt/other"], environment: ["KITH_MEDIA": "/mnt/shared"]).1
        #expect(both.effectiveMediaDirectory == "/mnt/other")
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["--media"], environment: [:]) }
        #expect(CommandLineParser.usage.contains("--media DIR"))
        let store = MediaStore(dataDirectory: "/srv/kith", mediaDirectory: "/mnt/shared")
        #expect([store.directory, store.variantDirectory] == ["/mnt/shared/media", "/mnt/shared/variants"])
        #expect(store.workDirectory.hasPrefix("/srv/kith/"), "each instance makes its variants in a folder of its own")
    }

    @Test("with --media, uploads land in that directory (another filesystem here), not in the data directory")
    func uploadsGoToTheMediaDirectory() throws {
        // /dev/shm is tmpfs: the rename from DATA/tmp (under /tmp) crosses filesystems.
        let parent = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : "/tmp"
        let shared = "\(parent)/kith-media-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: shared) }
        let app = try AppHarness(configure: {
            $0.passwordParameters = .init(memoryKiB: 256, iterations: 1, parallelism: 1)
            $0.mediaDirectory = shared
        })
        let party = try OccasionParty.make(app, contributors: 1)
        let response = try party.upload(party.contributors[0], "photos", files: [("a.jpg", "image/jpeg", Fixture.canvasJPEG)])
        #expect(response.status == 303, "\(response.text.prefix(300))")
        try party.waitForVariants(timeout: 60)
        let sha256 = try #require(try party.mediaHashes(gift: try party.giftOf("friend_1")).first)
        let variants = try party.variants(of: sha256)
        #expect(!variants.isEmpty)
        #expect(variants.allSatisfy { variant in
            FileManager.default.fileExists(atPath: "\(shared)/variants/\(variant.sha256.prefix(2))/\(variant.sha256)")
        })
        #expect(FileManager.default.fileExists(atPath: "\(shared)/media/\(sha256.prefix(2))/\(sha256)"))
        #expect(filesBelow(app.app.configuration.dataDirectory + "/media").isEmpty)
        #expect(filesBelow(shared).allSatisfy { !$0.contains(".partial") })
        let media = try #require(try party.mediaIDs(gift: try party.giftOf("friend_1")).first)
        let served = try party.contributors[0].get("\(party.base)/media/\(media)")
        #expect(served.status == 200 && SHA256.hex(served.body) == sha256)
    }

    @Test("on a shared directory a young file no row names is kept at start (it may be another instance's upload); an old one goes")
    func orphansAreAged() throws {
        let shared = try TemporaryDirectory("kith-media")
        let store = MediaStore(dataDirectory: shared.path + "/data", mediaDirectory: shared.path)
        let app = try AppHarness()
        try store.prepare(app.app.database)
        let young = String(repeating: "b", count: 64), old = String(repeating: "c", count: 64)
        for name in [young, old] {
            try FileManager.default.createDirectory(atPath: "\(store.directory)/\(name.prefix(2))", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: store.path(for: name), contents: Data("x".utf8))
        }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: store.path(for: old))
        try store.sweepOrphans(app.app.database)
        #expect(FileManager.default.fileExists(atPath: store.path(for: young)))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: old)))
    }
}

@Suite("The VAPID key on a shared directory")
struct SharedVAPIDKeyTests {
    @Test("instances sharing a media directory sign with one VAPID key; an instance's own earlier key is the one shared")
    func oneKey() throws {
        let app = try AppHarness()
        let root = try TemporaryDirectory("kith-vapid")
        for name in ["a", "b", "c", "shared", "shared-c"] {
            try FileManager.default.createDirectory(atPath: root.file(name), withIntermediateDirectories: false)
        }
        func service(_ data: String, _ key: String?) -> PushService {
            PushService(
                database: app.app.database, dataDirectory: root.file(data), keyDirectory: key.map(root.file),
                baseURL: { "http://localhost" }, logger: Logger(enabled: false))
        }
        let first = try service("a", "shared").publicKey()
        #expect(try service("b", "shared").publicKey() == first, "the second instance reads the first one's key")
        #expect(FileManager.default.fileExists(atPath: root.file("shared/vapid.key")))
        #expect(!FileManager.default.fileExists(atPath: root.file("b/vapid.key")))

        let before = try service("c", nil).publicKey()
        #expect(before != first)
        #expect(try service("c", "shared-c").publicKey() == before, "subscriptions made before sharing keep working")
        #expect(MediaStore.entries(of: root.file("shared")).filter { $0.contains(".tmp") }.isEmpty)
    }
}

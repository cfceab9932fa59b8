import DropTrackConsole
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackRuntime
import DropTrackStore
import DropTrackTesting
import Foundation
import Testing

/// The operator console over real HTTP: sign-in, the cookie, sessions, CSRF and same-origin checks,
/// pages only for the signed-in app.
@Suite("Console", .serialized)
struct ConsoleTests {
    static let origin = "http://127.0.0.1"

    /// Opens the sign-in form and answers with its CSRF value (also set as the login cookie).
    func loginToken(_ harness: ServerHarness) throws -> String {
        let form = try harness.call("GET", "/console/login", key: nil)
        #expect(form.status == 200)
        let cookie = try #require(form.headers["set-cookie"])
        #expect(
            cookie.hasPrefix("dt_console_login=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let token = String(cookie.dropFirst("dt_console_login=".count).prefix { $0 != ";" })
        #expect(form.text.contains("value=\"\(token)\""))
        return token
    }

    func post(
        _ harness: ServerHarness, _ path: String, _ body: String, cookie: String, origin: String? = Self.origin
    ) throws -> APIAnswer {
        var headers = ["Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie]
        if let origin { headers["Origin"] = origin }
        return try harness.call("POST", path, body, key: nil, headers: headers)
    }

    /// Signs in with `key` and answers with the session cookie (`dt_console=…`).
    func signIn(_ harness: ServerHarness, key: String = "key-app1") throws -> (cookie: String, setCookie: String) {
        let token = try loginToken(harness)
        let answer = try post(
            harness, "/console/login", "key=\(key)&csrf=\(token)", cookie: "dt_console_login=\(token)")
        #expect(answer.status == 303)
        #expect(answer.headers["location"] == "/console/")
        let setCookie = try #require(answer.headers["set-cookie"])
        return (String(setCookie.prefix { $0 != ";" }), setCookie)
    }

    func get(_ harness: ServerHarness, _ path: String, cookie: String?) throws -> APIAnswer {
        try harness.call("GET", path, key: nil, headers: cookie.map { ["Cookie": $0] } ?? [:])
    }

    func csrf(of page: APIAnswer) throws -> String {
        let marker = "name=\"csrf\" value=\""
        let range = try #require(page.text.range(of: marker))
        return String(page.text[range.upperBound...].prefix { $0 != "\"" })
    }

    @Test(
        "sign in with the key: a session cookie (HttpOnly, SameSite=Strict, Path=/console), the key nowhere; sign out ends it"
    )
    func signInAndOut() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let (cookie, setCookie) = try signIn(harness)
        #expect(
            setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict")
                && setCookie.contains("Path=/console"))
        #expect(!setCookie.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never come back")
        #expect(!setCookie.contains("key-app1"))
        let home = try get(harness, "/console/", cookie: cookie)
        #expect(home.status == 200)
        #expect(home.text.contains("app1") && !home.text.contains("key-app1"))
        #expect(home.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        #expect(home.headers["x-frame-options"] == "DENY" && home.headers["referrer-policy"] == "no-referrer")
        let logged = harness.logs.entries
        #expect(
            !logged.contains { "\($0.message) \($0.metadata)".contains("key-app1") }, "the key never reaches the log")
        #expect(logged.contains { $0.message == "console.signed_in" && $0.metadata["keyFingerprint"] != nil })

        let token = try csrf(of: home)
        let out = try post(harness, "/console/logout", "csrf=\(token)", cookie: cookie)
        #expect(out.status == 303 && out.headers["location"] == "/console/login")
        #expect(out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        let after = try get(harness, "/console/", cookie: cookie)
        #expect(after.status == 303 && after.headers["location"] == "/console/login")
    }

    @Test(
        "replicas on one store share sessions: signed in on one, known to another and to a restart; signed out everywhere",
        arguments: StoreEngine.allCases)
    func sessionsShared(engine: StoreEngine) throws {
        let store = try engine.make()
        let first = try ServerHarness(store: store)
        defer { first.stop() }
        let second = try ServerHarness(store: store)
        defer { second.stop() }
        let (cookie, _) = try signIn(first)
        let elsewhere = try get(second, "/console/", cookie: cookie)
        #expect(elsewhere.status == 200 && elsewhere.text.contains("app1"))
        let id = String(cookie.dropFirst("dt_console=".count))
        #expect(
            try store.transaction { try $0.consoleSession(idDigest: id) } == nil, "the store keeps a digest, not the id"
        )
        let token = try csrf(of: elsewhere)
        #expect(try post(second, "/console/logout", "csrf=\(token)", cookie: cookie).status == 303)
        let after = try get(first, "/console/", cookie: cookie)
        #expect(after.status == 303 && after.headers["location"] == "/console/login")
    }

    @Test("a store that cannot keep sessions answers 503 with Retry-After, never a sign-in page or a crash")
    func sessionStoreDown() throws {
        let path = makeTemporaryDirectory("console-store") + "/droptrack.sqlite"
        let harness = try ServerHarness(store: try SQLiteStore(path: path))
        defer { harness.stop() }
        let (cookie, _) = try signIn(harness)
        let token = try loginToken(harness)
        // Another process breaks the table under the server.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, "DROP TABLE console_sessions"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let page = try get(harness, "/console/", cookie: cookie)
        #expect(page.status == 503 && page.headers["retry-after"] == "5")
        #expect(page.text.contains("the store does not answer"))
        let signIn = try post(
            harness, "/console/login", "key=key-app1&csrf=\(token)", cookie: "dt_console_login=\(token)")
        #expect(signIn.status == 503 && signIn.headers["set-cookie"] == nil)
        let id = String(cookie.dropFirst("dt_console=".count))
        let failures = harness.logs.entries.filter { $0.message == "console.store_failed" }
        #expect(failures.count == 2)
        #expect(!failures.contains { "\($0.metadata)".contains(id) }, "the session id never reaches the log")
    }

    @Test("a wrong key is refused with 401 and no session; pages answer 303 to sign-in without one")
    func wrongKey() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let token = try loginToken(harness)
        let answer = try post(
            harness, "/console/login", "key=not-a-key&csrf=\(token)", cookie: "dt_console_login=\(token)")
        #expect(answer.status == 401)
        #expect(answer.headers["set-cookie"]?.hasPrefix("dt_console=") != true)
        #expect(try harness.server.console?.sessions.count() == 0)
        for path in [
            "/console", "/console/", "/console/tokens", "/console/plots", "/console/events", "/console/activities/a1",
        ] {
            let page = try get(harness, path, cookie: "dt_console=forged")
            #expect(page.status == 303 && page.headers["location"] == "/console/login", "\(path)")
        }
    }

    @Test("cross-site posts change nothing: another Origin, no Origin or Referer, a missing or wrong CSRF token")
    func crossSiteRefused() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let token = try loginToken(harness)
        let loginCookie = "dt_console_login=\(token)"
        let body = "key=key-app1&csrf=\(token)"
        #expect(
            try post(harness, "/console/login", body, cookie: loginCookie, origin: "https://evil.example").status == 403
        )
        #expect(try post(harness, "/console/login", body, cookie: loginCookie, origin: nil).status == 403)
        #expect(try post(harness, "/console/login", "key=key-app1", cookie: loginCookie).status == 403)
        #expect(try post(harness, "/console/login", "key=key-app1&csrf=\(token)", cookie: "").status == 403)
        // What Chromium sends under the pages' Referrer-Policy: no-referrer: Origin null, and where the request
        // came from in Sec-Fetch-Site, which no page can set.
        let fromBrowser = [
            "Content-Type": "application/x-www-form-urlencoded", "Cookie": loginCookie, "Origin": "null",
        ]
        var crossSite = fromBrowser
        crossSite["Sec-Fetch-Site"] = "cross-site"
        #expect(try harness.call("POST", "/console/login", body, key: nil, headers: crossSite).status == 403)
        #expect(try harness.call("POST", "/console/login", body, key: nil, headers: fromBrowser).status == 403)
        #expect(try harness.server.console?.sessions.count() == 0)
        var sameOrigin = fromBrowser
        sameOrigin["Sec-Fetch-Site"] = "same-origin"
        #expect(try harness.call("POST", "/console/login", body, key: nil, headers: sameOrigin).status == 303)
        #expect(try harness.server.console?.sessions.count() == 1)

        let (cookie, _) = try signIn(harness)
        let home = try get(harness, "/console/", cookie: cookie)
        let csrf = try csrf(of: home)
        #expect(
            try post(harness, "/console/logout", "csrf=\(csrf)", cookie: cookie, origin: "http://evil.example").status
                == 403)
        #expect(try post(harness, "/console/logout", "", cookie: cookie).status == 403)
        #expect(try post(harness, "/console/logout", "csrf=wrong", cookie: cookie).status == 403)
        #expect(try get(harness, "/console/", cookie: cookie).status == 200, "still signed in")
    }

    @Test("a session ends 12 h after sign-in, and after an hour idle (injected clock)")
    func sessionExpiry() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let harness = try ServerHarness(clock: clock)
        defer { harness.stop() }
        let (busy, _) = try signIn(harness)
        let (idle, _) = try signIn(harness)
        for _ in 0..<14 {
            clock.advance(by: 50 * 60)
            #expect(try get(harness, "/console/", cookie: busy).status == 200)
        }
        #expect(try get(harness, "/console/", cookie: idle).status == 303, "idle for 11 h 40 min")
        clock.advance(by: 30 * 60)
        #expect(try get(harness, "/console/", cookie: busy).status == 303, "past 12 h, however busy")
    }

    @Test(
        "activities of the signed-in app only: listed, filtered, opened with devices, timeline and diagnosis; another app's is 404"
    )
    func pages() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let start = deliveryStart.replacingOccurrences(of: "order-9", with: "order-1")
        let started = try harness.call("POST", "/v1/activities", start)
        #expect(started.status == 201, "\(started.text)")
        let other = start.replacingOccurrences(of: "order-1", with: "order-2")
        #expect(try harness.call("POST", "/v1/activities", other, key: "key-app2").status == 201)
        let (cookie, _) = try signIn(harness)
        let list = try get(harness, "/console/", cookie: cookie)
        #expect(list.status == 200 && list.text.contains("order-1") && !list.text.contains("order-2"))
        #expect(try get(harness, "/console/?state=ended", cookie: cookie).text.contains("order-1") == false)
        let detail = try get(harness, "/console/activities/order-1", cookie: cookie)
        #expect(detail.status == 200 && detail.text.contains("Diagnosis") && detail.text.contains("Timeline"))
        #expect(try get(harness, "/console/activities/order-2", cookie: cookie).status == 404)
        #expect(try get(harness, "/console/tokens", cookie: cookie).status == 200)
        let plots = try get(harness, "/console/plots", cookie: cookie)
        #expect(plots.status == 200 && plots.text.components(separatedBy: "<svg").count == 4)
        #expect(plots.text.contains("process \(getpid())"), "names the replica whose counters it plots")
        #expect(try get(harness, "/console/console.js", cookie: nil).status == 200, "the files need no session")
    }

    @Test("the console's event stream needs the session cookie")
    func streamNeedsCookie() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        #expect(try get(harness, "/console/stream", cookie: nil).status == 401)
        let (cookie, _) = try signIn(harness)
        let connection = try RawConnection(port: harness.port)
        defer { connection.close() }
        try connection.send("GET /console/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookie)\r\n\r\n")
        let head = try connection.readHead()
        #expect(head.status == 200 && head.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        let first = String(decoding: try connection.readChunk() ?? [], as: UTF8.self)
        #expect(first.contains("event: ready") && first.contains("app1"))
    }

    @Test("sign-in attempts are limited: past a burst of 20, 429 with Retry-After until the clock moves on")
    func signInLimited() throws {
        let clock = ManualWallClock(unixSeconds: 1_796_000_000)
        let harness = try ServerHarness(clock: clock)
        defer { harness.stop() }
        let token = try loginToken(harness)
        let cookie = "dt_console_login=\(token)"
        for _ in 0..<20 {
            #expect(try post(harness, "/console/login", "key=guess&csrf=\(token)", cookie: cookie).status == 401)
        }
        let refused = try post(harness, "/console/login", "key=key-app1&csrf=\(token)", cookie: cookie)
        #expect(refused.status == 429 && refused.headers["retry-after"] == "1")
        clock.advance(by: 2)
        #expect(try post(harness, "/console/login", "key=key-app1&csrf=\(token)", cookie: cookie).status == 303)
    }

    @Test("behind a TLS proxy (X-Forwarded-Proto: https) the cookie is Secure and https://host is this site")
    func secureBehindProxy() throws {
        let harness = try ServerHarness()
        defer { harness.stop() }
        let token = try loginToken(harness)
        let answer = try harness.call(
            "POST", "/console/login", "key=key-app1&csrf=\(token)", key: nil,
            headers: [
                "Content-Type": "application/x-www-form-urlencoded", "Cookie": "dt_console_login=\(token)",
                "Origin": "https://127.0.0.1", "X-Forwarded-Proto": "https",
            ])
        #expect(answer.status == 303)
        let cookie = try #require(answer.headers["set-cookie"])
        #expect(cookie.hasPrefix("dt_console=") && cookie.contains("; Secure"))
    }

    @Test("with console false, /console is not served")
    func turnedOff() throws {
        let harness = try ServerHarness(tweak: { $0.console = false })
        defer { harness.stop() }
        #expect(try harness.call("GET", "/console/login", key: nil).status == 404)
    }
}

import DropTrackAPI
import DropTrackCore
import DropTrackHTTP1
import DropTrackModel
import Foundation

extension ConsoleRoutes {
    /// The sign-in form, with a fresh CSRF value in the form and in a cookie only this path receives.
    func loginForm(_ request: HTTPRequest, status: Int = 200, problem: String? = nil) -> HTTPReply {
        guard request.method == "GET" || request.method == "HEAD" || status != 200 else { return Self.notAllowed }
        // A store that cannot say shows the form; signing in then answers 503.
        if status == 200, (try? signedIn(request)) != nil { return ConsoleHTTP.seeOther("/console/") }
        let token = ConsoleSessions.randomToken()
        let cookie = ConsoleHTTP.cookie(
            ConsoleHTTP.loginCookie, token, path: "/console/login", maxAge: 3600, secure: ConsoleHTTP.isHTTPS(request))
        return ConsoleHTTP.page(
            status, ConsolePages.login(csrfToken: token, problem: problem), extra: [("Set-Cookie", cookie)])
    }

    /// `POST /console/login` `key=…&csrf=…`: from this host's own form only; a right key starts a session.
    func signIn(_ request: HTTPRequest) -> HTTPReply {
        if let refusal = ConsoleHTTP.crossSiteRefusal(request) {
            logger.warning("console.cross_site_refused", ["route": "/console/login"])
            return ConsoleHTTP.page(403, ConsolePages.refusal(refusal))
        }
        guard let form = ConsoleHTTP.form(request) else {
            return ConsoleHTTP.page(
                415, ConsolePages.refusal("send the sign-in form (application/x-www-form-urlencoded)"))
        }
        // The CSRF pair first: a post without it costs no attempt, so junk cannot spend the buckets.
        let expected = ConsoleHTTP.cookies(request)[ConsoleHTTP.loginCookie] ?? ""
        guard !expected.isEmpty, ConsoleSessions.constantTimeEqual(form["csrf"] ?? "", expected) else {
            return loginForm(request, status: 403, problem: "the form expired; sign in again")
        }
        if let wait = signInAttempts.take(from: request.clientAddress) {
            let seconds = max(1, Int(wait.rounded(.up)))
            return ConsoleHTTP.page(
                429, ConsolePages.refusal("too many sign-in attempts; try again in \(seconds) s"),
                extra: [("Retry-After", String(seconds))])
        }
        let key = (form["key"] ?? "").trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty, let app = keyring.app(forKey: key) else {
            // Only the fingerprint: a key pasted into the wrong field must not end up in the log.
            logger.notice(
                "console.sign_in_refused", key.isEmpty ? [:] : ["keyFingerprint": Fingerprint(of: key).value])
            return loginForm(request, status: 401, problem: "that key belongs to no app on this server")
        }
        let session: ConsoleSession
        do {
            session = try sessions.create(app: app, keyFingerprint: Fingerprint(of: key).value)
        } catch {
            return sessionsUnavailable(error)
        }
        logger.notice("console.signed_in", ["app": app.rawValue, "keyFingerprint": session.keyFingerprint])
        let secure = ConsoleHTTP.isHTTPS(request)
        return ConsoleHTTP.seeOther(
            "/console/",
            cookies: [
                ConsoleHTTP.cookie(ConsoleHTTP.loginCookie, "", path: "/console/login", maxAge: 0, secure: secure),
                ConsoleHTTP.cookie(
                    ConsoleHTTP.sessionCookie, session.id, path: "/console",
                    maxAge: Int(sessions.limits.lifetime), secure: secure),
            ])
    }

    /// `POST /console/logout` `csrf=…`: ends the session and clears the cookie.
    func signOut(_ request: HTTPRequest) -> HTTPReply {
        if let refusal = ConsoleHTTP.crossSiteRefusal(request) {
            logger.warning("console.cross_site_refused", ["route": "/console/logout"])
            return ConsoleHTTP.page(403, ConsolePages.refusal(refusal))
        }
        let signedIn: ConsoleSession?
        do {
            signedIn = try self.signedIn(request)
        } catch {
            return sessionsUnavailable(error)
        }
        guard let session = signedIn else { return ConsoleHTTP.seeOther("/console/login") }
        guard let form = ConsoleHTTP.form(request),
            ConsoleSessions.constantTimeEqual(form["csrf"] ?? "", session.csrfToken)
        else {
            return ConsoleHTTP.page(
                403, ConsolePages.refusal("the form's CSRF token is missing or wrong; reload the page"))
        }
        do {
            try sessions.end(id: session.id)
        } catch {
            return sessionsUnavailable(error)
        }
        logger.notice("console.signed_out", ["app": session.app.rawValue, "keyFingerprint": session.keyFingerprint])
        return ConsoleHTTP.seeOther(
            "/console/login",
            cookies: [
                ConsoleHTTP.cookie(
                    ConsoleHTTP.sessionCookie, "", path: "/console", maxAge: 0, secure: ConsoleHTTP.isHTTPS(request))
            ])
    }
}

/// Sign-in attempts that carried the form's CSRF pair: a bucket per client address (1 a second,
/// bursts of 20), and above them one for every address together (10 a second, bursts of 100), so
/// many addresses together cannot make the server check keys without end. Keys are long and random:
/// this keeps a guessing loop from costing the server, not from finding a key.
struct SignInAttempts: Sendable {
    let perAddress: RateLimiter
    let overall: RateLimiter

    init(clock: any WallClock) {
        perAddress = RateLimiter(rate: 1, burst: 20, capacity: 10_000, clock: clock)
        overall = RateLimiter(rate: 10, burst: 100, clock: clock)
    }

    /// Takes an attempt for `address`; nil if allowed, else the seconds until one is.
    func take(from address: String) -> Double? {
        if let wait = perAddress.take(address) { return wait }
        return overall.take("all")
    }
}

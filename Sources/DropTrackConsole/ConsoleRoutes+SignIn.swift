import DropTrackAPI
import DropTrackCore
import DropTrackHTTP1
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
        if let wait = signInAttempts.take("sign-in") {
            let seconds = Int(wait.rounded(.up))
            return ConsoleHTTP.page(
                429, ConsolePages.refusal("too many sign-in attempts; try again in \(seconds) s"),
                extra: [("Retry-After", String(seconds))])
        }
        let expected = ConsoleHTTP.cookies(request)[ConsoleHTTP.loginCookie] ?? ""
        guard !expected.isEmpty, ConsoleSessions.constantTimeEqual(form["csrf"] ?? "", expected) else {
            return loginForm(request, status: 403, problem: "the form expired; sign in again")
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
        logger.notice("console.signed_in", ["app": app, "keyFingerprint": session.keyFingerprint])
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
        logger.notice("console.signed_out", ["app": session.app, "keyFingerprint": session.keyFingerprint])
        return ConsoleHTTP.seeOther(
            "/console/login",
            cookies: [
                ConsoleHTTP.cookie(
                    ConsoleHTTP.sessionCookie, "", path: "/console", maxAge: 0, secure: ConsoleHTTP.isHTTPS(request))
            ])
    }
}

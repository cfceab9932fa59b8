import DropTrackHTTP1
import Foundation

/// What the console reads from requests and how it answers: cookies, form bodies, the same-origin
/// rule for changes, and responses with the security headers every console page carries.
enum ConsoleHTTP {
    /// The session cookie's name.
    static let sessionCookie = "dt_console"
    /// The sign-in form's own CSRF cookie: before a session exists, the form and the cookie must carry
    /// the same random value (a cross-site page can send neither).
    static let loginCookie = "dt_console_login"

    /// No inline script or style: everything comes from the console's own files.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy), ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"), ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store"),
    ]

    /// The request's cookies by name (the first of a repeated name wins).
    static func cookies(_ request: HTTPRequest) -> [String: String] {
        var cookies: [String: String] = [:]
        for pair in (request.headers["cookie"] ?? "").split(separator: ";").prefix(64) {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, cookies[parts[0]] == nil else { continue }
            cookies[parts[0]] = parts[1]
        }
        return cookies
    }

    /// An `application/x-www-form-urlencoded` body's fields; nil for another media type.
    static func form(_ request: HTTPRequest) -> [String: String]? {
        let type = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/x-www-form-urlencoded" else { return nil }
        var fields: [String: String] = [:]
        for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&").prefix(64) {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            fields[parts[0]] = parts.count == 2 ? parts[1] : ""
        }
        return fields
    }

    /// Whether the request came over HTTPS, as a reverse proxy says. Trusting the header is safe here:
    /// it only adds `Secure` to the cookie and `https://` to the accepted origin, so a forged value can
    /// only keep the sender's own cookie from coming back.
    static func isHTTPS(_ request: HTTPRequest) -> Bool {
        request.headers["x-forwarded-proto"]?.lowercased() == "https"
    }

    /// Why a state-changing request is not from the console's own pages, or nil when it is.
    ///
    /// The console's pages send `Referrer-Policy: no-referrer`, under which browsers send `Origin: null`
    /// and no `Referer` even for the console's own forms. So the browser's `Sec-Fetch-Site` (a header no
    /// page can set) decides where it is sent: it must be `same-origin`. Without it (older browsers) the
    /// `Origin`, or else the `Referer`, must be this `Host`; `Origin: null` alone proves nothing.
    static func crossSiteRefusal(_ request: HTTPRequest) -> String? {
        guard let host = request.headers["host"], !host.isEmpty else { return "the request names no Host" }
        let own = ["http://" + host, "https://" + host]
        let origin = request.headers["origin"]
        if let origin, origin != "null", !own.contains(origin) {
            return "the request comes from another site (Origin \(origin.prefix(100)))"
        }
        if let site = request.headers["sec-fetch-site"] {
            return site == "same-origin"
                ? nil : "the browser says the request comes from another site (\(site.prefix(20)))"
        }
        if let origin, origin != "null" { return nil }
        if let referer = request.headers["referer"] {
            return own.contains(where: { referer == $0 || referer.hasPrefix($0 + "/") })
                ? nil : "the request comes from another site (Referer)"
        }
        return "the request does not say it comes from this site (no Sec-Fetch-Site, Origin or Referer)"
    }

    /// A console page or file with the security headers.
    static func page(
        _ status: Int, _ body: String, type: String = "text/html; charset=utf-8", extra: [(String, String)] = []
    )
        -> HTTPReply
    {
        .response(
            HTTPResponse(
                status: status, headers: [("Content-Type", type)] + securityHeaders + extra.map { ($0.0, $0.1) },
                body: Array(body.utf8)))
    }

    /// A 303 to `location` (after a form post, or to the sign-in page).
    static func seeOther(_ location: String, cookies: [String] = []) -> HTTPReply {
        .response(
            HTTPResponse(
                status: 303, headers: [("Location", location)] + securityHeaders + cookies.map { ("Set-Cookie", $0) }))
    }

    /// A `Set-Cookie` value: never readable by scripts, never sent by other sites, only under `path`.
    static func cookie(_ name: String, _ value: String, path: String, maxAge: Int?, secure: Bool) -> String {
        var text = "\(name)=\(value); Path=\(path); HttpOnly; SameSite=Strict"
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        if secure { text += "; Secure" }
        return text
    }

    /// Text safe inside HTML element content and quoted attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A path segment for a link (then escaped for HTML by the caller).
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

import DropTrackCore
import DropTrackModel
import DropTrackStore
import Foundation

/// The console's HTML, rendered on the server: every value from the store goes through
/// `ConsoleHTTP.escape`, and the pages hold no script or style of their own (the CSP allows none).
struct ConsolePages {
    let session: ConsoleSession
    let now: Date

    typealias Escape = ConsoleHTTP

    static func document(title: String, body: String, bodyClass: String = "") -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Escape.escape(title)) · DropTrack console</title>
        <link rel="stylesheet" href="/console/console.css">
        <script src="/console/console.js" defer></script>
        </head><body class="\(bodyClass)">
        \(body)
        </body></html>
        """
    }

    /// A page of the signed-in console: the app, the navigation and the sign-out form.
    func layout(_ title: String, current: String, _ content: String, bodyClass: String = "") -> String {
        let links = [
            ("/console/", "Activities"), ("/console/events", "Live events"), ("/console/tokens", "Tokens"),
            ("/console/plots", "Plots"),
        ]
        let nav = links.map { link in
            "<a href=\"\(link.0)\"\(link.1 == current ? " aria-current=\"page\"" : "")>\(link.1)</a>"
        }.joined()
        return Self.document(
            title: title,
            body: """
                <header><span class="brand">DropTrack</span><span class="app">app <b>\(Escape.escape(session.app.rawValue))</b></span>
                <nav>\(nav)</nav>
                <form method="post" action="/console/logout" class="signout">
                <input type="hidden" name="csrf" value="\(session.csrfToken)"><button type="submit">Sign out</button></form>
                </header>
                <main><h1>\(Escape.escape(title))</h1>
                \(content)
                </main>
                """, bodyClass: bodyClass)
    }

    static func login(csrfToken: String, problem: String?) -> String {
        document(
            title: "Sign in",
            body: """
                <main class="login"><h1>DropTrack console</h1>
                <p>Sign in with one of your app's API keys. The key is not kept in the page or the browser: the server
                gives this browser a session for 12 hours.</p>
                \(problem.map { "<p class=\"problem\" role=\"alert\">\(Escape.escape($0))</p>" } ?? "")
                <form method="post" action="/console/login">
                <input type="hidden" name="csrf" value="\(csrfToken)">
                <label for="key">API key</label>
                <input id="key" name="key" type="password" autocomplete="off" required autofocus>
                <button type="submit">Sign in</button>
                </form></main>
                """)
    }

    static func refusal(_ reason: String, title: String = "Refused") -> String {
        document(
            title: title,
            body: "<main><h1>\(Escape.escape(title))</h1><p class=\"problem\">\(Escape.escape(reason))</p>"
                + "<p><a href=\"/console/\">Back to the console</a></p></main>")
    }

    func notFound(_ message: String) -> String {
        layout("Not found", current: "", "<p class=\"problem\">\(Escape.escape(message))</p>")
    }

    static func time(_ date: Date?) -> String {
        guard let date else { return "–" }
        return ISO8601DateFormatter().string(from: date).replacingOccurrences(of: "T", with: " ")
    }

    static func table(_ headers: [String], _ rows: [[String]], empty: String) -> String {
        guard !rows.isEmpty else { return "<p class=\"empty\">\(Escape.escape(empty))</p>" }
        let head = headers.map { "<th>\(Escape.escape($0))</th>" }.joined()
        let body = rows.map { "<tr>" + $0.map { "<td>\($0)</td>" }.joined() + "</tr>" }.joined(separator: "\n")
        return "<div class=\"scroll\"><table><thead><tr>\(head)</tr></thead><tbody>\n\(body)\n</tbody></table></div>"
    }

    static func state(_ state: String) -> String {
        "<span class=\"state state-\(Escape.escape(state))\">\(Escape.escape(state))</span>"
    }

    // MARK: Activities

    /// Rows a list could not read, named by table, row and column (never a token): the rest of the list
    /// still shows, and the operator learns which row to repair or delete.
    static func corruptNotice(_ corrupt: [StoreError]) -> String {
        guard !corrupt.isEmpty else { return "" }
        let items = corrupt.map { "<li class=\"mono\">\(Escape.escape($0.message))</li>" }.joined()
        return "<div class=\"corrupt\" role=\"alert\"><p class=\"bad\">\(corrupt.count) stored row"
            + (corrupt.count == 1 ? " cannot" : "s cannot") + " be read and \(corrupt.count == 1 ? "is" : "are")"
            + " left out of this list:</p><ul>\(items)</ul></div>"
    }

    func activities(_ listed: Listed<ActivityRecord>, filter: ActivityState?, limit: Int) -> String {
        let activities = listed.records
        let options = (["all"] + ActivityState.allCases.map(\.rawValue)).map { name in
            let selected = (filter?.rawValue ?? "all") == name ? " selected" : ""
            return "<option value=\"\(name == "all" ? "" : name)\"\(selected)>\(name)</option>"
        }.joined()
        let rows = activities.map { activity -> [String] in
            let link = "/console/activities/" + Escape.pathSegment(activity.id)
            return [
                "<a class=\"mono\" href=\"\(Escape.escape(link))\">\(Escape.escape(activity.id))</a>",
                Self.state(activity.state.rawValue), String(activity.version), Escape.escape(Self.owner(activity)),
                Escape.escape(activity.attributesType), Self.time(activity.createdAt), Self.time(activity.updatedAt),
            ]
        }
        let filterForm = """
            <form method="get" action="/console/" class="filter"><label for="state">State</label>
            <select id="state" name="state">\(options)</select><button type="submit">Filter</button></form>
            """
        return layout(
            "Activities", current: "Activities",
            filterForm + "<p class=\"note\">The newest \(limit) at most, newest first.</p>"
                + Self.corruptNotice(listed.corrupt)
                + Self.table(
                    ["activity", "state", "version", "user", "attributes", "created", "updated"], rows,
                    empty: "No activities" + (filter.map { " in state \($0.rawValue)" } ?? "") + " yet."))
    }

    // MARK: Tokens

    func tokens(recent listed: Listed<TokenRecord>, invalidated listedInvalid: Listed<TokenRecord>, limit: Int)
        -> String
    {
        let recent = listed.records
        let invalidated = listedInvalid.records
        func row(_ token: TokenRecord) -> [String] {
            [
                "<span class=\"mono\">\(Escape.escape(token.fingerprint.value))</span>",
                Escape.escape(token.kind.rawValue),
                Escape.escape(token.userId ?? "–"), Escape.escape(token.deviceId),
                Escape.escape(token.activityId ?? "–"), Self.time(token.createdAt),
                token.isValid
                    ? "valid" : "<span class=\"bad\">\(Escape.escape(token.invalidReason?.stored ?? "invalid"))</span>",
            ]
        }
        let headers = ["fingerprint", "kind", "user", "device", "activity", "registered", "status"]
        let invalidRows = invalidated.map { token in
            [
                "<span class=\"mono\">\(Escape.escape(token.fingerprint.value))</span>",
                Escape.escape(token.kind.rawValue),
                Escape.escape(token.deviceId), Self.time(token.invalidatedAt),
                "<span class=\"bad\">\(Escape.escape(token.invalidReason?.stored ?? "invalid"))</span>",
            ]
        }
        return layout(
            "Tokens", current: "Tokens",
            "<p class=\"note\">Tokens by fingerprint only; the newest \(limit) at most.</p>"
                + Self.corruptNotice(listed.corrupt + listedInvalid.corrupt) + "<h2>Recently registered</h2>"
                + Self.table(headers, recent.map(row), empty: "No tokens registered yet.")
                + "<h2>Recently invalidated</h2>"
                + Self.table(
                    ["fingerprint", "kind", "device", "invalidated", "reason"], invalidRows,
                    empty: "No token has been invalidated."))
    }

    // MARK: Live events and plots

    func events() -> String {
        layout(
            "Live events", current: "Live events",
            """
            <p class="note">Every send outcome of this app as it happens (newest first, the last 200 kept).
            <span id="stream-status" class="status">connecting…</span></p>
            <ol id="events" class="events" data-stream="/console/stream"></ol>
            """)
    }

    func plots(_ samples: [MetricSample], window: Double, replica: String) -> String {
        let start = now.addingTimeInterval(-window)
        let recent = samples.filter { $0.at >= start }
        func points(_ value: (MetricSample) -> Double?) -> [(x: Double, y: Double?)] {
            recent.map { (x: $0.at.timeIntervalSince(start), y: value($0)) }
        }
        let sends = SVGPlot(
            title: "Sends per second by outcome", unit: "sends/s", window: window,
            series: [
                .init(name: "success", cssClass: "ok", points: points { $0.sendsPerSecond["success"] ?? 0 }),
                .init(name: "failure", cssClass: "fail", points: points { $0.sendsPerSecond["failure"] ?? 0 }),
            ])
        let lag = SVGPlot(
            title: "Fan-out lag", unit: "seconds, mean per reading", window: window,
            series: [.init(name: "lag", cssClass: "lag", points: points(\.fanoutLagSeconds))])
        let depth = SVGPlot(
            title: "Outbox depth", unit: "sends waiting", window: window,
            series: [.init(name: "depth", cssClass: "depth", points: points { Double($0.outboxDepth) })])
        return layout(
            "Plots", current: "Plots",
            """
            <p class="note">This app's sends and fan-out lag on the replica that answered this page,
            <strong>\(Escape.escape(replica))</strong> (each replica counts its own), and its outbox depth in the
            whole store, over the last hour, one reading every few seconds (\(recent.count) so far); the page
            refreshes itself.</p>
            <div class="plots" data-refresh="15">\(sends.render())\(lag.render())\(depth.render())</div>
            """)
    }
}

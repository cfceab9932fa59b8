import DropTrackAPI
import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackHTTP1
import DropTrackModel
import DropTrackStore
import Foundation

/// The operator console at `/console`: sign in with an app's API key, then that app's activities,
/// one activity's devices, timeline and diagnosis, the live event stream, tokens and invalidations,
/// and plots of the last hour. The key is exchanged at sign-in for a random session id in an
/// `HttpOnly; SameSite=Strict` cookie and never appears again (logs get its fingerprint). Every change
/// (sign-in, sign-out) must come from this host's pages (`Origin`/`Referer`) with a CSRF token.
public struct ConsoleRoutes: RouteExtension {
    let registry: ActivityRegistry
    let store: any DeliveryStore
    let events: EventBus
    let keyring: APIKeyring
    let sessions: ConsoleSessions
    let sampler: MetricSampler
    let clock: any WallClock
    let logger: Logger
    /// Sign-in attempts, per client address and in all.
    let signInAttempts: SignInAttempts

    /// Rows a list shows at most.
    static let listLimit = 100

    /// Creates the console over the server's parts.
    public init(
        registry: ActivityRegistry, store: any DeliveryStore, events: EventBus, apps: [AppConfiguration],
        sessions: ConsoleSessions, sampler: MetricSampler, clock: any WallClock, logger: Logger
    ) {
        self.registry = registry
        self.store = store
        self.events = events
        self.keyring = APIKeyring(apps: apps)
        self.sessions = sessions
        self.signInAttempts = SignInAttempts(clock: clock)
        self.sampler = sampler
        self.clock = clock
        self.logger = logger.with(["component": "console"])
    }

    static let files: [String: (type: String, bytes: [UInt8])] = [
        "/console/console.css": ("text/css; charset=utf-8", PackageResources.console_css),
        "/console/console.js": ("text/javascript; charset=utf-8", PackageResources.console_js),
    ]

    public func reply(to request: HTTPRequest) -> (route: String, reply: HTTPReply)? {
        guard request.path == "/console" || request.path.hasPrefix("/console/") else { return nil }
        if let file = Self.files[request.path] {
            guard request.method == "GET" || request.method == "HEAD" else {
                return ("/console/files", Self.notAllowed)
            }
            return (
                "/console/files",
                .response(
                    HTTPResponse(
                        status: 200, headers: [("Content-Type", file.type)] + ConsoleHTTP.securityHeaders,
                        body: file.bytes))
            )
        }
        switch request.path {
        case "/console/login":
            return ("/console/login", request.method == "POST" ? signIn(request) : loginForm(request))
        case "/console/logout":
            return ("/console/logout", request.method == "POST" ? signOut(request) : Self.notAllowed)
        default:
            break
        }
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        let route: String =
            switch parts {
            case ["console"], ["console", ""]: "/console"
            case ["console", "stream"]: "/console/stream"
            case ["console", "events"]: "/console/events"
            case ["console", "tokens"]: "/console/tokens"
            case ["console", "plots"]: "/console/plots"
            case let p where p.count == 3 && p[1] == "activities" && !p[2].isEmpty: "/console/activities/{id}"
            default: "/console/unmatched"
            }
        let signedIn: ConsoleSession?
        do {
            signedIn = try self.signedIn(request)
        } catch {
            return (route, sessionsUnavailable(error))
        }
        guard let session = signedIn else {
            // EventSource cannot follow a sign-in page: the stream answers 401 instead.
            if route == "/console/stream" { return (route, ConsoleHTTP.page(401, "sign in at /console/login")) }
            return (route, ConsoleHTTP.seeOther("/console/login"))
        }
        guard request.method == "GET" || request.method == "HEAD" else { return (route, Self.notAllowed) }
        let pages = ConsolePages(session: session, now: clock.now())
        switch route {
        case "/console": return (route, activities(request, pages: pages))
        case "/console/stream":
            return (
                route,
                events.relay(
                    app: session.app, key: "console:" + session.keyFingerprint,
                    ready: .object(["app": .string(session.app.rawValue)])
                )
            )
        case "/console/events": return (route, ConsoleHTTP.page(200, pages.events()))
        case "/console/tokens": return (route, tokens(pages: pages))
        case "/console/plots":
            return (
                route,
                ConsoleHTTP.page(
                    200, pages.plots(sampler.samples(app: session.app.rawValue), window: 3600, replica: sampler.replica)
                )
            )
        case "/console/activities/{id}": return (route, activity(parts[2], pages: pages))
        default: return (route, ConsoleHTTP.page(404, pages.notFound("no console page \(request.path)")))
        }
    }

    static let notAllowed = ConsoleHTTP.page(405, "method not allowed", type: "text/plain; charset=utf-8")

    /// The session the cookie names, if it is live; throws when the store cannot say.
    func signedIn(_ request: HTTPRequest) throws -> ConsoleSession? {
        guard let id = ConsoleHTTP.cookies(request)[ConsoleHTTP.sessionCookie], !id.isEmpty else { return nil }
        return try sessions.session(id: id)
    }

    /// The answer when the store cannot say who is signed in, or keep a sign-in or a sign-out.
    func sessionsUnavailable(_ error: any Error) -> HTTPReply {
        logger.error("console.store_failed", ["error": String(describing: error)])
        return ConsoleHTTP.page(
            503, ConsolePages.refusal("the store does not answer; try again shortly", title: "Unavailable"),
            extra: [("Retry-After", "5")])
    }

    // MARK: Pages

    func activities(_ request: HTTPRequest, pages: ConsolePages) -> HTTPReply {
        let filter = request.query["state"].flatMap(ActivityState.init(rawValue:))
        do {
            let found = try store.transaction {
                try $0.recentActivities(app: pages.session.app.rawValue, state: filter, limit: Self.listLimit)
            }
            return ConsoleHTTP.page(200, pages.activities(found, filter: filter, limit: Self.listLimit))
        } catch {
            return unavailable(error, pages: pages)
        }
    }

    func activity(_ id: String, pages: ConsolePages) -> HTTPReply {
        do throws(Refusal) {
            let activityID = try ActivityID(validating: id, field: "id")
            let snapshot = try registry.describe(app: pages.session.app.rawValue, activityId: id, timelineLimit: 200)
            let diagnosis = try registry.diagnose(app: pages.session.app, activityId: activityID)
            return ConsoleHTTP.page(200, pages.activity(snapshot, diagnosis: diagnosis))
        } catch {
            switch error {
            // Another app's activity is not found either: the session sees its own app only.
            case .notFound, .invalid: return ConsoleHTTP.page(404, pages.notFound("no activity '\(id)' in this app"))
            default: return unavailable(error, pages: pages)
            }
        }
    }

    func tokens(pages: ConsolePages) -> HTTPReply {
        do {
            let (recent, invalidated) = try store.transaction { tx in
                (
                    try tx.recentTokens(app: pages.session.app.rawValue, limit: Self.listLimit),
                    try tx.recentInvalidations(app: pages.session.app.rawValue, limit: Self.listLimit)
                )
            }
            return ConsoleHTTP.page(200, pages.tokens(recent: recent, invalidated: invalidated, limit: Self.listLimit))
        } catch {
            return unavailable(error, pages: pages)
        }
    }

    func unavailable(_ error: any Error, pages: ConsolePages) -> HTTPReply {
        logger.error("console.store_failed", ["app": pages.session.app.rawValue, "error": String(describing: error)])
        return ConsoleHTTP.page(503, pages.notFound("the store does not answer; try again shortly"))
    }
}

import DropTrackContract
import DropTrackCore
import DropTrackDispatch
import DropTrackDoctor
import DropTrackModel
import DropTrackStore
import DropTrackWire
import Foundation

extension ConsolePages {
    /// One activity: its state and content, its devices by fingerprint, the diagnosis with each trap
    /// explained from the built-in catalog, and the timeline (newest first).
    func activity(_ snapshot: ActivitySnapshot, diagnosis: Diagnosis) -> String {
        let activity = snapshot.activity
        let summary = """
            <dl class="facts">
            <dt>state</dt><dd>\(Self.state(activity.state.rawValue))</dd>
            <dt>version</dt><dd>\(activity.version)</dd>
            <dt>user</dt><dd>\(Escape.escape(Self.owner(activity, progress: snapshot.progress)))</dd>
            <dt>attributes type</dt><dd>\(Escape.escape(activity.attributesType))</dd>
            <dt>created</dt><dd>\(Self.time(activity.createdAt))</dd>
            <dt>updated</dt><dd>\(Self.time(activity.updatedAt))</dd>
            <dt>sends waiting</dt><dd>\(snapshot.pendingSends)</dd>
            </dl>
            <details><summary>Content-state</summary><pre>\(Escape.escape(Self.pretty(activity.contentState)))</pre></details>
            """
        let upToDate = Dictionary(
            diagnosis.devices.map { ($0.fingerprint, $0.upToDate) }, uniquingKeysWith: { first, _ in first })
        let deviceRows = snapshot.devices.map { token -> [String] in
            [
                "<span class=\"mono\">\(Escape.escape(token.fingerprint.value))</span>",
                Escape.escape(token.kind.rawValue),
                Escape.escape(token.deviceId),
                token.isValid
                    ? "valid" : "<span class=\"bad\">\(Escape.escape(token.invalidReason?.stored ?? "invalid"))</span>",
                upToDate[token.fingerprint].map { $0 ? "yes" : "<span class=\"bad\">no</span>" } ?? "–",
                Self.time(token.lastSeenAt),
            ]
        }
        let timelineRows = snapshot.timeline.reversed().map { entry -> [String] in
            [
                Self.time(entry.at), Escape.escape(entry.event), String(entry.version),
                "<span class=\"mono\">\(Escape.escape(entry.destination.stored))</span>",
                Escape.escape(entry.provider.rawValue),
                (200..<300).contains(entry.status)
                    ? String(entry.status) : "<span class=\"bad\">\(entry.status)</span>",
                Escape.escape(entry.reason)
                    + "<br><small>\(Escape.escape(entry.remedy.rawValue))</small>",
            ]
        }
        return layout(
            "Activity \(activity.id)", current: "",
            summary + "<h2>Diagnosis</h2>" + findings(diagnosis) + "<h2>Devices</h2>"
                + Self.table(
                    ["fingerprint", "kind", "device", "token", "up to date", "last seen"], deviceRows,
                    empty: "No device has registered for this activity.")
                + "<h2>Timeline</h2>"
                + Self.table(
                    ["at", "event", "version", "destination", "provider", "status", "reason"], timelineRows,
                    empty: "Nothing sent yet."))
    }

    /// The diagnosis's findings, each trap with its catalog entry (as `droptrack doctor --explain` prints it).
    func findings(_ diagnosis: Diagnosis) -> String {
        let findings = diagnosis.findings
        guard !findings.isEmpty else {
            return "<p class=\"empty\">No trap found: every device should show the latest version.</p>"
        }
        let items = findings.map { finding -> String in
            let severity = finding.severity.rawValue
            let trap = finding.trap
            let explanation =
                trap.flatMap { try? TrapCatalog.entry($0) }.map {
                    "<details><summary>What \(Escape.escape(trap ?? "")) means</summary><pre class=\"catalog\">\(Escape.escape($0))</pre></details>"
                } ?? ""
            return """
                <li class="finding severity-\(Escape.escape(severity))"><b>\(Escape.escape(trap ?? severity))</b> \
                \(Escape.escape(finding.message))\
                <br><small>Fix: \(Escape.escape(finding.fix))</small>\(explanation)</li>
                """
        }
        return "<ul class=\"findings\">" + items.joined(separator: "\n") + "</ul>"
    }

    static func pretty(_ value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }
}

extension ConsolePages {
    /// Who an activity is for: its user, or for a shared activity its audience and members.
    static func owner(_ activity: ActivityRecord, progress: AudienceProgress? = nil) -> String {
        guard activity.isShared else { return activity.userId }
        let kind = activity.audienceSummary?["kind"]?.stringValue ?? "users"
        return progress.map { "audience (\(kind)): \($0.members) members" } ?? "audience (\(kind))"
    }
}

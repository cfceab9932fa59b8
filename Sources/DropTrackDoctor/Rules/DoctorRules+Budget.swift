import DropTrackContract
import DropTrackModel
import DropTrackWire
import Foundation

/// Catalog group 4: budgets and rates (DT-050 … DT-058).
extension Doctor {
    static let budgetRules: [DoctorRule] = [
        DoctorRule("DT-050", "Priority-10 budget exhausted", .risk) { e, r in
            guard e.isAPNs, e.isLiveActivity, !e.embedded, !e.isBroadcast else { return }
            if e.header("apns-priority") == nil {
                r.warning(
                    "apns-priority",
                    "no apns-priority: APNs takes 10, which counts against the hourly Live Activity budget",
                    fix: "send the priority explicitly: 5 by default, 10 only for transitions the user must see at once"
                )
            }
            if e.effectivePriority == 10, let sent = e.history?.priority10LastHour {
                let budget = e.config?.priority10Budget ?? 15
                if sent >= budget {
                    r.warning(
                        "apns-priority",
                        "\(sent) priority-10 pushes in the last hour (budget \(budget)): iOS throttles further updates for a while although APNs answers 200",
                        fix: "send at priority 5, or coalesce; keep 10 for transitions the user must see at once")
                }
            }
            if e.response?.reason == "TooManyRequests" {
                r.warning(
                    "response.reason", "429 TooManyRequests: the budget or the rate is exhausted",
                    fix: "back off, and send routine updates at priority 5")
            }
        },

        DoctorRule("DT-051", "Frequent-updates key missing or switched off by the user", .risk) { e, r in
            guard !e.isFCM, e.device?.frequentPushesEnabled == false else { return }
            r.warning(
                "device.frequentPushesEnabled",
                "frequent updates are off (the Info.plist key is missing, or the user turned them off): the hourly budget is the small one",
                fix:
                    "add NSSupportsLiveActivitiesFrequentUpdates (spelled so) to Info.plist, and budget for the small allowance"
            )
        },

        DoctorRule("DT-052", "Identical or superseded updates burn budget") { e, r in
            guard e.isAPNs, e.isLiveActivity, e.event == "update", let aps = e.aps, let last = e.activity?.lastSent
            else {
                return
            }
            let previous = (last["aps"] ?? last).objectValue ?? [:]
            guard previous["content-state"] != nil else { return }
            let keys = ["content-state", "stale-date", "relevance-score"]
            if keys.allSatisfy({ aps[$0] == previous[$0] }) {
                r.warning(
                    "aps.content-state", "this update shows exactly what the last one showed; it only spends budget",
                    fix: "skip a send whose content-state, stale-date and relevance-score equal the last one sent")
            }
        },

        DoctorRule("DT-053", "Retries deepen throttling or tie up workers") { e, r in
            if let retry = e.config?.retry {
                let doomed = (retry.retryStatuses ?? []).filter { [400, 403, 410, 413].contains($0) }
                if !doomed.isEmpty {
                    r.error(
                        "config.retry.retryStatuses",
                        "the policy retries \(doomed.map(String.init).joined(separator: ", ")), which can never succeed unchanged",
                        fix: "retry only 429, 5xx and transport errors")
                }
                if let count = retry.maxRetries, count > 2, e.isAPNs, e.effectivePriority == 10 {
                    r.warning(
                        "config.retry.maxRetries",
                        "\(count) retries of priority-10 pushes deepen the throttling they meet",
                        fix: "at most 2 retries with doubled delays for priority 10")
                }
                if retry.honorsRetryAfter == false {
                    r.warning(
                        "config.retry.honorsRetryAfter", "Retry-After is ignored, so retries hit the same limit again",
                        fix: "wait at least Retry-After before sending again")
                }
                if let layers = retry.layers, layers > 1 {
                    r.warning(
                        "config.retry.layers", "\(layers) layers retry on their own, multiplying attempts and delays",
                        fix: "keep one retry layer that knows the priority")
                }
            }
            if let attempts = e.history?.retryCount, attempts > 0, let status = e.response?.status,
                [400, 403, 410, 413].contains(status)
            {
                r.error(
                    "history.retryCount",
                    "this send was retried \(attempts) time(s) after a \(status), which cannot succeed unchanged",
                    fix: "never retry 400, 403, 410 or 413; fix the request or drop the token")
            }
        },

        DoctorRule("DT-054", "A high error rate slows or closes the APNs connection") { e, r in
            guard !e.isFCM else { return }
            if let dead = e.token?.dead, !["unregistered", "expiredtoken"].contains(dead.reason.lowercased()) {
                r.error(
                    "token.dead",
                    "the token was marked dead (\(dead.reason)); every send to it counts as an error and APNs slows the connection",
                    fix: "clean tokens before fanning out; never send to dead or wrong-environment tokens")
            }
            if let rate = e.history?.connectionErrorRate, rate > 0.1 {
                r.warning(
                    "history.connectionErrorRate",
                    "\(Int(saturating: rate * 100))% of the connection's answers are errors; APNs slows and closes such connections",
                    fix: "clean tokens before fanning out, and alert on the error share")
            }
        },

        DoctorRule("DT-055", "A new connection, and a new JWT, for every send") { e, r in
            guard !e.isFCM, let opened = e.history?.connectionsOpenedLastMinute, opened > 3 else { return }
            r.warning(
                "history.connectionsOpenedLastMinute",
                "\(opened) APNs connections opened in the last minute; Apple treats rapid connect and disconnect as an attack",
                fix: "keep one pooled HTTP/2 connection per (key, environment) and ping it when idle")
        },

        DoctorRule("DT-056", "No per-request deadline, so sends stall and the fan-out lags") { e, r in
            if let timeout = e.config?.requestTimeoutSeconds {
                if timeout <= 0 {
                    r.error(
                        "config.requestTimeoutSeconds",
                        "requests have no deadline: one stalled push ties up a worker for good",
                        fix: "give every request a deadline of a few seconds")
                } else if timeout > 60 {
                    r.warning(
                        "config.requestTimeoutSeconds",
                        "a \(Int(saturating: timeout)) s deadline, multiplied by retries, lets sends lag minutes behind events",
                        fix: "keep the deadline to a few seconds and bound the retries")
                }
            }
            if let lag = e.history?.lagSeconds {
                let target = e.config?.lagTargetSeconds ?? 60
                if lag > target {
                    r.warning(
                        "history.lagSeconds",
                        "this change waited \(Int(saturating: lag)) s between being accepted and being sent (target \(Int(saturating: target)) s)",
                        fix: "give Live Activity traffic its own lane, with deadlines and bounded retries")
                }
            }
        },

        DoctorRule("DT-057", "Too many concurrent activities on one device", .risk) { e, r in
            guard e.isAPNs, e.isStart, let running = e.device?.activeActivities else { return }
            let limit = e.config?.maxActivitiesPerDevice ?? 5
            guard running >= limit else { return }
            r.warning(
                "device.activeActivities",
                "the device already runs \(running) of this app's activities (limit about \(limit)): the start may get 200 and show nothing",
                fix: "end finished activities promptly before starting new ones")
        },

        DoctorRule("DT-058", "Channel limit reached because stale broadcast channels are never deleted") { e, r in
            guard !e.isFCM else { return }
            if let count = e.context.channel?.countInEnvironment {
                if count >= 10_000 {
                    r.error(
                        "channel.countInEnvironment",
                        "the app has \(count) channels in this environment; APNs allows 10,000",
                        fix: "delete a channel when its last activity ends")
                } else if count >= 9_000 {
                    r.warning(
                        "channel.countInEnvironment",
                        "\(count) of 10,000 channels in use; creating more will fail soon",
                        fix: "delete a channel when its last activity ends")
                }
            }
            if e.context.channel?.activeActivities == 0 {
                r.warning(
                    "channel.activeActivities",
                    "no activity listens on this channel any more; it only uses up the channel limit",
                    fix: "delete the channel now that its last activity ended")
            }
            if e.response?.reason == "CannotCreateChannelConfig" {
                r.error(
                    "response.reason", "CannotCreateChannelConfig: the channel limit is reached",
                    fix: "delete channels whose activities ended, then create again")
            }
        },
    ]
}

// The APNs emulator's answers (200 with ids, errors with Apple's reason body), scripted faults, and the
// record every request leaves.
import DropTrackContract
import DropTrackCore
import DropTrackHTTP2
import DropTrackModel
import DropTrackWire
import Foundation
import Synchronization

extension APNsEmulator {
    func accept(_ exchange: inout Exchange, token: String?, bundleID: String) -> HTTP2ServerAction {
        let apnsID = exchange.apnsID ?? ids.next()
        exchange.apnsID = apnsID
        exchange.status = 200
        exchange.delivery = APNsDelivery(
            token: token.map(DeviceToken.init), channelID: exchange.channelID, bundleID: bundleID,
            payload: exchange.request.body,
            priority: exchange.priority ?? 10, apnsID: apnsID, acceptedAt: exchange.now)
        // Ids differ on every answer: keeping them out of HPACK's dynamic table saves churn.
        var headers = [
            HTTPHeader(exchange.kind == "broadcast" ? "apns-request-id" : "apns-id", apnsID, neverIndex: true)
        ]
        if configuration.environment == .sandbox && exchange.kind == "device" {
            headers.append(HTTPHeader("apns-unique-id", ids.next(), neverIndex: true))
        }
        return delayed(exchange, .respond(HTTP2ServerResponse(status: 200, headers: headers)))
    }

    func reject(
        _ exchange: inout Exchange, _ reason: APNsReason, invalidatedAt: Date? = nil, retryAfter: Int? = nil,
        note: String? = nil
    ) -> HTTP2ServerAction {
        exchange.status = reason.status
        exchange.reason = reason
        let apnsID = exchange.apnsID ?? ids.next()
        exchange.apnsID = apnsID
        var body = #"{"reason":"\#(reason.rawValue)""#
        if let invalidatedAt { body += #","timestamp":\#(Int64(invalidatedAt.timeIntervalSince1970 * 1000))"# }
        body += "}"
        var headers = [
            HTTPHeader(exchange.kind == "device" ? "apns-id" : "apns-request-id", apnsID),
            HTTPHeader("content-type", "application/json"),
        ]
        if let retryAfter { headers.append(HTTPHeader("retry-after", String(retryAfter))) }
        return delayed(
            exchange, .respond(HTTP2ServerResponse(status: reason.status, headers: headers, body: Array(body.utf8))))
    }

    /// Wraps the answer in a `delay` fault when one fired.
    private func delayed(_ exchange: Exchange, _ action: HTTP2ServerAction) -> HTTP2ServerAction {
        guard let fault = exchange.fault, fault.hasPrefix("delay:"), let ms = Int(fault.dropFirst(6)),
            case .respond(let response) = action
        else { return action }
        return .respondAfter(.milliseconds(ms), response)
    }

    // MARK: Faults

    func injectFault(_ exchange: inout Exchange) -> HTTP2ServerAction? {
        let fired = state.withLock { $0.faults.fire(token: exchange.token) }
        guard let fault = fired else { return nil }
        exchange.fault = fault.kind.rawValue
        switch fault.kind {
        case .unregistered: return reject(&exchange, .unregistered, invalidatedAt: exchange.now)
        case .expiredToken: return reject(&exchange, .expiredToken)
        case .badDeviceToken: return reject(&exchange, .badDeviceToken)
        case .tooManyRequests: return reject(&exchange, .tooManyRequests, retryAfter: fault.retryAfterSeconds)
        case .internalServerError: return reject(&exchange, .internalServerError, retryAfter: fault.retryAfterSeconds)
        case .serviceUnavailable: return reject(&exchange, .serviceUnavailable, retryAfter: fault.retryAfterSeconds)
        case .shutdown: return reject(&exchange, .shutdown)
        case .goAway: return .goAway(errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        case .connectionReset: return .resetConnection
        case .delay:
            exchange.fault = "delay:\(fault.delayMilliseconds ?? 1000)"
            return nil
        }
    }

    // MARK: Records

    /// Counts and records the request, keeps what the device would hold, and hands an accepted push to
    /// the delivery listeners.
    func finish(_ exchange: Exchange) {
        let headers = RecordedHeaders(exchange.headers)
        let reasonKey = exchange.reason.map { "\(exchange.status) \($0.rawValue)" }
        let accepted = exchange.status == 200 && exchange.kind == "device"
        state.withLock { state in
            state.sequence += 1
            state.requestCount += 1
            state.statusCounts[exchange.status, default: 0] += 1
            if let reasonKey { state.reasonCounts[reasonKey, default: 0] += 1 }
            let stored = StoredRecord(
                APNsEmulatorRecord(
                    sequence: state.sequence, receivedAt: exchange.now, connection: exchange.connection,
                    kind: exchange.kind, method: exchange.request.method, channelID: exchange.channelID,
                    headers: headers, status: exchange.status, reason: exchange.reason?.rawValue,
                    apnsID: exchange.apnsID, priority: exchange.priority, event: exchange.event,
                    timestamp: exchange.timestamp, fault: exchange.fault, token: exchange.token.map(DeviceToken.init),
                    body: exchange.request.body, lint: exchange.status == 200 ? exchange.lint : nil))
            state.records.append(stored)
            if accepted, let token = exchange.token {
                // The device keeps the newest by timestamp; an older push does not replace it.
                state.tokens[token, default: TokenState()].accept(
                    stored, timestamp: exchange.timestamp ?? 0, isEnd: exchange.event == "end")
            }
        }
        if let delivery = exchange.delivery {
            for listener in listeners.withLock({ $0 }) { listener(delivery) }
        }
    }
}

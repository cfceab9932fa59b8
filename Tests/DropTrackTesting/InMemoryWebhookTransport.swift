import DropTrackDispatch
import Foundation
import Synchronization

/// Webhook POSTs that go nowhere: each URL answers a status at once, or is held until the test answers it,
/// as a receiver that hangs would be (and a transport that broke its deadline).
package final class InMemoryWebhookTransport: WebhookTransport {
    /// How a URL answers.
    package enum Behaviour: Sendable {
        case status(Int)
        /// No answer until `answer(url:with:)`.
        case hold
    }

    private struct Held {
        var request: WebhookRequest
        var completion: @Sendable (WebhookResponse) -> Void
    }

    private let behaviours: [String: Behaviour]
    private let state = Mutex<(sent: [WebhookRequest], held: [Held])>(([], []))

    /// Every URL answers by `behaviours`, 204 when not listed.
    package init(_ behaviours: [String: Behaviour] = [:]) { self.behaviours = behaviours }

    package func post(_ request: WebhookRequest, completion: @escaping @Sendable (WebhookResponse) -> Void) {
        let behaviour = behaviours[request.url] ?? .status(204)
        state.withLock {
            $0.sent.append(request)
            if case .hold = behaviour { $0.held.append(Held(request: request, completion: completion)) }
        }
        if case .status(let code) = behaviour { completion(.status(code)) }
    }

    /// Every request so far, in order.
    package var sent: [WebhookRequest] { state.withLock { $0.sent } }

    /// The requests to `url` held unanswered now.
    package func held(_ url: String) -> Int { state.withLock { $0.held.filter { $0.request.url == url }.count } }

    /// Answers every request to `url` held now.
    package func answer(url: String, with response: WebhookResponse) {
        let answered = state.withLock { state in
            let matching = state.held.filter { $0.request.url == url }
            state.held.removeAll { $0.request.url == url }
            return matching
        }
        for held in answered { held.completion(response) }
    }
}

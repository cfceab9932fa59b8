internal import CCurl
import Foundation
import Synchronization

/// Outbound POSTs on libcurl's multi interface, all driven by one thread: however many attempts are open,
/// none holds a thread, and each ends by its own deadline whatever the other end does.
public final class OutboundHTTP: Sendable {
    /// The process's one driver. Its thread lives as long as the process, like a connection pool.
    public static let shared = OutboundHTTP()

    /// libcurl's multi handle: used only on the driver's thread, except `curl_multi_wakeup`, which libcurl
    /// documents as callable from any thread.
    private struct Multi: @unchecked Sendable { let handle: UnsafeMutableRawPointer }

    private let multi: Multi
    private let submitted = Mutex<[CurlTransfer]>([])

    private init() {
        _ = ccurl_global_init()
        multi = Multi(handle: curl_multi_init())
        let thread = Thread { [self] in run() }
        thread.name = "outbound-http"
        thread.start()
    }

    /// Sends `post`; `completion` runs once, off the driver's thread, by the post's deadline.
    public func post(_ post: OutboundPost, completion: @escaping @Sendable (OutboundAnswer) -> Void) {
        submitted.withLock { $0.append(CurlTransfer(post, completion: completion)) }
        curl_multi_wakeup(multi.handle)
    }

    private func run() {
        var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
        while true {
            let batch = submitted.withLock { list in
                defer { list.removeAll() }
                return list
            }
            for transfer in batch {
                if let failure = transfer.prepare() {
                    finish(transfer, .failed(failure))
                } else if let easy = transfer.easy, curl_multi_add_handle(multi.handle, easy) == CURLM_OK {
                    running[easy] = transfer
                } else {
                    finish(transfer, .failed(.transport("libcurl could not start the transfer")))
                }
            }
            var active: Int32 = 0
            curl_multi_perform(multi.handle, &active)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi.handle, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = running.removeValue(forKey: easy)
                else { continue }
                // The message is freed with the handle's removal: its result is read first.
                let code = ccurl_message_result(message)
                let answer = transfer.answer(code)
                curl_multi_remove_handle(multi.handle, easy)
                finish(transfer, answer)
            }
            // Sleeps until a socket is ready, a transfer's timer (its deadline among them) is due, or `post` wakes it.
            curl_multi_poll(multi.handle, nil, 0, 1000, nil)
        }
    }

    private func finish(_ transfer: CurlTransfer, _ answer: OutboundAnswer) {
        transfer.release()
        // The caller's completion may write to a store: not on this thread, which every attempt shares.
        DispatchQueue.global().async { transfer.completion(answer) }
    }
}

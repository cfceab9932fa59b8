internal import CCurl
import DropTrackCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One attempt on a libcurl easy handle. Touched only by the driver's thread once submitted: libcurl calls
/// the callbacks below from `curl_multi_perform` on that thread.
final class CurlTransfer: @unchecked Sendable {
    let post: OutboundPost
    let completion: @Sendable (OutboundAnswer) -> Void
    private(set) var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl's words for a failure, written there by libcurl; freed with the handle.
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
    /// Body bytes libcurl handed over; past `answerBytes` the transfer is ended on purpose.
    private var answerBytes = 0
    private var headerBytes = 0
    private var refused: (IPAddress, AddressScope)?

    init(_ post: OutboundPost, completion: @escaping @Sendable (OutboundAnswer) -> Void) {
        self.post = post
        self.completion = completion
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit { errorBuffer.deallocate() }

    /// Makes the easy handle; nil when it is ready to add to the multi handle, else why not.
    func prepare() -> OutboundFailure? {
        guard let easy = curl_easy_init() else { return .transport("libcurl could not make a transfer") }
        self.easy = easy
        let limits = post.limits
        let context = Unmanaged.passUnretained(self).toOpaque()
        var codes: [CURLcode] = []
        func long(_ option: CURLoption, _ value: Int) { codes.append(ccurl_set_long(easy, option, value)) }
        func string(_ option: CURLoption, _ value: String) { codes.append(ccurl_set_string(easy, option, value)) }
        func pointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
            codes.append(ccurl_set_pointer(easy, option, value))
        }
        string(CURLOPT_URL, post.url)
        // No signals from a resolver timeout: this is one thread of many.
        long(CURLOPT_NOSIGNAL, 1)
        string(CURLOPT_PROTOCOLS_STR, limits.allowPlainHTTP ? "http,https" : "https")
        string(CURLOPT_REDIR_PROTOCOLS_STR, "https")
        // A redirect is an answer, never followed: following would carry the signed body wherever the
        // receiver points, internal addresses and http:// included.
        long(CURLOPT_FOLLOWLOCATION, 0)
        long(CURLOPT_MAXREDIRS, 0)
        long(CURLOPT_TIMEOUT_MS, Self.milliseconds(limits.deadlineSeconds))
        long(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectSeconds))
        // The environment's proxy would make the checked address the proxy's, not the receiver's.
        string(CURLOPT_PROXY, "")
        // No Accept-Encoding is sent, and nothing that comes encoded is decoded.
        long(CURLOPT_HTTP_CONTENT_DECODING, 0)
        string(CURLOPT_USERAGENT, "droptrack-webhooks")
        codes.append(ccurl_set_write_function(easy, CURLOPT_WRITEFUNCTION, Self.writeAnswer))
        pointer(CURLOPT_WRITEDATA, context)
        codes.append(ccurl_set_write_function(easy, CURLOPT_HEADERFUNCTION, Self.writeHeader))
        pointer(CURLOPT_HEADERDATA, context)
        codes.append(ccurl_set_opensocket_function(easy, Self.openSocket))
        pointer(CURLOPT_OPENSOCKETDATA, context)
        codes.append(ccurl_set_prereq_function(easy, Self.beforeRequest))
        pointer(CURLOPT_PREREQDATA, context)
        pointer(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        // "Expect:" drops libcurl's 100-continue wait for bodies over 1 KiB.
        for line in post.headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
            headerList = curl_slist_append(headerList, line)
        }
        codes.append(ccurl_set_slist(easy, CURLOPT_HTTPHEADER, headerList))
        long(CURLOPT_POST, 1)
        codes.append(ccurl_set_size(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(post.body.count)))
        // Copied by libcurl; a byte of padding keeps the pointer valid for an empty body.
        (post.body + [0]).withUnsafeBytes {
            pointer(CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
        }
        if let failed = codes.first(where: { $0 != CURLE_OK }) {
            return .transport("libcurl refused an option: \(String(cString: curl_easy_strerror(failed)))")
        }
        return nil
    }

    /// What the finished transfer amounts to, read before the handle goes.
    func answer(_ code: CURLcode) -> OutboundAnswer {
        var status = 0
        if let easy { _ = ccurl_get_long(easy, CURLINFO_RESPONSE_CODE, &status) }
        if headerBytes > post.limits.headerBytes { return .failed(.headersTooLarge(limit: post.limits.headerBytes)) }
        let cut = code == CURLE_WRITE_ERROR && answerBytes > post.limits.answerBytes
        if code == CURLE_OK || cut, status > 0 {
            return .status(status, location: (300..<400).contains(status) ? redirectTarget() : nil)
        }
        // After the status: a name may resolve to a refused address and an allowed one, and the allowed one answer.
        if let (address, scope) = refused { return .failed(.refusedAddress(address, scope)) }
        if code == CURLE_OPERATION_TIMEDOUT { return .failed(.timedOut(seconds: post.limits.deadlineSeconds)) }
        if code == CURLE_UNSUPPORTED_PROTOCOL { return .failed(.schemeNotAllowed(post.url)) }
        let detail = String(cString: errorBuffer)
        return .failed(.transport(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail))
    }

    /// Frees the handle and its header list.
    func release() {
        if let easy { curl_easy_cleanup(easy) }
        easy = nil
        curl_slist_free_all(headerList)
        headerList = nil
    }

    private func redirectTarget() -> String? {
        guard let easy else { return nil }
        var target: UnsafeMutablePointer<CChar>?
        guard ccurl_get_string(easy, CURLINFO_REDIRECT_URL, &target) == CURLE_OK, let target else { return nil }
        return String(cString: target)
    }

    static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded(.up))) }

    private static func transfer(_ context: UnsafeMutableRawPointer?) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Counts the body and drops it; returning less than given ends the transfer (`CURLE_WRITE_ERROR`).
    private static let writeAnswer: curl_write_callback = { _, size, count, context in
        let transfer = transfer(context)
        transfer.answerBytes += size * count
        return transfer.answerBytes > transfer.post.limits.answerBytes ? 0 : size * count
    }

    private static let writeHeader: curl_write_callback = { _, size, count, context in
        let transfer = transfer(context)
        transfer.headerBytes += size * count
        return transfer.headerBytes > transfer.post.limits.headerBytes ? 0 : size * count
    }

    /// Called with each address the name resolved to, before a socket is made for it: a refused one gets
    /// no connection at all, so a name that resolves to 127.0.0.1 (DNS rebinding) reaches nothing.
    private static let openSocket: curl_opensocket_callback = { context, _, address in
        let transfer = transfer(context)
        guard let address else { return CURL_SOCKET_BAD }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = Int(ccurl_sockaddr_bytes(address, &bytes))
        guard let ip = IPAddress(bytes: Array(bytes.prefix(count))) else { return CURL_SOCKET_BAD }
        if let scope = transfer.post.limits.addresses.refusal(of: ip) {
            transfer.refused = (ip, scope)
            return CURL_SOCKET_BAD
        }
        return socket(
            address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    }

    /// Called once connected, new connection or reused, before the request goes: the address is checked
    /// again, as a connection kept from another transfer was checked under that transfer's policy.
    private static let beforeRequest: curl_prereq_callback = { context, primary, _, _, _ in
        let transfer = transfer(context)
        guard let primary, let ip = IPAddress(String(cString: primary)) else { return CURL_PREREQFUNC_ABORT }
        if let scope = transfer.post.limits.addresses.refusal(of: ip) {
            transfer.refused = (ip, scope)
            return CURL_PREREQFUNC_ABORT
        }
        return CURL_PREREQFUNC_OK
    }
}

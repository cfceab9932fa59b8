internal import COpenSSL
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TLS configuration shared by many connections: TLS 1.2 or later, ALPN, and (for clients)
/// peer verification against the system trust store or a given CA file.
public final class TLSContext: @unchecked Sendable {
    // The SSL_CTX is configured once in init and only read afterwards, which OpenSSL allows from
    // any thread.
    let pointer: OpaquePointer
    private let alpnBox: Unmanaged<ALPNPreference>
    /// True for a server context.
    public let isServer: Bool

    final class ALPNPreference {
        let protocols: [[UInt8]]
        init(_ protocols: [String]) { self.protocols = protocols.map { Array($0.utf8) } }
    }

    /// A server context presenting `certificateChainPEM` and offering `alpn` in order of preference.
    public init(serverCertificateChainPEM chain: Data, privateKeyPEM key: Data, alpn: [String]) throws {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else {
            throw CryptoError(.tls, "cannot create a TLS server context: \(CryptoError.openSSLQueue())")
        }
        pointer = ctx
        isServer = true
        alpnBox = Unmanaged.passRetained(ALPNPreference(alpn))
        copenssl_ctx_set_min_tls12(ctx)
        copenssl_ctx_set_nonblocking_write_modes(ctx)
        let certificate = readPEM(chain) { PEM_read_bio_X509($0, nil, nil, nil) }
        guard let certificate else {
            throw CryptoError(.malformedPEM, "the TLS certificate is not a PEM certificate")
        }
        defer { X509_free(certificate) }
        guard SSL_CTX_use_certificate(ctx, certificate) == 1 else {
            throw CryptoError(.tls, "cannot use the TLS certificate: \(CryptoError.openSSLQueue())")
        }
        let privateKey = try PrivateKey(pem: key, source: "the TLS private key")
        guard SSL_CTX_use_PrivateKey(ctx, privateKey.key.pointer) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            throw CryptoError(.tls, "the TLS key does not match the certificate: \(CryptoError.openSSLQueue())")
        }
        SSL_CTX_set_alpn_select_cb(ctx, selectALPN, alpnBox.toOpaque())
    }

    /// A server context from PEM files, naming the file in errors.
    public convenience init(serverCertificateFile: String, privateKeyFile: String, alpn: [String]) throws {
        guard let chain = FileManager.default.contents(atPath: serverCertificateFile) else {
            throw CryptoError(.unreadableFile, "cannot read TLS certificate file \(serverCertificateFile)")
        }
        guard let key = FileManager.default.contents(atPath: privateKeyFile) else {
            throw CryptoError(.unreadableFile, "cannot read TLS key file \(privateKeyFile)")
        }
        try self.init(serverCertificateChainPEM: chain, privateKeyPEM: key, alpn: alpn)
    }

    /// A client context offering `alpn`, verifying peers against `caFile` or, when nil, the
    /// system trust store.
    public init(clientALPN alpn: [String], caFile: String? = nil) throws {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else {
            throw CryptoError(.tls, "cannot create a TLS client context: \(CryptoError.openSSLQueue())")
        }
        pointer = ctx
        isServer = false
        alpnBox = Unmanaged.passRetained(ALPNPreference(alpn))
        copenssl_ctx_set_min_tls12(ctx)
        copenssl_ctx_set_nonblocking_write_modes(ctx)
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw CryptoError(.unreadableFile, "cannot read CA file \(caFile)")
            }
            guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
                throw CryptoError(.tls, "CA file \(caFile) holds no usable certificate: \(CryptoError.openSSLQueue())")
            }
        } else {
            SSL_CTX_set_default_verify_paths(ctx)
        }
        var wire: [UInt8] = []
        for name in alpn {
            wire.append(UInt8(name.utf8.count))
            wire.append(contentsOf: name.utf8)
        }
        // Unlike most of OpenSSL, this returns 0 on success.
        guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else {
            throw CryptoError(.tls, "cannot set ALPN: \(CryptoError.openSSLQueue())")
        }
    }

    deinit {
        SSL_CTX_free(pointer)
        alpnBox.release()
    }
}

/// Picks the server's most preferred protocol that the client also offered; refuses the
/// handshake when there is none, so a client that cannot speak h2 finds out at once.
private let selectALPN:
    @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { _, out, outLength, input, inputLength, arg in
        guard let arg, let input, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
        let preference = Unmanaged<TLSContext.ALPNPreference>.fromOpaque(arg).takeUnretainedValue()
        for wanted in preference.protocols {
            var index = 0
            while index < Int(inputLength) {
                let length = Int(input[index])
                let start = index + 1
                if start + length <= Int(inputLength), length == wanted.count,
                    (0..<length).allSatisfy({ input[start + $0] == wanted[$0] })
                {
                    out.pointee = input + start
                    outLength.pointee = UInt8(length)
                    return SSL_TLSEXT_ERR_OK
                }
                index = start + length
            }
        }
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }

/// What a non-blocking TLS call did.
public enum TLSIOResult: Equatable, Sendable {
    /// This many bytes were read or written.
    case bytes(Int)
    /// Nothing can happen until the socket is readable.
    case wantRead
    /// Nothing can happen until the socket is writable.
    case wantWrite
    /// The peer closed the connection.
    case closed
    /// The connection failed; the string says why.
    case failed(String)
}

/// One TLS connection over a non-blocking socket. Used from a single thread.
public final class TLSStream {
    private let ssl: OpaquePointer
    private let context: TLSContext

    /// Wraps `fd`. A client passes the server's name, used for SNI and hostname verification
    /// (an IP address is checked against the certificate's IP entries and sent without SNI).
    public init(context: TLSContext, fd: Int32, serverName: String? = nil) throws {
        guard let ssl = SSL_new(context.pointer) else {
            throw CryptoError(.tls, "cannot create a TLS session: \(CryptoError.openSSLQueue())")
        }
        self.ssl = ssl
        self.context = context
        SSL_set_fd(ssl, fd)
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName {
                var address = in6_addr()
                let isIP =
                    inet_pton(AF_INET, serverName, &address) == 1 || inet_pton(AF_INET6, serverName, &address) == 1
                if isIP {
                    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
                } else {
                    copenssl_set_sni(ssl, serverName)
                    SSL_set1_host(ssl, serverName)
                }
            }
        }
    }

    deinit { SSL_free(ssl) }

    /// Advances the handshake; `.bytes(0)` means it is complete.
    public func handshake() -> TLSIOResult {
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return .bytes(0) }
        return classify(rc, during: "TLS handshake")
    }

    /// The protocol ALPN settled on, if any.
    public var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Reads decrypted bytes.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> TLSIOResult {
        var count = 0
        let rc = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if rc == 1 { return .bytes(count) }
        return classify(rc, during: "TLS read")
    }

    /// Writes bytes (possibly only some of them).
    public func write(_ buffer: UnsafeRawBufferPointer) -> TLSIOResult {
        var count = 0
        let rc = SSL_write_ex(ssl, buffer.baseAddress, buffer.count, &count)
        if rc == 1 { return .bytes(count) }
        return classify(rc, during: "TLS write")
    }

    /// Sends close_notify, best effort.
    public func shutdown() { _ = SSL_shutdown(ssl) }

    private func classify(_ rc: Int32, during operation: String) -> TLSIOResult {
        let error = SSL_get_error(ssl, rc)
        switch error {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL:
            let detail = CryptoError.openSSLQueue()
            if errno == 0 || errno == ECONNRESET || errno == EPIPE { return .closed }
            return .failed("\(operation): \(String(cString: strerror(errno))) (\(detail))")
        default:
            var message = CryptoError.openSSLQueue()
            let verify = SSL_get_verify_result(ssl)
            if verify != X509_V_OK {
                message = "certificate verification failed: \(String(cString: X509_verify_cert_error_string(verify)))"
            }
            return .failed("\(operation): \(message)")
        }
    }
}

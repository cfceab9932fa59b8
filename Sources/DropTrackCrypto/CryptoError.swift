internal import COpenSSL

/// A key, certificate or TLS failure, with what went wrong in words and how to fix it.
public struct CryptoError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// A key or certificate file could not be read.
        public static let unreadableFile = Code("unreadableFile")
        /// The file was read but holds no key of the expected kind.
        public static let wrongKeyType = Code("wrongKeyType")
        /// The bytes are not a PEM key or certificate.
        public static let malformedPEM = Code("malformedPEM")
        /// Signing failed inside OpenSSL.
        public static let signingFailed = Code("signingFailed")
        /// Key or certificate generation failed.
        public static let generationFailed = Code("generationFailed")
        /// A TLS context or handshake failed.
        public static let tls = Code("tls")
        public var description: String { name }
    }

    /// The failure's kind; equality compares only this.
    public var code: Code
    /// A sentence saying what happened and what to do.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (a: CryptoError, b: CryptoError) -> Bool { a.code == b.code }

    public var description: String { message }

    /// Drains OpenSSL's error queue into one line, so the reason is not lost (and the queue does
    /// not leak into the next call).
    static func openSSLQueue() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return parts.isEmpty ? "no OpenSSL detail" : parts.joined(separator: "; ")
    }
}

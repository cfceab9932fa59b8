internal import COpenSSL
import Foundation

/// HMAC-SHA256 through OpenSSL (webhook signatures).
public enum HMACSHA256 {
    /// The 32-byte MAC of `message` under `key`.
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.baseAddress,
                    messageBytes.count, &out, &length)
            }
        }
        // HMAC fails only when out of memory; a wrong MAC would be refused by the receiver, never accepted.
        precondition(done != nil, "HMAC-SHA256 failed")
        return Array(out.prefix(Int(length)))
    }
}

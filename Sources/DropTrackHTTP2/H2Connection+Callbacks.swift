// nghttp2's C callbacks and the request-body provider: the bridge from libnghttp2 back to the
// `H2Connection` that owns the session, kept apart from the connection's loop.
internal import CNGHTTP2
import Foundation

extension H2Connection {
    /// A data provider reading from `source`, which the caller keeps alive until the stream closes.
    static func dataProvider(for source: BodySource) -> nghttp2_data_provider {
        nghttp2_data_provider(
            source: nghttp2_data_source(ptr: Unmanaged.passUnretained(source).toOpaque()),
            read_callback: readBody)
    }
}

private let readBody: nghttp2_data_source_read_callback = { _, _, buffer, length, flags, source, _ in
    guard let pointer = source?.pointee.ptr, let buffer, let flags else {
        return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
    }
    let body = Unmanaged<BodySource>.fromOpaque(pointer).takeUnretainedValue()
    let count = min(length, body.bytes.count - body.offset)
    if count > 0 {
        body.bytes.withUnsafeBufferPointer { bytes in
            buffer.update(from: bytes.baseAddress! + body.offset, count: count)
        }
        body.offset += count
    }
    if body.offset >= body.bytes.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
    return count
}

/// The one callback table every session shares; each callback finds its connection through user_data.
final class H2Callbacks: @unchecked Sendable {
    // Built once and never changed; nghttp2 copies it into each session.
    let pointer: OpaquePointer?
    static let shared = H2Callbacks()

    private init() {
        var callbacks: OpaquePointer? = nil
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameRecv)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClose)
        pointer = callbacks
    }
}

@inline(__always) private func connection(_ userData: UnsafeMutableRawPointer?) -> H2Connection {
    Unmanaged<H2Connection>.fromOpaque(userData!).takeUnretainedValue()
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame else { return 0 }
    connection(userData).onBeginHeaders(streamID: cnghttp2_frame_stream_id(frame))
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame else { return 0 }
    connection(userData).onHeader(
        streamID: cnghttp2_frame_stream_id(frame), name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    connection(userData).onData(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let onFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let owner = connection(userData)
    let type = cnghttp2_frame_type(frame)
    let endStream = cnghttp2_frame_flags(frame) & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    switch UInt32(type) {
    case NGHTTP2_HEADERS.rawValue:
        owner.onHeadersComplete(streamID: cnghttp2_frame_stream_id(frame), endStream: endStream)
    case NGHTTP2_DATA.rawValue:
        if endStream { owner.onDataComplete(streamID: cnghttp2_frame_stream_id(frame)) }
    case NGHTTP2_GOAWAY.rawValue:
        let data = Array(
            UnsafeBufferPointer(start: cnghttp2_goaway_data(frame), count: cnghttp2_goaway_data_len(frame)))
        owner.onGoAway(
            lastStreamID: cnghttp2_goaway_last_stream_id(frame), errorCode: cnghttp2_goaway_error_code(frame),
            debugData: data)
    case NGHTTP2_SETTINGS.rawValue:
        if cnghttp2_frame_flags(frame) & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 { owner.onSettings() }
    case NGHTTP2_PING.rawValue:
        if cnghttp2_ping_is_ack(frame) != 0 { owner.onPingAck() } else { owner.onPing() }
    default: break
    }
    return 0
}

private let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    connection(userData).onStreamClose(streamID: streamID, errorCode: errorCode)
    return 0
}

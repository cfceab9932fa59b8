#ifndef DROPTRACK_CNGHTTP2_SHIM_H
#define DROPTRACK_CNGHTTP2_SHIM_H

#include <nghttp2/nghttp2.h>

/* nghttp2_frame is a C union; reading it through these keeps the Swift side free of union layout. */
static inline uint8_t cnghttp2_frame_type(const nghttp2_frame *f) { return f->hd.type; }
static inline uint8_t cnghttp2_frame_flags(const nghttp2_frame *f) { return f->hd.flags; }
static inline int32_t cnghttp2_frame_stream_id(const nghttp2_frame *f) { return f->hd.stream_id; }
static inline uint8_t cnghttp2_headers_category(const nghttp2_frame *f) { return (uint8_t)f->headers.cat; }
static inline int32_t cnghttp2_goaway_last_stream_id(const nghttp2_frame *f) { return f->goaway.last_stream_id; }
static inline uint32_t cnghttp2_goaway_error_code(const nghttp2_frame *f) { return f->goaway.error_code; }
static inline const uint8_t *cnghttp2_goaway_data(const nghttp2_frame *f) { return f->goaway.opaque_data; }
static inline size_t cnghttp2_goaway_data_len(const nghttp2_frame *f) { return f->goaway.opaque_data_len; }
static inline int cnghttp2_ping_is_ack(const nghttp2_frame *f) { return (f->hd.flags & NGHTTP2_FLAG_ACK) != 0; }

#endif

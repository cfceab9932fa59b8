#ifndef DROPTRACK_CMICROHTTPD_SHIM_H
#define DROPTRACK_CMICROHTTPD_SHIM_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic and the constants below are cast macros: Swift imports
   none of them, so these wrappers fix the one option list DropTrack uses. */

/* Called before the URI is decoded, with the raw request target: the only place its bytes are seen as sent. What it
   returns becomes the request's `*con_cls`. */
typedef void *(*cmhd_uri_log_callback)(void *context, const char *uri, struct MHD_Connection *connection);

/* Internal epoll threads (a pool of them), suspend/resume for SSE (which also brings the inter-thread channel
   MHD_quiesce_daemon needs). No MHD_USE_ERROR_LOG: its messages would go straight to stderr, outside the logger.
   `connection_limit` is libmicrohttpd's own hard limit, split between the pool's threads; a thread at its share stops
   accepting and new connections wait in the kernel's backlog, so the caller keeps its own (lower) cap and refuses
   past it from `notify`. `strict` is MHD_OPTION_STRICT_FOR_CLIENT (0.9.75: 1 rejects HTTP/1.1 without Host and
   spaces in the URI; -1, not 1, rejects whitespace before a header's colon). */
static inline struct MHD_Daemon *cmhd_start_daemon(
    const struct sockaddr_in *address, unsigned int thread_pool_size, unsigned int connection_limit,
    unsigned int connection_timeout_seconds, int strict, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context, MHD_NotifyConnectionCallback notify,
    void *notify_context, cmhd_uri_log_callback uri_log, void *uri_log_context) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_STRICT_FOR_CLIENT, strict,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_context,
        MHD_OPTION_END);
}

/* Whether a connection notification is the one for a connection starting. */
static inline bool cmhd_notify_is_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/* The connection's socket (libmicrohttpd owns it: shut it down, never close it), or -1. */
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int)info->connect_fd;
}

/* The client's IPv4 address in network byte order, or 0 when it is not IPv4. */
static inline uint32_t cmhd_client_ipv4(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || info->client_addr->sa_family != AF_INET) return 0;
    return ((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr;
}

/* The pointer set through the notify callback's `socket_context` when the connection started, or NULL. */
static inline void *cmhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* Bytes from the request line's start to the end of the blank line after the headers, or 0 before they are in. */
static inline size_t cmhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/* The port the daemon is bound to (the real one when 0 was asked for), or 0 when unknown. */
static inline int cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : (int)info->port;
}

static inline uint64_t cmhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t cmhd_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t cmhd_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

#endif

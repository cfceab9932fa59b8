#ifndef DROPTRACK_CMICROHTTPD_SHIM_H
#define DROPTRACK_CMICROHTTPD_SHIM_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_daemon_info are variadic and the constants below are cast macros: Swift imports
   none of them, so these wrappers fix the one option list DropTrack uses. */

/* Internal epoll threads (a pool of them), suspend/resume for SSE (which also brings the inter-thread channel
   MHD_quiesce_daemon needs). No MHD_USE_ERROR_LOG: its messages would go straight to stderr, outside the logger. */
static inline struct MHD_Daemon *cmhd_start_daemon(
    const struct sockaddr_in *address, unsigned int thread_pool_size, unsigned int connection_limit,
    unsigned int connection_timeout_seconds, MHD_AccessHandlerCallback handler, void *handler_context,
    MHD_RequestCompletedCallback completed, void *completed_context) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_END);
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

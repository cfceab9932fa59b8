#ifndef DROPTRACK_CCURL_SHIM_H
#define DROPTRACK_CCURL_SHIM_H

#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call:
   these give each argument type its own non-variadic entry point. */
static inline CURLcode ccurl_set_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_size(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_set_write_function(CURL *h, CURLoption o, curl_write_callback f) {
    return curl_easy_setopt(h, o, f);
}
static inline CURLcode ccurl_set_opensocket_function(CURL *h, curl_opensocket_callback f) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f);
}
static inline CURLcode ccurl_set_prereq_function(CURL *h, curl_prereq_callback f) {
    return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, f);
}
static inline CURLcode ccurl_get_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_get_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode ccurl_get_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

/* CURL_GLOBAL_DEFAULT is a macro expression Swift does not import. */
static inline CURLcode ccurl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

/* CURLMsg's `data` is a union. */
static inline CURLcode ccurl_message_result(const CURLMsg *m) { return m->data.result; }

/* The address curl is about to connect to: `addr` is declared a struct sockaddr but holds the whole
   sockaddr_in or sockaddr_in6, so it is read here rather than through Swift's 16-byte copy of it.
   Writes 4 or 16 bytes to `out` and returns how many (0 for another family). */
static inline int ccurl_sockaddr_bytes(const struct curl_sockaddr *a, unsigned char out[16]) {
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in)) {
        memcpy(out, &((const struct sockaddr_in *)&a->addr)->sin_addr, 4);
        return 4;
    }
    if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)&a->addr)->sin6_addr, 16);
        return 16;
    }
    return 0;
}

#endif

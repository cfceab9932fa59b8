// Async-signal-safe: only write, dup2, sigaction, raise and clock_gettime run in the handler, on
// buffers prepared beforehand. Swift code cannot be trusted there (it may allocate or take locks).
#include "CCrashLine.h"

#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const int crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV};
#define CRASH_SIGNAL_COUNT (sizeof(crash_signals) / sizeof(crash_signals[0]))

static char report_text[256];

static const char *signal_name(int sig) {
    switch (sig) {
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGSEGV: return "SIGSEGV";
    default: return "unknown";
    }
}

static void put(char *line, size_t *length, size_t capacity, const char *text) {
    while (*text && *length + 1 < capacity) line[(*length)++] = *text++;
}

static void put_number(char *line, size_t *length, size_t capacity, long long value, int width) {
    char digits[24];
    int count = 0;
    if (value < 0) value = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < (int)sizeof(digits));
    while (count < width && count < (int)sizeof(digits)) digits[count++] = '0';
    while (count > 0 && *length + 1 < capacity) line[(*length)++] = digits[--count];
}

// RFC 3339 UTC with milliseconds, as the server's log lines have it (days to a civil date by
// Howard Hinnant's algorithm: integers only).
static void put_time(char *line, size_t *length, size_t capacity) {
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) return;
    long long seconds = now.tv_sec;
    long long days = seconds / 86400, rest = seconds % 86400;
    long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    long long day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    long long year = yoe + era * 400 + (month <= 2);
    put_number(line, length, capacity, year, 4);
    put(line, length, capacity, "-");
    put_number(line, length, capacity, month, 2);
    put(line, length, capacity, "-");
    put_number(line, length, capacity, day, 2);
    put(line, length, capacity, "T");
    put_number(line, length, capacity, rest / 3600, 2);
    put(line, length, capacity, ":");
    put_number(line, length, capacity, rest % 3600 / 60, 2);
    put(line, length, capacity, ":");
    put_number(line, length, capacity, rest % 60, 2);
    put(line, length, capacity, ".");
    put_number(line, length, capacity, now.tv_nsec / 1000000, 3);
    put(line, length, capacity, "Z");
}

static void on_crash(int sig, siginfo_t *info, void *context) {
    (void)context;
    char line[512];
    size_t length = 0;
    const size_t capacity = sizeof(line) - 1;
    put(line, &length, capacity, "{\"level\":\"critical\",\"msg\":\"server.crashed\",\"pid\":\"");
    put_number(line, &length, capacity, (long long)getpid(), 1);
    put(line, &length, capacity, "\",\"report\":\"");
    put(line, &length, capacity, report_text);
    put(line, &length, capacity, "\",\"signal\":\"");
    put(line, &length, capacity, signal_name(sig));
    put(line, &length, capacity, "\",\"time\":\"");
    put_time(line, &length, capacity);
    put(line, &length, capacity, "\"}\n");
    ssize_t written = write(STDERR_FILENO, line, length);
    (void)written;
    struct sigaction fallback;
    memset(&fallback, 0, sizeof(fallback));
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(sig, &fallback, NULL);
    if (info == NULL || info->si_code <= 0) raise(sig);
}

int droptrack_install_crash_line(const char *report) {
    size_t index = 0;
    // The report text goes inside a JSON string: keep printable ASCII other than quotes and backslashes.
    for (const char *c = report; c && *c && index + 1 < sizeof(report_text); c++) {
        if (*c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\') report_text[index++] = *c;
    }
    report_text[index] = 0;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (index = 0; index < CRASH_SIGNAL_COUNT; index++) {
        if (sigaction(crash_signals[index], &action, NULL) != 0) return -1;
    }
    return 0;
}

#ifndef CCRASHLINE_H
#define CCRASHLINE_H

/// Installs handlers for the signals a crash raises (SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV)
/// that write one JSON log line, in the server's own format, to standard error, then let the signal
/// end the process as its default action does. Install it only when the Swift runtime's backtracer is
/// off (it owns these signals otherwise). `report` says where a backtrace went; it is copied. Returns
/// 0, or -1 if a handler could not be installed.
int droptrack_install_crash_line(const char *report);

#endif

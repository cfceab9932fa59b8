#ifndef DROPTRACK_CLIBPQ_SHIM_H
#define DROPTRACK_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif

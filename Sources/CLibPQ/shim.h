#ifndef DROPTRACK_CLIBPQ_SHIM_H
#define DROPTRACK_CLIBPQ_SHIM_H
#include <libpq-fe.h>
/* PG_DIAG_SQLSTATE is a character-literal macro ('C'), which Swift does not import. */
static const int clibpq_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int clibpq_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* srp-client: what srp-client.c and srp-client-load.c share. */
#ifndef SRP_CLIENT_H
#define SRP_CLIENT_H

#include "srp/srp-conn.h"
#include "srp/srp-scsi.h"

/* Options of login-storm, flood and burst (srp-client-load.c). */
extern unsigned int g_rounds, g_channels, g_length;
extern const char *g_stop_file;
extern bool g_hold;

int case_login_storm(void);
int case_flood(void);
int case_over_credit(void);
int case_burst(void);
int case_read_fails(void);
int case_big(void);

#endif

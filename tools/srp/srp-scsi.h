/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srp-scsi - SRP_RSP parsing and SRP_CMD/SCSI command builders of the raw
 * SRP initiator (tools/srp-client.c, tools/srp-fuzz.c), on top of
 * srp-conn.h. Independent of the target's own code.
 */
#ifndef SRP_SCSI_H
#define SRP_SCSI_H

#include "srp-conn.h"

struct rsp {
	uint8_t flags, status;
	int32_t delta;
	uint32_t do_resid, di_resid, sense_len, resp_len, len;
	uint8_t resp[64];
	uint8_t sense[256];
};

struct seg {
	uint32_t off, len;
};

enum layout {
	DIRECT = SRP_DATA_DESC_DIRECT,
	INDIRECT = SRP_DATA_DESC_INDIRECT,
	IMMEDIATE = SRP_DATA_DESC_IMM,
};

extern uint64_t g_rand;
int parse_rsp(const struct iu *iu, uint64_t tag, struct rsp *r);
int sense_key(const struct rsp *r);
void sense_asc(const struct rsp *r, int *asc, int *ascq);
const char *rsp_str(const struct rsp *r, char *buf, size_t len);
int exec_iu(struct conn *c, const uint8_t *iu, uint32_t len,
	    struct rsp *r);
uint32_t cmd_hdr(uint8_t *iu, const uint8_t *cdb, unsigned int cdb_len);
uint32_t put_desc(uint8_t *p, uint64_t va, uint32_t rkey, uint32_t len);
uint64_t va_of(struct conn *c, uint32_t off);
uint32_t build_data_cmd(struct conn *c, uint8_t *iu, const uint8_t *cdb,
			unsigned int cdb_len, bool out, enum layout lay,
			const struct seg *s, int n);
int data_cmd(struct conn *c, const uint8_t *cdb, unsigned int cdb_len,
	     bool out, enum layout lay, const struct seg *s, int n,
	     struct rsp *r);
int nodata_cmd(struct conn *c, const uint8_t *cdb, unsigned int cdb_len,
	       struct rsp *r);
int tur_good(struct conn *c);
int login_tur_flags(struct conn *c, uint8_t flags);
int login_tur(struct conn *c);
int read_capacity(struct conn *c, uint64_t *blocks, uint32_t *bs);
void rw10_cdb(uint8_t *cdb, bool write, uint32_t lba, uint16_t nblk);
int rw(struct conn *c, bool write, uint32_t lba, uint16_t nblk,
       enum layout lay, const struct seg *s, int n);
void fill_random(uint8_t *p, size_t len);
int compare_segs(struct conn *c, const struct seg *s, int n,
		 uint32_t len);

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* srp-fuzz: what srp-fuzz.c (framework, logins) and srp-fuzz-iu.c share. */
#ifndef SRP_FUZZ_H
#define SRP_FUZZ_H

#include "srp/srp-conn.h"
#include "srp/srp-scsi.h"

/* xorshift64*, seeded per case from --seed and the case number. */
struct rng {
	uint64_t s;
};

uint64_t rnd(struct rng *r);
/* 0..n-1 (0 if n is 0). */
uint32_t below(struct rng *r, uint32_t n);
/* true with @pct percent. */
bool chance(struct rng *r, unsigned int pct);
/* lo..hi inclusive. */
uint32_t between(struct rng *r, uint32_t lo, uint32_t hi);
void rnd_bytes(struct rng *r, uint8_t *p, size_t n);

/* The description of the running case, printed when it fails. */
extern char g_desc[512];
void desc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Fuzzer state: the IU channel, reused across IU cases. */
struct fz {
	struct conn ch;
	bool open;
	uint64_t blocks;		/* fuzz LUN: READ CAPACITY */
	uint32_t bs;
	unsigned long reconnects;
	int64_t connect_ms;		/* time spent (re)connecting */
	unsigned int max_req;		/* target's srp_max_req_size */
};

/* Layout of the IU channel's data MR (FZ_DATA_LEN bytes). */
#define FZ_DATA_LEN	(4u << 20)
#define FZ_BUF_LEN	(3u << 20)	/* [0, 3 MiB): data descriptors */
#define FZ_CANARY	(3u << 20)	/* 64 KiB nobody may write */
#define FZ_CANARY_LEN	(64u << 10)
#define FZ_TABLES	(FZ_CANARY + FZ_CANARY_LEN)	/* indirect tables */
#define FZ_CANARY_BYTE(i)	((uint8_t)(0xc5 ^ (i) ^ ((i) >> 8)))

/* Open the IU channel (immediate data, as ib_srp); 0 or -1 (g_why). */
int fz_connect(struct fz *f);
/* Whether the canary of the IU channel's MR is intact (else g_why). */
int fz_canary_ok(struct fz *f);

/* One IU case on the (re)used channel: 0 as expected, -1 (g_why) not. */
int iu_case(struct fz *f, struct rng *r);

#endif

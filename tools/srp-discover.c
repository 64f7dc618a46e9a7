// SPDX-License-Identifier: GPL-2.0
/*
 * srp-discover - find SRP targets with Device Management MADs, also on RoCE
 *
 *   srp-discover [-d DEV] [-p PORT] [-g SGID_INDEX] [--rdma-cm-port N]
 *                [-v] [DEST...]
 *   srp-discover [-d DEV] [-p PORT] [-g SGID_INDEX] --get|--set ATTR:MOD DEST
 *
 * srp_daemon and ibsrpdm find targets through the subnet manager, which
 * RoCE does not have. This asks the DM agent of each DEST directly - a GID
 * (32 hex digits or IPv6 notation) or an IPv4/IPv6 address (whose RoCEv2
 * GID it is) - with GMPs carrying a GRH; without DEST it asks every GID of
 * the local port (targets on this host) and the IPv4 neighbours of the
 * port's netdev. For each SRP I/O controller found it prints what the agent
 * answered and two ready-to-use ib_srp add_target lines: the IB CM form
 * (InfiniBand) and the RDMA/CM form dest=IP:PORT (RoCE, iWARP; PORT is
 * the target's rdma_cm_port, which DM does not tell: --rdma-cm-port,
 * default 5555).
 *
 * Source GID index 0 by default: rxe keeps the IPv4 header of a RoCEv2
 * packet where the MAD layer looks for the GRH, so an answer to a query
 * sent from an IPv4-mapped GID does not match its request.
 *
 * --get/--set ATTR:MOD sends one DM Get or Set (all-zero data) to DEST and
 * prints the answer's MAD status and its 192 data bytes in hex.
 *
 * Exit status: 0 if at least one SRP target was found (with --get/--set:
 * an answer came), 1 if none, 2 on usage or setup errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/umad.h>

#define DM_CLASS		0x06
#define DM_VERSION		1
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define ATTR_IOU_INFO		0x0010
#define ATTR_IOC_PROFILE	0x0011
#define ATTR_SVC_ENTRIES	0x0012
#define MAD_SIZE		256
#define DM_DATA			64
#define TIMEOUT_MS		1000
#define RETRIES			2
#define MAX_DEST		64

struct mad_hdr {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status, class_specific;
	uint64_t tid;
	uint16_t attr_id, resv;
	uint32_t attr_mod;
} __attribute__((packed));

static const char *g_dev = "rxe0";
static int g_port = 1, g_sgid_index, g_verbose, g_rdma_cm_port = 5555;
static int g_portid = -1, g_agent = -1;

static void usage(FILE *f)
{
	fprintf(f, "usage: srp-discover [-d DEV] [-p PORT] [-g SGID_INDEX] [--rdma-cm-port N] [-v] [DEST...]\n"
		"       srp-discover [-d DEV] [-p PORT] [-g SGID_INDEX] --get|--set ATTR:MOD DEST\n"
		"Asks the Device Management agent of each DEST for its SRP targets and prints\n"
		"them with ib_srp add_target lines for the IB CM and the RDMA/CM.\n"
		"DEST: a GID (32 hex digits or IPv6 notation) or an IP address;\n"
		"default: the local port's GIDs and the netdev's IPv4 neighbours.\n"
		"  -d DEV             local RDMA device (default rxe0)\n"
		"  -p PORT            its port (default 1)\n"
		"  -g SGID_INDEX      source GID index (default 0)\n"
		"  --rdma-cm-port N   the target's rdma_cm_port for the dest= lines\n"
		"                     (default 5555; DM does not tell it)\n"
		"  -v                 report queries that got no answer or a MAD status\n"
		"  --get|--set ATTR:MOD  one DM Get or Set (zero data) to DEST; prints the\n"
		"                     MAD status and the data in hex\n"
		"Needs the ib_umad module and access to /dev/infiniband/umad* (root).\n"
		"Exit status: 0 if an SRP target was found (--get/--set: an answer came),\n"
		"1 if none, 2 on usage or setup errors.\n");
}

/*
 * Send @method attr/mod to @dgid; the 192 data bytes of the answer go to
 * @data and its MAD status to @mad_status. 0, or -1 if no answer came.
 */
static int dm_query(const uint8_t *dgid, uint8_t method, uint16_t attr,
		    uint32_t mod, uint8_t *data, int *mad_status)
{
	static uint64_t tid = 0x5250000000000000ull;
	uint8_t buf[sizeof(struct ib_user_mad) + MAD_SIZE];
	struct ib_user_mad *umad = (void *)buf;
	struct mad_hdr *h = umad_get_mad(umad);
	ib_mad_addr_t addr = { .grh_present = 1, .hop_limit = 64,
			       .gid_index = g_sgid_index };
	int len = MAD_SIZE, status;

	memset(buf, 0, sizeof(buf));
	*h = (struct mad_hdr){ .base_version = 1, .mgmt_class = DM_CLASS,
			       .class_version = DM_VERSION,
			       .method = method, .tid = htobe64(++tid),
			       .attr_id = htobe16(attr), .attr_mod = htobe32(mod) };
	memcpy(addr.gid, dgid, 16);
	umad_set_addr(umad, 0, 1, 0, 0x80010000);
	umad_set_grh(umad, &addr);
	umad_set_pkey(umad, 0);
	if (umad_send(g_portid, g_agent, umad, MAD_SIZE, TIMEOUT_MS, RETRIES) < 0)
		return -1;
	if (umad_recv(g_portid, umad, &len, TIMEOUT_MS * (RETRIES + 2)) < 0)
		return -1;
	status = umad_status(umad);
	if (status) {
		if (g_verbose)
			fprintf(stderr, "attr %#x mod %#x: no answer (%s)\n",
				attr, mod, strerror(status));
		return -1;
	}
	*mad_status = be16toh(h->status);
	memcpy(data, (uint8_t *)h + DM_DATA, MAD_SIZE - DM_DATA);
	return 0;
}

/* GET attr/mod from @dgid; the 192 data bytes go to @data. 0 or -1. */
static int dm_get(const uint8_t *dgid, uint16_t attr, uint32_t mod,
		  uint8_t *data)
{
	int status;

	if (dm_query(dgid, METHOD_GET, attr, mod, data, &status))
		return -1;
	if (status && g_verbose)
		fprintf(stderr, "attr %#x mod %#x: MAD status %#x\n", attr,
			mod, status);
	return status ? -1 : 0;
}

/* --get/--set ATTR:MOD: print the MAD status and the data in hex. */
static int raw_query(const uint8_t *dgid, uint8_t method, const char *spec)
{
	unsigned int attr, mod = 0;
	uint8_t data[192];
	int status, i;

	if (sscanf(spec, "%i:%i", &attr, &mod) < 1)
		return 2;
	if (dm_query(dgid, method, attr, mod, data, &status)) {
		printf("no answer\n");
		return 1;
	}
	printf("status 0x%04x data", status);
	for (i = 0; i < 192; i++)
		printf("%s%02x", i % 16 ? "" : " ", data[i]);
	printf("\n");
	return 0;
}

static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return be64toh(v); }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return be32toh(v); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return be16toh(v); }

/* The MAC of a link-local (EUI-64) GID, as "xx:xx:xx:xx:xx:xx". */
static void gid_mac(const uint8_t *gid, char *mac, size_t len)
{
	snprintf(mac, len, "%02x:%02x:%02x:%02x:%02x:%02x", gid[8] ^ 2,
		 gid[9], gid[10], gid[13], gid[14], gid[15]);
}

/*
 * The IPv4 address of the host with MAC @mac: a neighbour of the netdev,
 * or the netdev itself (then the port's IPv4-mapped GID tells it).
 */
static int mac_to_ipv4(const char *mac, char *ip, size_t len)
{
	char path[256], line[256], a[64], hw[64], own[64] = "";
	uint8_t gid[16];
	FILE *f;
	int i;

	f = fopen("/proc/net/arp", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %*s %*s %63s", a, hw) == 2 &&
		    !strcasecmp(hw, mac)) {
			snprintf(ip, len, "%.45s", a);
			fclose(f);
			return 0;
		}
	if (f)
		fclose(f);
	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d",
			 g_dev, g_port, i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && sscanf(line, "%63s", a) == 1) {
			fclose(f);
			snprintf(path, sizeof(path), "/sys/class/net/%s/address", a);
			f = fopen(path, "r");
			if (f && fgets(line, sizeof(line), f))
				sscanf(line, "%63s", own);
		}
		if (f)
			fclose(f);
		if (strcasecmp(own, mac))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/%d",
			 g_dev, g_port, i);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f) &&
		    inet_pton(AF_INET6, strtok(line, "\n"), gid) == 1 &&
		    !memcmp(gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
			inet_ntop(AF_INET, gid + 12, ip, len);
			fclose(f);
			return 0;
		}
		if (f)
			fclose(f);
	}
	return -1;
}

/*
 * How to reach the GID's owner over the RDMA/CM: the IPv4 address of a
 * RoCEv2 IPv4-mapped GID; for a link-local GID the IPv4 address of its MAC
 * if known, else the IPv6 link-local address; any other GID as IPv6.
 */
static void gid_to_dest(const uint8_t *gid, char *out, size_t len)
{
	char a[INET6_ADDRSTRLEN], mac[32];
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(gid, v4, 12)) {
		inet_ntop(AF_INET, gid + 12, a, sizeof(a));
		snprintf(out, len, "%s:%d", a, g_rdma_cm_port);
		return;
	}
	if (gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80) {
		gid_mac(gid, mac, sizeof(mac));
		if (!mac_to_ipv4(mac, a, sizeof(a))) {
			snprintf(out, len, "%s:%d", a, g_rdma_cm_port);
			return;
		}
		inet_ntop(AF_INET6, gid, a, sizeof(a));
		snprintf(out, len, "[%s%%<netdev>]:%d", a, g_rdma_cm_port);
		return;
	}
	inet_ntop(AF_INET6, gid, a, sizeof(a));
	snprintf(out, len, "[%s]:%d", a, g_rdma_cm_port);
}

static void print_service(const uint8_t *dgid, const uint8_t *prof,
			  const uint8_t *svc)
{
	char name[41], dest[80], gidhex[33];
	uint64_t ioc_guid = get64(prof), id;
	const char *ext;
	int i;

	memcpy(name, svc, 40);
	name[40] = '\0';
	id = get64(svc + 40);
	if (strncmp(name, "SRP.T10:", 8))
		return;
	ext = name + 8;
	for (i = 0; i < 16; i++)
		sprintf(gidhex + 2 * i, "%02x", dgid[i]);
	gid_to_dest(dgid, dest, sizeof(dest));
	printf("  service %s, service ID %016" PRIx64 "\n", name, id);
	printf("  add_target (IB CM):  id_ext=%.16s,ioc_guid=%016" PRIx64 ",dgid=%s,pkey=ffff,service_id=%016" PRIx64 ",max_it_iu_size=%u\n",
	       ext, ioc_guid, gidhex, id, get32(prof + 44));
	printf("  add_target (RDMA/CM): id_ext=%.16s,ioc_guid=%016" PRIx64 ",dest=%s\n",
	       ext, ioc_guid, dest);
}

/* Ask one port; return the number of SRP services found. */
static int discover(const uint8_t *dgid)
{
	uint8_t iou[192], prof[192], svc[192];
	char a[INET6_ADDRSTRLEN];
	int slot, n = 0, nsvc, e;

	if (dm_get(dgid, ATTR_IOU_INFO, 0, iou))
		return 0;
	inet_ntop(AF_INET6, dgid, a, sizeof(a));
	printf("I/O unit at GID %s: %u controller slot(s)\n", a, iou[2]);
	for (slot = 1; slot <= iou[2] && slot <= 256; slot++) {
		uint8_t nib = iou[4 + (slot - 1) / 2];

		nib = (slot & 1) ? nib >> 4 : nib & 0xf;
		if (nib != 1)
			continue;
		if (dm_get(dgid, ATTR_IOC_PROFILE, slot, prof))
			continue;
		printf(" slot %d: IOC GUID %016" PRIx64 ", \"%.64s\", I/O class %#06x, protocol %#06x, send size %u, RDMA size %u, %u service(s)\n",
		       slot, get64(prof), (char *)prof + 64, get16(prof + 28),
		       get16(prof + 32), get32(prof + 44), get32(prof + 48),
		       prof[54]);
		nsvc = prof[54];
		for (e = 0; e < nsvc; e++) {
			if (dm_get(dgid, ATTR_SVC_ENTRIES,
				   slot << 16 | e << 8 | e, svc))
				continue;
			if (get16(prof + 28) == 0x0100 || get16(prof + 28) == 0xff00) {
				print_service(dgid, prof, svc);
				n++;
			}
		}
	}
	return n;
}

/* DEST as a GID: 32 hex digits, IPv6 (a GID), or IPv4 (its mapped GID). */
static int parse_dest(const char *s, uint8_t *gid)
{
	struct in_addr a4;
	int i;

	if (strlen(s) == 32 && strspn(s, "0123456789abcdefABCDEF") == 32) {
		for (i = 0; i < 16; i++)
			sscanf(s + 2 * i, "%2hhx", &gid[i]);
		return 0;
	}
	if (inet_pton(AF_INET6, s, gid) == 1)
		return 0;
	if (inet_pton(AF_INET, s, &a4) != 1)
		return -1;
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, &a4, 4);
	return 0;
}

/* The local port's GIDs and the netdev's IPv4 neighbours. */
static int default_dests(uint8_t (*gids)[16], int max)
{
	char path[256], line[256], ndev[64] = "", ip[64], hw[64], dev[64];
	int n = 0, i;
	FILE *f;

	for (i = 0; i < 16 && n < max; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gids/%d",
			 g_dev, g_port, i);
		f = fopen(path, "r");
		if (!f)
			break;
		if (fgets(line, sizeof(line), f) && strcmp(line, "0000:0000:0000:0000:0000:0000:0000:0000\n") &&
		    inet_pton(AF_INET6, strtok(line, "\n"), gids[n]) == 1)
			n++;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d",
			 g_dev, g_port, i);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f) && !ndev[0])
			sscanf(line, "%63s", ndev);
		if (f)
			fclose(f);
	}
	f = fopen("/proc/net/arp", "r");
	if (!f)
		return n;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %*s %*s %63s %*s %63s", ip, hw, dev) == 3 &&
		    !strcmp(dev, ndev) && !parse_dest(ip, gids[n]))
			n++;
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	static uint8_t gids[MAX_DEST][16];
	int n = 0, found = 0, i, raw_method = 0;
	const char *raw_spec = NULL;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-d") && v) {
			g_dev = v; i++;
		} else if (!strcmp(a, "-p") && v) {
			g_port = atoi(v); i++;
		} else if (!strcmp(a, "-g") && v) {
			g_sgid_index = atoi(v); i++;
		} else if (!strcmp(a, "--rdma-cm-port") && v) {
			g_rdma_cm_port = atoi(v); i++;
		} else if ((!strcmp(a, "--get") || !strcmp(a, "--set")) && v) {
			raw_method = a[2] == 'g' ? METHOD_GET : METHOD_SET;
			raw_spec = v;
			i++;
		} else if (!strcmp(a, "-v")) {
			g_verbose = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (a[0] != '-' && n < MAX_DEST && !parse_dest(a, gids[n])) {
			n++;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (umad_init() < 0) {
		fprintf(stderr, "srp-discover: umad_init failed (is ib_umad loaded?)\n");
		return 2;
	}
	g_portid = umad_open_port(g_dev, g_port);
	if (g_portid < 0) {
		fprintf(stderr, "srp-discover: cannot open %s port %d: %s\n",
			g_dev, g_port, strerror(-g_portid));
		return 2;
	}
	g_agent = umad_register(g_portid, DM_CLASS, DM_VERSION, 0, NULL);
	if (g_agent < 0) {
		fprintf(stderr, "srp-discover: cannot register a DM agent: %s\n",
			strerror(-g_agent));
		return 2;
	}
	if (raw_spec) {
		if (n != 1) {
			usage(stderr);
			return 2;
		}
		return raw_query(gids[0], raw_method, raw_spec);
	}
	if (!n)
		n = default_dests(gids, MAX_DEST);
	for (i = 0; i < n; i++)
		found += discover(gids[i]);
	umad_unregister(g_portid, g_agent);
	umad_close_port(g_portid);
	if (!found)
		fprintf(stderr, "srp-discover: no SRP target found\n");
	return found ? 0 : 1;
}

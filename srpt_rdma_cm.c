// SPDX-License-Identifier: GPL-2.0
/*
 * The RDMA/CM side: listeners (rdma_cm_port, network portals), logins
 * (the 56-byte struct srp_login_req_rdma; RoCE and iWARP come this way)
 * handed to srpt_login(), and channels' RDMA/CM operations and events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cm.h>
#include "srpt_rdma_cm.h"
#include "srpt_ch.h"
#include "srpt_login.h"
#include "srpt_proto.h"
#include "srpt_stats.h"

/*
 * The wildcard listener of rdma_cm_port, under srpt_listen_mutex:
 * rdma_cm_port is the parameter (listened on once started), srpt_cm_running
 * whether listeners may start (module init to exit).
 */
static DEFINE_MUTEX(srpt_listen_mutex);
static struct rdma_cm_id *srpt_listen_id;
static u16 srpt_listen_port;
static unsigned short rdma_cm_port;
static bool srpt_cm_running;

/**
 * struct srpt_listener - an RDMA/CM listener bound to one address (np)
 * @entry: in srpt_listeners
 * @addr: address and port
 * @id: the listening id; NULL while no device has the address (the
 *	relisten work tries again when a device comes)
 * @starting: srpt_listener_start() binds @id; a DEVICE_REMOVAL then only
 *	sets @removed, and srpt_listener_start() destroys @id
 * @removed: see @starting
 * @rebind: the address moved (ADDR_CHANGE): srpt_relisten_work binds again
 */
struct srpt_listener {
	struct list_head	entry;
	struct sockaddr_storage	addr;
	struct rdma_cm_id	*id;
	bool			starting;
	bool			removed;
	bool			rebind;
};

/* srpt_listeners: changed under srpt_listen_mutex and srpt_listeners_lock. */
static LIST_HEAD(srpt_listeners);
static DEFINE_SPINLOCK(srpt_listeners_lock);
static void srpt_relisten_fn(struct work_struct *w);
static DECLARE_WORK(srpt_relisten_work, srpt_relisten_fn);

static int srpt_rdma_create_qp(struct srpt_rdma_ch *ch,
			       struct ib_qp_init_attr *attr)
{
	int ret = rdma_create_qp(ch->rdma_cm, ch->sport->sdev->pd, attr);

	if (!ret)
		ch->qp = ch->rdma_cm->qp;
	return ret;
}

static int srpt_rdma_accept(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc,
			    const void *rsp, u8 len)
{
	const struct ib_device_attr *a = &ch->sport->sdev->ib_dev->attrs;
	const struct rdma_conn_param *req = lc->rdma_param;
	struct rdma_conn_param param = {
		.private_data = rsp,
		.private_data_len = len,
		.flow_control = 1,
		.rnr_retry_count = 7,
		/* The CM already swapped these to our point of view. */
		.responder_resources = min_t(int, req->responder_resources,
					     a->max_qp_rd_atom),
		.initiator_depth = min_t(int, req->initiator_depth,
					 a->max_qp_init_rd_atom),
	};
	int ret;

	/* Taken when rdma_accept() moves the QP to RTR; 0 is 655.36 ms. */
	if (!rdma_protocol_iwarp(ch->rdma_cm->device, ch->rdma_cm->port_num)) {
		ret = rdma_set_min_rnr_timer(ch->rdma_cm, SRPT_MIN_RNR_TIMER);
		if (ret)
			return ret;
	}
	/* Later events of the id are the channel's. */
	ch->rdma_cm->context = ch;
	return rdma_accept(ch->rdma_cm, &param);
}

static void srpt_rdma_reject(struct srpt_login_ctx *lc, const void *rej,
			     u8 len)
{
	rdma_reject(lc->rdma_cm, rej, len, IB_CM_REJ_CONSUMER_DEFINED);
}

static void srpt_rdma_disconnect(struct srpt_rdma_ch *ch)
{
	rdma_disconnect(ch->rdma_cm);
}

static void srpt_rdma_destroy_qp(struct srpt_rdma_ch *ch)
{
	rdma_destroy_qp(ch->rdma_cm);
	ch->qp = NULL;
}

static void srpt_rdma_destroy(struct srpt_rdma_ch *ch)
{
	if (ch->qp)
		srpt_rdma_destroy_qp(ch);
	/* Waits for a callback of the id still running (the login's). */
	rdma_destroy_id(ch->rdma_cm);
	ch->rdma_cm = NULL;
}

static void srpt_rdma_comm_est(struct srpt_rdma_ch *ch)
{
	rdma_notify(ch->rdma_cm, IB_EVENT_COMM_EST);
}

static const struct srpt_cm_ops srpt_rdma_cm_ops = {
	.name		= "rdma_cm",
	.create_qp	= srpt_rdma_create_qp,
	.destroy_qp	= srpt_rdma_destroy_qp,
	.accept		= srpt_rdma_accept,
	.reject		= srpt_rdma_reject,
	.comm_est	= srpt_rdma_comm_est,
	.disconnect	= srpt_rdma_disconnect,
	.destroy	= srpt_rdma_destroy,
};

/* The initiator's address of a login (@lc zeroed), as text and as IPv6. */
static void srpt_login_ip(struct srpt_login_ctx *lc, struct sockaddr *sa)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;
	struct sockaddr_in *sin = (struct sockaddr_in *)sa;

	if (sa->sa_family == AF_INET)
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, &lc->ip_raw);
	else if (sa->sa_family == AF_INET6)
		lc->ip_raw = sin6->sin6_addr;
	else
		return;	/* lc->ip stays "" */
	lc->has_ip = true;
	if (ipv6_addr_v4mapped(&lc->ip_raw))
		snprintf(lc->ip, sizeof(lc->ip), "%pI4",
			 &lc->ip_raw.s6_addr32[3]);
	else
		snprintf(lc->ip, sizeof(lc->ip), "%pI6c", &lc->ip_raw);
}

static int srpt_rdma_cm_req_recv(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *param = &ev->param.conn;
	struct srpt_login_ctx lc = {
		.ib_dev = id->device,
		.port_num = id->port_num,
		.ops = &srpt_rdma_cm_ops,
		.rdma_cm = id,
		.rdma_param = param,
	};
	struct srp_login_rej rej;

	srpt_login_ip(&lc, (struct sockaddr *)&id->route.addr.dst_addr);
	strscpy(lc.peer, lc.ip, sizeof(lc.peer));
	if (srpt_parse_login_rdma(param->private_data,
				  param->private_data_len, &lc.lg)) {
		pr_warn_ratelimited("connection request from %s without SRP_LOGIN_REQ (%u bytes of private data)\n",
				    lc.ip, param->private_data_len);
		srpt_build_login_rej(&rej, 0,
				     SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
		srpt_rdma_reject(&lc, &rej, sizeof(rej));
		return -ECONNREFUSED;
	}
	return srpt_login(&lc);
}

/*
 * An event of an np listener's id (or of a refused login's: none found).
 * DEVICE_REMOVAL: the RDMA/CM may destroy the id (non-zero return), which
 * listens again when a device comes (srpt_rdma_cm_relisten()) - unless it
 * is being started or srpt_rdma_cm_unlisten() has it: those destroy it
 * themselves. ADDR_CHANGE: the address moved to another device or MAC
 * (bonding failover): the relisten work binds it again (as nvmet-rdma does).
 */
static int srpt_listener_event(struct rdma_cm_id *id,
			       enum rdma_cm_event_type event)
{
	struct srpt_listener *l;
	int ret = 0;

	spin_lock(&srpt_listeners_lock);
	list_for_each_entry(l, &srpt_listeners, entry) {
		if (l->id != id)
			continue;
		if (event == RDMA_CM_EVENT_ADDR_CHANGE) {
			l->rebind = true;
			pr_info("RDMA/CM listener on %pISpc: address change, binding again\n",
				&l->addr);
			schedule_work(&srpt_relisten_work);
		} else if (event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			pr_info("RDMA/CM listener on %pISpc: device removed\n",
				&l->addr);
			if (l->starting) {
				l->removed = true;
			} else {
				l->id = NULL;
				ret = 1;
			}
		}
		break;
	}
	spin_unlock(&srpt_listeners_lock);
	return ret;
}

static int srpt_rdma_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct srpt_rdma_ch *ch = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_rdma_cm_req_recv(id, ev);
	if (!ch)
		return srpt_listener_event(id, ev->event);
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		srpt_cm_closed(ch, rdma_event_msg(ev->event));
		break;
	default:
		break;
	}
	return 0;
}

static int srpt_bind_listen(struct rdma_cm_id *id, struct sockaddr *sa)
{
	int ret;

	if (sa->sa_family == AF_INET6 &&
	    ipv6_addr_any(&((struct sockaddr_in6 *)sa)->sin6_addr))
		rdma_set_afonly(id, 0);
	ret = rdma_bind_addr(id, sa);
	if (!ret)
		ret = rdma_listen(id, 128);
	return ret;
}

static struct rdma_cm_id *srpt_rdma_listen_on(struct sockaddr *sa)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	ret = srpt_bind_listen(id, sa);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/*
 * Start the listening id of @l (in srpt_listeners), published before it
 * is bound so that a DEVICE_REMOVAL during the bind finds it (the RDMA/CM
 * waits for the removed device's ids to go). Returns 0, -ENODEV if its
 * device went meanwhile (@l waits for the next), or the bind/listen error.
 */
static int srpt_listener_start(struct srpt_listener *l)
{
	struct rdma_cm_id *id;
	bool removed;
	int ret;

	lockdep_assert_held(&srpt_listen_mutex);
	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	spin_lock(&srpt_listeners_lock);
	l->id = id;
	l->starting = true;
	l->removed = false;
	l->rebind = false;
	spin_unlock(&srpt_listeners_lock);

	ret = srpt_bind_listen(id, (struct sockaddr *)&l->addr);
	if (!ret)
		srpt_fault_delay(SRPT_FAULT_NP_LISTEN);

	spin_lock(&srpt_listeners_lock);
	l->starting = false;
	removed = l->removed;
	if (ret || removed)
		l->id = NULL;
	spin_unlock(&srpt_listeners_lock);
	if (ret || removed)
		rdma_destroy_id(id);
	return removed ? -ENODEV : ret;
}

/**
 * srpt_rdma_cm_listen_addr() - an RDMA/CM listener on one address
 * @sa: IPv4 or IPv6 address and port
 *
 * Besides rdma_cm_port's wildcard listener: one bound to an address also
 * gets connections a wildcard one cannot, e.g. on soft-iWARP, whose
 * wildcard sockets are bound to the device's netdev and never see a login
 * from the same host (over lo). It waits for its device to come back, and
 * binds again when the address moves (ADDR_CHANGE).
 *
 * Return: the listener (undo with srpt_rdma_cm_unlisten()) or an ERR_PTR
 * (-EADDRINUSE if the port is taken on that address).
 */
struct srpt_listener *srpt_rdma_cm_listen_addr(struct sockaddr *sa)
{
	struct srpt_listener *l;
	int ret;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return ERR_PTR(-ENOMEM);
	memcpy(&l->addr, sa, sa->sa_family == AF_INET6 ?
	       sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
	mutex_lock(&srpt_listen_mutex);
	spin_lock(&srpt_listeners_lock);
	list_add_tail(&l->entry, &srpt_listeners);
	spin_unlock(&srpt_listeners_lock);
	ret = srpt_listener_start(l);
	if (ret && ret != -ENODEV) {
		spin_lock(&srpt_listeners_lock);
		list_del(&l->entry);
		spin_unlock(&srpt_listeners_lock);
		mutex_unlock(&srpt_listen_mutex);
		kfree(l);
		return ERR_PTR(ret);
	}
	mutex_unlock(&srpt_listen_mutex);
	if (ret)
		pr_info("RDMA/CM listener on %pISpc waits for its device\n", sa);
	else
		pr_info("RDMA/CM listening on %pISpc\n", sa);
	return l;
}

/**
 * srpt_rdma_cm_unlisten() - stop a listener of srpt_rdma_cm_listen_addr()
 * @l: the listener
 */
void srpt_rdma_cm_unlisten(struct srpt_listener *l)
{
	struct rdma_cm_id *id;

	mutex_lock(&srpt_listen_mutex);
	spin_lock(&srpt_listeners_lock);
	id = l->id;
	l->id = NULL;
	list_del(&l->entry);
	spin_unlock(&srpt_listeners_lock);
	mutex_unlock(&srpt_listen_mutex);
	/* Waits for a callback of the id still running. */
	if (id)
		rdma_destroy_id(id);
	kfree(l);
}

/* Listen again where a device went (id NULL) or the address moved. */
static void srpt_relisten_fn(struct work_struct *w)
{
	struct srpt_listener *l;
	struct rdma_cm_id *old;

	srpt_fault_delay(SRPT_FAULT_RELISTEN);
	mutex_lock(&srpt_listen_mutex);
	list_for_each_entry(l, &srpt_listeners, entry) {
		spin_lock(&srpt_listeners_lock);
		old = l->rebind ? l->id : NULL;
		if (old)
			l->id = NULL;
		l->rebind = false;
		spin_unlock(&srpt_listeners_lock);
		if (old)
			rdma_destroy_id(old);
		if (l->id || srpt_listener_start(l))
			continue;	/* not this device's address */
		pr_info("RDMA/CM listening on %pISpc again\n", &l->addr);
	}
	mutex_unlock(&srpt_listen_mutex);
}

/**
 * srpt_rdma_cm_relisten() - a device came: listen again where one had gone
 *
 * Context: the IB client's add(); a work item listens (srpt_rdma_cm_flush()).
 */
void srpt_rdma_cm_relisten(void)
{
	schedule_work(&srpt_relisten_work);
}

/* The wildcard listener on @port (0: none); the old one only if it works. */
static int srpt_rdma_cm_listen_locked(u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id = NULL, *old;

	lockdep_assert_held(&srpt_listen_mutex);
	if (port == srpt_listen_port)
		return 0;
	if (port) {
		id = srpt_rdma_listen_on((struct sockaddr *)&sin6);
		if (IS_ERR(id))
			id = srpt_rdma_listen_on((struct sockaddr *)&sin);
		if (IS_ERR(id)) {
			pr_err("RDMA/CM listener on port %u failed: %ld; still on port %u\n",
			       port, PTR_ERR(id), srpt_listen_port);
			return PTR_ERR(id);
		}
	}
	old = srpt_listen_id;
	srpt_listen_id = id;
	WRITE_ONCE(srpt_listen_port, port);
	if (old)
		rdma_destroy_id(old);
	if (port)
		pr_info("RDMA/CM listening on port %u\n", port);
	return 0;
}

/**
 * srpt_rdma_cm_listen() - move the RDMA/CM listener to another port
 * @port: TCP-style port number; 0 stops listening
 *
 * Listens on all IPv6 and IPv4 addresses; the old listener stops once the
 * new one listens. Outside srpt_rdma_cm_start()..stop() it records @port.
 *
 * Return: 0 or a negative errno (the old listener then stays).
 */
int srpt_rdma_cm_listen(u16 port)
{
	int ret = 0;

	mutex_lock(&srpt_listen_mutex);
	if (srpt_cm_running) {
		/* Holds the mutex, so module exit waits for it. */
		srpt_fault_delay(SRPT_FAULT_SET_PORT);
		ret = srpt_rdma_cm_listen_locked(port);
	}
	if (!ret)
		WRITE_ONCE(rdma_cm_port, port);
	mutex_unlock(&srpt_listen_mutex);
	return ret;
}

static int srpt_set_rdma_cm_port(const char *val, const struct kernel_param *kp)
{
	u16 port;
	int ret;

	ret = kstrtou16(val, 0, &port);
	return ret ? ret : srpt_rdma_cm_listen(port);
}

static int srpt_get_rdma_cm_port(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(rdma_cm_port));
}

static const struct kernel_param_ops srpt_rdma_cm_port_ops = {
	.set = srpt_set_rdma_cm_port,
	.get = srpt_get_rdma_cm_port,
};
module_param_cb(rdma_cm_port, &srpt_rdma_cm_port_ops, &rdma_cm_port, 0644);
MODULE_PARM_DESC(rdma_cm_port,
		 "Port the RDMA/CM listener accepts SRP logins on, 0 = none (default 0; also target/srpt/discovery_auth/rdma_cm_port)");

/**
 * srpt_rdma_cm_start() - listen on rdma_cm_port from now on
 *
 * Context: module init, once the IB client is registered.
 */
void srpt_rdma_cm_start(void)
{
	mutex_lock(&srpt_listen_mutex);
	srpt_cm_running = true;
	if (rdma_cm_port && srpt_rdma_cm_listen_locked(rdma_cm_port))
		WRITE_ONCE(rdma_cm_port, 0);
	mutex_unlock(&srpt_listen_mutex);
}

/**
 * srpt_rdma_cm_stop() - stop the listener of rdma_cm_port, for good
 *
 * Serialised with the parameter's setter: none starts a listener after
 * this. Context: module exit or failed init, before ib_unregister_client().
 */
void srpt_rdma_cm_stop(void)
{
	mutex_lock(&srpt_listen_mutex);
	srpt_cm_running = false;
	srpt_rdma_cm_listen_locked(0);
	mutex_unlock(&srpt_listen_mutex);
}

/**
 * srpt_rdma_cm_port() - the port the RDMA/CM listener listens on
 *
 * Return: the port, 0 if not listening.
 */
u16 srpt_rdma_cm_port(void)
{
	return READ_ONCE(rdma_cm_port);
}

/**
 * srpt_rdma_cm_flush() - wait for the relisten work, for good
 *
 * Context: module exit and every unwind of module init that registered
 * the IB client, after ib_unregister_client(): no device can queue the
 * work again (a device added during unload would, before it).
 */
void srpt_rdma_cm_flush(void)
{
	cancel_work_sync(&srpt_relisten_work);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ib_srpt - SCSI RDMA Protocol (SRP) target for the LIO target core.
 * Module entry: parameters, the IB client tracking RDMA devices and their
 * ports, and the order in which the parts start and stop.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "ib_srpt.h"
#include "srpt_ch.h"
#include "srpt_dm.h"
#include "srpt_fabric.h"
#include "srpt_ib_cm.h"
#include "srpt_life.h"
#include "srpt_login.h"
#include "srpt_rdma_cm.h"
#include "srpt_stats.h"

/*
 * The IOC GUID and id_ext of every device: the parameter, or else the
 * node GUID of the first RDMA device (set when it is added, and kept).
 * Reads show the value in use as 0x%016llx, as the in-kernel module does:
 * scripts build ib_srp's id_ext=...,ioc_guid=... from it.
 */
static u64 srpt_service_guid;

/*
 * Hexadecimal with or without 0x, as the in-kernel module parses it: a
 * node GUID with its colons removed (0002c903000e8acd) and a value of
 * decimal digits only are both taken as hex.
 */
static int srpt_set_service_guid(const char *val,
				 const struct kernel_param *kp)
{
	u64 guid;
	int ret;

	ret = kstrtou64(val, 16, &guid);
	if (ret) {
		pr_err("srpt_service_guid=%s: not a hexadecimal 64-bit GUID (with or without 0x)\n",
		       val);
		return ret;
	}
	srpt_service_guid = guid;
	return 0;
}

static int srpt_get_service_guid(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "0x%016llx\n", READ_ONCE(srpt_service_guid));
}

static const struct kernel_param_ops srpt_service_guid_ops = {
	.set = srpt_set_service_guid,
	.get = srpt_get_service_guid,
};
module_param_cb(srpt_service_guid, &srpt_service_guid_ops,
		&srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "IOC GUID and id_ext of the target on every RDMA device, which initiators put in the target port ID (default: the node GUID of the first RDMA device)");

static struct ib_client srpt_client;

/* The port events srpt_event_handler() acts on, by name. */
static const char *const srpt_port_events[] = {
	[IB_EVENT_PORT_ACTIVE]		= "port active",
	[IB_EVENT_LID_CHANGE]		= "LID change",
	[IB_EVENT_PKEY_CHANGE]		= "P_Key change",
	[IB_EVENT_SM_CHANGE]		= "SM change",
	[IB_EVENT_CLIENT_REREGISTER]	= "client re-register",
	[IB_EVENT_GID_CHANGE]		= "GID change",
};

/*
 * Port events: set the DM capability again (srpt_dm_port_refresh()).
 * Channels need little: their QPs report their own errors, logins look GIDs
 * up as they come; only releases waiting for a down port learn it is up.
 */
static void srpt_event_handler(struct ib_event_handler *h, struct ib_event *ev)
{
	struct srpt_device *sdev = container_of(h, struct srpt_device,
						event_handler);
	u32 p = ev->element.port_num;
	const char *what = NULL;

	if (p < 1 || p > sdev->port_cnt)
		return;
	if (ev->event == IB_EVENT_PORT_ERR) {
		pr_info("%s port %u: down\n", dev_name(&sdev->ib_dev->dev), p);
		return;
	}
	if (ev->event < ARRAY_SIZE(srpt_port_events))
		what = srpt_port_events[ev->event];
	if (!what)
		return;
	pr_debug("%s port %u: %s\n", dev_name(&sdev->ib_dev->dev), p, what);
	if (ev->event == IB_EVENT_PORT_ACTIVE)
		srpt_port_active(&sdev->port[p - 1]);
	srpt_dm_port_refresh(&sdev->port[p - 1]);
}

static int srpt_add_one(struct ib_device *dev)
{
	struct srpt_device *sdev;
	u32 p;

	sdev = kzalloc(struct_size(sdev, port, rdma_end_port(dev)),
		       GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->port_cnt = rdma_end_port(dev);
	sdev->ib_dev = dev;
	sdev->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(sdev->pd)) {
		int ret = PTR_ERR(sdev->pd);

		kfree(sdev);
		return ret;
	}
	/* Two devices may be added at once: the first one sets it. */
	cmpxchg64(&srpt_service_guid, 0, be64_to_cpu(dev->node_guid));
	sdev->ioc_guid = cpu_to_be64(READ_ONCE(srpt_service_guid));
	rdma_for_each_port(dev, p) {
		sdev->port[p - 1].sdev = sdev;
		sdev->port[p - 1].port_num = p;
	}
	ib_set_client_data(dev, &srpt_client, sdev);
	srpt_dev_register(sdev);
	srpt_ib_cm_listen(sdev);
	srpt_dm_register(sdev);
	INIT_IB_EVENT_HANDLER(&sdev->event_handler, dev, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);
	/* An np listener may have waited for this device. */
	srpt_rdma_cm_relisten();
	pr_info("%s: %u port(s), target port ID id_ext/ioc_guid %016llx, IB CM service ID the same\n",
		dev_name(&dev->dev), sdev->port_cnt,
		be64_to_cpu(sdev->ioc_guid));
	return 0;
}

static void srpt_remove_one(struct ib_device *dev, void *client_data)
{
	struct srpt_device *sdev = client_data;

	ib_unregister_event_handler(&sdev->event_handler);
	srpt_dm_unregister(sdev);
	/* No new IB CM logins; then close the device's channels. */
	srpt_ib_cm_unlisten(sdev);
	srpt_dev_unregister(sdev);
	ib_dealloc_pd(sdev->pd);
	kfree(sdev);
}

static struct ib_client srpt_client = {
	.name = KBUILD_MODNAME,
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

/*
 * Stop what srpt_init_module() started once the IB client was registered,
 * in the order that lets nothing outlive the module: no new rdma_cm_port
 * listener (the setter is serialised with this), no device (a device added
 * meanwhile may queue the relisten work), no channel, then the work.
 */
static void srpt_stop(void)
{
	srpt_rdma_cm_stop();
	srpt_fault_delay(SRPT_FAULT_UNLOAD);
	ib_unregister_client(&srpt_client);
	srpt_close_all_chs();
	srpt_rdma_cm_flush();
}

static int __init srpt_init_module(void)
{
	int ret;

	ret = srpt_check_params();
	if (ret)
		return ret;
	srpt_stats_init();
	srpt_ch_debugfs_init();
	srpt_life_debugfs_init();
	ret = srpt_life_init();
	if (ret)
		goto stats_exit;
	ret = srpt_fabric_register();
	if (ret) {
		pr_err("registering the srpt fabric failed: %d\n", ret);
		goto io_exit;
	}
	ret = ib_register_client(&srpt_client);
	if (ret) {
		pr_err("registering the IB client failed: %d\n", ret);
		/* It added and removed devices: their relisten work stays. */
		srpt_rdma_cm_flush();
		goto unregister_fabric;
	}
	srpt_rdma_cm_start();
	if (srpt_fault_delay(SRPT_FAULT_FAIL_INIT)) {
		pr_warn("fault point fail_init: module init fails\n");
		ret = -EAGAIN;
		srpt_stop();
		goto unregister_fabric;
	}
	return 0;

unregister_fabric:
	srpt_fabric_unregister();
io_exit:
	srpt_life_exit();
stats_exit:
	srpt_stats_exit();
	return ret;
}

static void __exit srpt_cleanup_module(void)
{
	srpt_stop();
	srpt_fabric_unregister();
	srpt_life_exit();
	srpt_stats_exit();
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

MODULE_DESCRIPTION("SCSI RDMA Protocol target for LIO");
/* dkms.conf's PACKAGE_VERSION: the distro's has none, so dkms installs ours. */
MODULE_VERSION("1.0");
MODULE_LICENSE("GPL");

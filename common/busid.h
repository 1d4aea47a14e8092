/*
 * PCI bus ids: the one parser and the one canonical form, shared by topo/
 * (joining CUDA devices to hwloc objects) and reports/ (joining documents
 * and foreign files by GPU).
 *
 * Accepted, case-insensitively, because real tools print them:
 *   "0000:3b:00.0"      hwloc, sysfs, lspci -D, CUDA cudaDeviceGetPCIBusId
 *   "00000000:3B:00.0"  nvidia-smi and NVML's busId (8-digit domain)
 *   "10000:e0:17.0"     a 32-bit domain (Intel VMD), as lspci prints it
 *   "3b:00.0"           lspci without -D (domain 0)
 *   "0000:3b:00"        nccl-tests' device_hex, nvbandwidth's device list
 *                       (domain:bus:device, no function: function 0)
 * The domain has 4 to 8 hex digits, bus and device exactly 2 (device at
 * most 1f), the function one digit 0-7. Anything else is refused: "3b:00"
 * (bus:device or domain:bus?), a 3-digit bus, a 9-digit domain.
 */
#ifndef GCB_BUSID_H
#define GCB_BUSID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/status.h"

/* "ffffffff:ff:1f.7" and its NUL fit. */
#define GCB_BUSID_LEN 20

struct gcb_busid {
  uint32_t domain;
  uint8_t bus, dev, func;
};

/*
 * Parses text in one of the forms above. GCB_EINPUT with the text in err's
 * message (err may be NULL) when it is not one; *out is zero then.
 */
enum gcb_status gcb_busid_parse(const char *text, struct gcb_busid *out,
                                struct gcb_err *err);

/* The canonical form, "0000:3b:00.0" (lower case, 4-digit domain or more,
 * as hwloc and sysfs write it), into buf (truncated to size). */
void gcb_busid_format(const struct gcb_busid *id, char *buf, size_t size);

/* Parse then format: false (and "" in out) when in is not a bus id. */
bool gcb_busid_canon(const char *in, char *out, size_t size);

#endif

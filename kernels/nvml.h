/*
 * NVML, loaded at run time: the CUDA toolkit here ships no NVML header or
 * stub library, and the driver's libnvidia-ml.so.1 exists only where a GPU
 * does. nvml.c declares the few functions and constants gcbench reads
 * (NVML's C ABI is stable across drivers) and resolves them with dlsym, so
 * this module compiles and links in every build, with or without CUDA.
 *
 * Nothing here fails a run: a missing library, a missing function or a GPU
 * that does not report a field leaves that field "unavailable" (-1, NAN or
 * ""), with the reason in words where one is asked for. Never guessed.
 */
#ifndef GCB_NVML_H
#define GCB_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/backend.h"

/* The library name the driver installs (nvml.h: "libnvidia-ml.so.1"). */
#define GCB_NVML_LIBRARY "libnvidia-ml.so.1"

struct gcb_nvml; /* a loaded and initialised NVML */

/*
 * Loads NVML from `path` (NULL: GCB_NVML_LIBRARY, found the dynamic
 * loader's way) and calls nvmlInit_v2. Returns NULL when the library, one of
 * its required functions or the initialisation is missing, with the reason
 * in why. The caller owns the result and frees it with gcb_nvml_close().
 */
struct gcb_nvml *gcb_nvml_open(const char *path, char *why, size_t why_len);

/* nvmlShutdown and dlclose; NULL is a no-op. */
void gcb_nvml_close(struct gcb_nvml *n);

/*
 * The NVML device with PCI bus id `bus_id` ("0000:19:00.0"), as an opaque
 * handle in *dev. Returns false with the reason in why when NVML does not
 * know it (for instance a GPU hidden from NVML inside a container).
 */
bool gcb_nvml_device(struct gcb_nvml *n, const char *bus_id, void **dev,
                     char *why, size_t why_len);

/* The driver version ("580.159.03") into buf; "" when unknown. */
void gcb_nvml_driver_version(struct gcb_nvml *n, char *buf, size_t len);

/*
 * Fills the NVML fields of h (uuid, clocks, PCIe link, NVLinks, ECC,
 * temperature, power, throttle reasons) for dev and sets h->nvml; fields
 * the GPU does not report stay unavailable. Leaves the CUDA fields alone.
 */
void gcb_nvml_health(struct gcb_nvml *n, void *dev, struct gcb_health *h);

/* One telemetry reading; NAN where not reported. */
struct gcb_nvml_sample {
  double sm_mhz, mem_mhz, power_w, temp_c;
  uint64_t reasons;
  bool reasons_known;
};

void gcb_nvml_sample(struct gcb_nvml *n, void *dev, struct gcb_nvml_sample *s);

/*
 * Marks every NVML field of h unavailable, with `why` as the reason (the
 * state a health record starts in, and stays in without NVML).
 */
void gcb_nvml_health_unavailable(struct gcb_health *h, const char *why);

/*
 * The NVML fields of a burn-in reading of dev, read now: SM and memory
 * clocks (nvmlDeviceGetClockInfo), GPU temperature, power
 * (nvmlDeviceGetPowerUsage), current clock-event reasons, volatile ECC
 * corrected (sbe) and uncorrected (dbe) totals, PCIe replays. Each field
 * the GPU or the driver does not report is NAN or -1 on its own (NVML
 * answers NOT_SUPPORTED field by field). Leaves cpu_mhz and xid alone.
 */
void gcb_nvml_burn_read(struct gcb_nvml *n, void *dev,
                        struct gcb_burn_reading *out);

/*
 * Xid events of one device: gcb_nvml_xids_open registers for
 * nvmlEventTypeXidCriticalError (nvmlDeviceRegisterEvents; only events
 * after it are recorded) and returns NULL with why when NVML cannot (old
 * driver, NOT_SUPPORTED, inside some containers). gcb_nvml_xids_poll
 * takes the events queued so far without waiting and returns the Xids
 * seen since the open; -1 for NULL. Close before gcb_nvml_close; NULL is
 * a no-op.
 */
struct gcb_nvml_xids;
struct gcb_nvml_xids *gcb_nvml_xids_open(struct gcb_nvml *n, void *dev,
                                         char *why, size_t why_len);
long long gcb_nvml_xids_poll(struct gcb_nvml_xids *x);
void gcb_nvml_xids_close(struct gcb_nvml_xids *x);

#endif

/*
 * The scripting face of the fake NVML (fake_nvml.c), for tests that drive
 * a reading over time: the test finds fake_nvml_control() with dlsym in
 * the same loaded library gcbench reads (dlopen of a loaded library's name
 * returns that library), sets the values and return codes the next calls
 * see, and raises Xid events. What it models of the real NVML (nvml.h):
 * - each field answers on its own: NVML_ERROR_NOT_SUPPORTED (3) for one
 *   field leaves the others readable;
 * - the ECC and PCIe replay counters only grow (the test sets them so);
 * - nvmlDeviceRegisterEvents may answer NOT_SUPPORTED (the set stays
 *   usable, with nothing registered); events raised before a registration
 *   are not recorded ("All events that occurred before this call are not
 *   recorded");
 * - nvmlEventSetWait_v2 hands out one event per call and answers
 *   NVML_ERROR_TIMEOUT (10) when none is queued within the timeout.
 */
#ifndef GCB_FAKE_NVML_H
#define GCB_FAKE_NVML_H

enum fake_nvml_field {
  FAKE_NVML_SM_MHZ,      /* nvmlDeviceGetClockInfo(NVML_CLOCK_SM) */
  FAKE_NVML_MEM_MHZ,     /* nvmlDeviceGetClockInfo(NVML_CLOCK_MEM) */
  FAKE_NVML_TEMP_C,      /* nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU) */
  FAKE_NVML_POWER_MW,    /* nvmlDeviceGetPowerUsage */
  FAKE_NVML_REASONS,     /* nvmlDeviceGetCurrentClocksThrottleReasons */
  FAKE_NVML_ECC_SBE,     /* nvmlDeviceGetTotalEccErrors(CORRECTED, VOLATILE) */
  FAKE_NVML_ECC_DBE,     /* ... (UNCORRECTED, VOLATILE) */
  FAKE_NVML_PCIE_REPLAY, /* nvmlDeviceGetPcieReplayCounter */
  FAKE_NVML_FIELDS
};

#define FAKE_NVML_XID_QUEUE 64

struct fake_nvml {
  unsigned long long value[FAKE_NVML_FIELDS];
  int rc[FAKE_NVML_FIELDS]; /* what each field's call returns (0: success) */
  int register_rc;          /* nvmlDeviceRegisterEvents' answer */
  int registered;           /* event sets holding the Xid type */
  int sets;                 /* event sets created and not yet freed */
  int queue[FAKE_NVML_XID_QUEUE], queued; /* Xids waiting, oldest first */
  int waits, timeouts;          /* nvmlEventSetWait_v2 calls; TIMEOUT answers */
  unsigned int longest_wait_ms; /* the largest timeout a caller asked for */
  int wait_rc; /* non-zero: every wait answers this (GPU_IS_LOST = 15) */
};

/* The state (defaults: the recorded H200 of fake_nvml.c), and a reset. */
typedef struct fake_nvml *fake_nvml_control_fn(void);
typedef void fake_nvml_reset_fn(void);
/* An Xid event now: queued when a set holds the Xid type, else lost. */
typedef void fake_nvml_raise_xid_fn(int xid);

#endif

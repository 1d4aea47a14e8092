/*
 * PCIe lane rates per generation: the one table, used by topo/ (the
 * expected-bandwidth model, a link's generation and width from hwloc's
 * speed) and reports/ (NVML's current link against its maximum).
 *
 * Data rate per lane and direction = transfer rate x encoding efficiency:
 * gen1 2.5 GT/s and gen2 5 GT/s with 8b/10b; gen3 8, gen4 16 and gen5
 * 32 GT/s with 128b/130b; gen6 64 GT/s PAM4 with 1b/1b encoding in FLIT
 * mode, where 242 of each 256-byte FLIT carry data (236 TLP + 6 DLP bytes;
 * the other 14 are CRC and FEC). PCI-SIG's figures, as on the PCIe
 * Wikipedia table: gen3 x16 15.75 GB/s, gen6 x16 121 GB/s.
 */
#ifndef GCB_PCIE_H
#define GCB_PCIE_H

/* The newest generation in the table. */
#define GCB_PCIE_GEN_MAX 6

/* Data rate of one lane and direction in GB/s (1e9 bytes/s) for gen
 * 1..6, exactly (gen3: 8 x 128/130 / 8 = 0.984615...); 0 otherwise. */
double gcb_pcie_lane_gbps(int gen);

/* A link of width lanes: gcb_pcie_lane_gbps(gen) x width; 0 for an unknown
 * generation or a width below 1. */
double gcb_pcie_link_gbps(int gen, int width);

#endif

/*
 * PCIe lane rates (pcie.h): each generation's transfer rate and encoding,
 * the data rate derived from them, never rounded by hand.
 */
#include "common/pcie.h"

static const struct {
  double gts;             /* transfer rate per lane */
  double payload, symbol; /* encoding: payload bits of symbol bits */
} pcie_gens[GCB_PCIE_GEN_MAX + 1] = {
    [1] = {2.5, 8, 10},
    [2] = {5, 8, 10},
    [3] = {8, 128, 130},
    [4] = {16, 128, 130},
    [5] = {32, 128, 130},
    [6] = {64, 242, 256}, /* 1b/1b PAM4; FLIT: 242 data bytes of 256 */
};

double gcb_pcie_lane_gbps(int gen) {
  if (gen < 1 || gen > GCB_PCIE_GEN_MAX)
    return 0;
  /* GT/s are Gbit/s on the wire; a byte is 8 bits */
  return pcie_gens[gen].gts * pcie_gens[gen].payload / pcie_gens[gen].symbol /
         8;
}

double gcb_pcie_link_gbps(int gen, int width) {
  return width >= 1 ? gcb_pcie_lane_gbps(gen) * width : 0;
}

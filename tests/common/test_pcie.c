/* PCIe lane rates: each generation's transfer rate times its encoding,
 * against the figures PCI-SIG publishes (and the PCIe Wikipedia table
 * repeats): gen3 x16 15.75 GB/s, gen4 x16 31.5, gen5 x16 63, gen6 x16
 * 121 (64 GT/s, 1b/1b PAM4, 242 data bytes per 256-byte FLIT). */
#include <criterion/criterion.h>
#include <math.h>

#include "common/pcie.h"

Test(pcie, lane_rates_are_transfer_rate_times_encoding) {
  static const double exact[] = {0,
                                 0.25,
                                 0.5,
                                 8.0 * 128 / 130 / 8,
                                 16.0 * 128 / 130 / 8,
                                 32.0 * 128 / 130 / 8,
                                 64.0 * 242 / 256 / 8};
  for (int g = 0; g <= GCB_PCIE_GEN_MAX; g++)
    cr_expect(fabs(gcb_pcie_lane_gbps(g) - exact[g]) < 1e-12, "gen%d: %.9f", g,
              gcb_pcie_lane_gbps(g));
  /* not the rounded 0.985 or 0.9846 of old copies */
  cr_expect(fabs(gcb_pcie_lane_gbps(3) - 0.98461538461) < 1e-10);
  cr_expect_eq(gcb_pcie_lane_gbps(7), 0);
  cr_expect_eq(gcb_pcie_lane_gbps(-1), 0);
}

Test(pcie, x16_links_match_the_published_figures) {
  static const double x16[] = {0, 4, 8, 15.75, 31.5, 63, 121};
  for (int g = 1; g <= GCB_PCIE_GEN_MAX; g++)
    cr_expect(fabs(gcb_pcie_link_gbps(g, 16) - x16[g]) < 1e-3 * x16[g],
              "gen%d x16: %.4f", g, gcb_pcie_link_gbps(g, 16));
  cr_expect_eq(gcb_pcie_link_gbps(3, 0), 0);
  cr_expect_eq(gcb_pcie_link_gbps(0, 16), 0);
}

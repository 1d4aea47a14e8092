/* PCI bus ids: every form a real tool prints parses to the same parts and
 * the same canonical text; forms no tool prints are refused. Sources:
 * nvidia-smi --query-gpu=pci.bus_id and NVML nvmlPciInfo_t.busId
 * ("00000000:3B:00.0"), CUDA cudaDeviceGetPCIBusId and hwloc's
 * pci_busid attribute (the XMLs of tests/data/topo: "0000:3b:00.0"), lspci
 * ("3b:00.0"; with -D "0000:3b:00.0"; Intel VMD domains "10000:e0:17.0"),
 * nccl-tests' device_hex and nvbandwidth's device list
 * (tests/data/interop: "0000:19:00", "00000000:19:00"). */
#include <criterion/criterion.h>
#include <string.h>

#include "common/busid.h"

struct busid_case {
  const char *text;
  const char *canon; /* NULL: refused */
};

static const struct busid_case cases[] = {
    {"0000:3b:00.0", "0000:3b:00.0"},     /* hwloc, CUDA, sysfs, lspci -D */
    {"00000000:3B:00.0", "0000:3b:00.0"}, /* nvidia-smi, NVML busId */
    {"0000:3B:00.0", "0000:3b:00.0"},     /* NVML busIdLegacy */
    {"3b:00.0", "0000:3b:00.0"},          /* lspci */
    {"0000:19:00", "0000:19:00.0"},       /* nccl-tests device_hex */
    {"00000000:19:00", "0000:19:00.0"},   /* nvbandwidth device list */
    {"10000:e0:17.0", "10000:e0:17.0"},   /* VMD domain, lspci */
    {"000a:01:00.0", "000a:01:00.0"},
    {"0000:B7:1F.7", "0000:b7:1f.7"},
    {"ffffffff:ff:1f.7", "ffffffff:ff:1f.7"},
    /* refused */
    {"3b:00", NULL},             /* bus:device or domain:bus? */
    {"0000:3b:00.8", NULL},      /* function 0-7 */
    {"0000:3b:20.0", NULL},      /* device 0-1f */
    {"0000:119:00.0", NULL},     /* 3-digit bus */
    {"0000:3b:0.0", NULL},       /* 1-digit device */
    {"000:3b:00.0", NULL},       /* 3-digit domain: no tool prints it */
    {"000000000:19:00.0", NULL}, /* 9-digit domain */
    {"0000:3b:00.0.1", NULL},
    {"0000:3b:00.", NULL},
    {"0x3b", NULL},
    {"0000:zz:00.0", NULL},
    {" 0000:3b:00.0", NULL},
    {"", NULL},
};

Test(busid, every_form_real_tools_print_parses_to_one_canonical_form) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const struct busid_case *c = &cases[i];
    char out[GCB_BUSID_LEN] = "junk";
    bool ok = gcb_busid_canon(c->text, out, sizeof out);
    cr_expect_eq(ok, c->canon != NULL, "'%s'", c->text);
    cr_expect_str_eq(out, c->canon ? c->canon : "", "'%s'", c->text);
  }
}

Test(busid, parse_gives_the_parts_and_a_located_error) {
  struct gcb_busid id;
  struct gcb_err err = {0};
  cr_assert_eq(gcb_busid_parse("00000000:B7:1F.7", &id, &err), GCB_OK);
  cr_expect(id.domain == 0 && id.bus == 0xb7 && id.dev == 0x1f && id.func == 7);
  cr_assert_eq(gcb_busid_parse("10000:e0:17.0", &id, &err), GCB_OK);
  cr_expect_eq(id.domain, 0x10000);
  cr_expect_eq(gcb_busid_parse("0000:3b:00.9", &id, &err), GCB_EINPUT);
  cr_expect(id.domain == 0 && id.bus == 0 && id.dev == 0 && id.func == 0);
  cr_expect(strstr(err.msg, "'0000:3b:00.9' is not a PCI bus id") != NULL, "%s",
            err.msg);
  cr_expect_eq(gcb_busid_parse(NULL, &id, NULL), GCB_EINPUT);
}

/* Whether two texts name the same PCI function: both bus ids, one
 * canonical form. */
static bool same_function(const char *a, const char *b) {
  char x[32], y[32];
  return gcb_busid_canon(a, x, sizeof x) && gcb_busid_canon(b, y, sizeof y) &&
         strcmp(x, y) == 0;
}

Test(busid, same_function_in_different_forms_is_the_same) {
  cr_expect(same_function("00000000:3B:00.0", "3b:00.0"));
  cr_expect(same_function("0000:19:00", "0000:19:00.0"));
  cr_expect(!same_function("0000:19:00.1", "0000:19:00.0"));
  cr_expect(!same_function("0001:19:00.0", "0000:19:00.0"));
  cr_expect(!same_function("nonsense", "nonsense"));
}

Test(busid, format_truncates_within_the_buffer) {
  struct gcb_busid id = {0x12345678, 0xab, 0x1f, 7};
  char small[8];
  gcb_busid_format(&id, small, sizeof small);
  cr_expect_str_eq(small, "1234567");
  char out[GCB_BUSID_LEN];
  gcb_busid_format(&id, out, sizeof out);
  cr_expect_str_eq(out, "12345678:ab:1f.7");
}

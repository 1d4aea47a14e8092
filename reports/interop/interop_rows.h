/*
 * The rows of the converter table (interop.c): each format's detect and
 * convert functions, defined in the format's own file. See
 * struct gcb__converter (interop_int.h) for their contracts.
 */
#ifndef GCB_INTEROP_ROWS_H
#define GCB_INTEROP_ROWS_H

#include "reports/interop/interop_int.h"

#define GCB__ROW(name)                                                         \
  int gcb__##name##_detect(const struct gcb__sniff *s, char *why,              \
                           size_t size);                                       \
  enum gcb_status gcb__##name##_convert(struct gcb__conv *cv,                  \
                                        const json_t *root, json_t **doc)

int gcb__gcbench_detect(const struct gcb__sniff *s, char *why, size_t size);
GCB__ROW(nccl_json);  /* interop_nccl_json.c: nccl-tests -J */
GCB__ROW(rccl_jsonl); /* interop_rccl_json.c: rccl-tests JSON lines */
GCB__ROW(nvbw_json);  /* interop_nvbw_json.c: nvbandwidth -j */
GCB__ROW(osu);        /* interop_osu.c: OSU micro-benchmarks */
GCB__ROW(nvbw_text);  /* interop_nvbw_text.c: nvbandwidth stdout */
/* interop_coll_log.c: nccl-tests and rccl-tests stdout, one conversion */
int gcb__nccl_log_detect(const struct gcb__sniff *s, char *why, size_t size);
int gcb__rccl_log_detect(const struct gcb__sniff *s, char *why, size_t size);
enum gcb_status gcb__coll_log_convert(struct gcb__conv *cv, const json_t *root,
                                      json_t **doc);

#endif

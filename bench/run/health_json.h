/* GPU health records (kernels/backend.h) as the results document's
 * nodes[].gpus array; see docs/results-schema.md. */
#ifndef GCB_HEALTH_JSON_H
#define GCB_HEALTH_JSON_H

#include <jansson.h>

#include "kernels/backend.h"

/* JSON array of n health records; unreadable values are null. NULL on
 * ENOMEM. */
json_t *gcb__health_json(const struct gcb_health *gpus, int n);

#endif

/*
 * Table rows through a buffer (render_rows.h): cells that need no
 * escaping are copied, the others written by the format's own escaper, so
 * the escaping rules stay in render.c alone.
 */
#include "reports/render/render_rows.h"

#include <string.h>

void gcb__rows_flush(struct gcb__rows *b) {
  fwrite(b->buf, 1, b->n, b->out);
  b->n = 0;
}

void gcb__rows_put(struct gcb__rows *b, const char *s) {
  gcb__rows_putn(b, s, strlen(s));
}

void gcb__rows_putn(struct gcb__rows *b, const char *s, size_t n) {
  if (b->n + n > sizeof b->buf)
    gcb__rows_flush(b);
  if (n > sizeof b->buf) {
    fwrite(s, 1, n, b->out);
    return;
  }
  memcpy(b->buf + b->n, s, n);
  b->n += n;
}

void gcb__rows_text(struct gcb__rows *b, const char *s, const char *special,
                    void (*escape)(FILE *, const char *)) {
  for (const char *c = s; *c; c++)
    if (*c < 0x20 || *c > 0x7e || strchr(special, *c) != NULL) {
      gcb__rows_flush(b);
      escape(b->out, s);
      return;
    }
  gcb__rows_put(b, s);
}

/*
 * Table rows through a buffer (render_rows.h). The escapers that fill it
 * with cell text are render.c's (gcb__rows_xml, _md, _csv), so the
 * escaping rules stay there alone.
 */
#include "reports/render/render_rows.h"

#include <string.h>

void gcb__rows_flush(struct gcb__rows *b) {
  fwrite(b->buf, 1, b->n, b->out);
  b->n = 0;
}

char *gcb__rows_room(struct gcb__rows *b, size_t n) {
  if (b->n + n > sizeof b->buf)
    gcb__rows_flush(b);
  return b->buf + b->n;
}

void gcb__rows_put(struct gcb__rows *b, const char *s) {
  gcb__rows_putn(b, s, strlen(s));
}

void gcb__rows_putn(struct gcb__rows *b, const char *s, size_t n) {
  if (n > sizeof b->buf) {
    gcb__rows_flush(b);
    fwrite(s, 1, n, b->out);
    return;
  }
  memcpy(gcb__rows_room(b, n), s, n);
  b->n += n;
}

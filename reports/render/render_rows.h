/*
 * Table rows put together in memory and written in large pieces, for the
 * renderers whose tables have a row per rank (index.html, report.md):
 * three stdio calls and an escape pass per cell were most of their cost.
 * Internal to reports/render.
 */
#ifndef GCB_RENDER_ROWS_H
#define GCB_RENDER_ROWS_H

#include <stdio.h>

struct gcb__rows {
  FILE *out;
  size_t n;
  char buf[16384];
};

/* Writes what is buffered; the buffer is then empty. */
void gcb__rows_flush(struct gcb__rows *b);
/* Room for n more bytes (n <= sizeof b->buf) at b->buf + b->n, what is
 * buffered written first when there is not; the caller writes there and
 * adds what it wrote to b->n (numbers formatted in place). */
char *gcb__rows_room(struct gcb__rows *b, size_t n);
/* Appends s as it is. */
void gcb__rows_put(struct gcb__rows *b, const char *s);
/* n bytes of s, as they are. */
void gcb__rows_putn(struct gcb__rows *b, const char *s, size_t n);
/* Appends s as gcb_escape_xml, gcb_escape_md, gcb_escape_csv write it
 * (render.c: these are the escapers, the stream ones write through rows
 * of their own; what needs no escaping is copied in runs). */
void gcb__rows_xml(struct gcb__rows *b, const char *s);
void gcb__rows_md(struct gcb__rows *b, const char *s);
void gcb__rows_csv(struct gcb__rows *b, const char *s);

#endif

/*
 * The one way an array of gcbench grows: room for element n of *p, an
 * array of *cap elements of `size` bytes, doubled (from 16) when n has
 * reached *cap. False, with the array as it was, when memory runs out or
 * the size would overflow. Inline: it is called per element pushed.
 */
#ifndef GCB_GROW_H
#define GCB_GROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

static inline bool gcb_grow(void **p, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return true;
  size_t c = *cap ? *cap * 2 : 16;
  if (c < *cap || size == 0 || c > SIZE_MAX / size)
    return false;
  void *q = realloc(*p, c * size);
  if (q == NULL)
    return false;
  *p = q;
  *cap = c;
  return true;
}

#endif

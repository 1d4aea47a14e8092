/*
 * Reading a large document's per_rank values on more than one thread
 * (read_fast.c's scan is one pass from the start, and at 16,384 ranks
 * its lexing of the columns was a third of a report's load): the text is
 * cut into parts by bytes, and a thread for each part after the first
 * reads every `"per_rank": {` value that begins in it, found by searching
 * for the key, before the scan gets there. When the scan reaches a case's
 * per_rank it takes the value read ahead at that very byte, or reads it
 * itself when there is none (a key the search missed, a thread that did
 * not start). A value read ahead is what the scan's own lexer makes of
 * the text from that byte (the same lexer, read_lex.h), so the document
 * built does not depend on the threads; a `"per_rank"` found where no
 * case's is (a deeper key) is read for nothing and dropped.
 */
#ifndef GCB_READ_AHEAD_H
#define GCB_READ_AHEAD_H

#include <jansson.h>
#include <stddef.h>

#define GCB_READ_AHEAD_MAX_PARTS 4

struct gcb__ahead;

/* Starts parts - 1 threads on the text's parts after the first (parts at
 * most GCB_READ_AHEAD_MAX_PARTS); NULL when parts < 2 or out of memory:
 * then the scan reads everything. */
struct gcb__ahead *gcb__ahead_start(const char *text, size_t len,
                                    size_t compact_min, size_t parts);

/* The per_rank value that begins at byte `begin` of the text when a
 * thread read it (new reference, *end: the byte after it), waiting for
 * that part's thread to get past it; NULL: the caller reads it. Called
 * in increasing order of begin. a may be NULL. */
json_t *gcb__ahead_take(struct gcb__ahead *a, size_t begin, size_t *end);

/* Stops the threads and drops what was read and not taken. a may be
 * NULL. */
void gcb__ahead_stop(struct gcb__ahead *a);

#endif

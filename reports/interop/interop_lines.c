/*
 * Lines of the text formats (nccl-tests, rccl-tests, OSU, nvbandwidth
 * stdout), as people keep them: pasted into markdown ("> " quoting),
 * captured through Open MPI's --tag-output ("[1,0]<stdout>:") or srun
 * --label ("0: "), with CRs from Windows editors. Those prefixes are
 * removed here once, so the converters see the tool's own text.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/interop/interop_int.h"

/* Length of an Open MPI "[1,0]<stdout>:" / "<stderr>:" tag at s, or 0. */
static size_t mpi_tag(const char *s, size_t n) {
  size_t i = 0;
  if (n < 2 || s[0] != '[')
    return 0;
  for (i = 1; i < n && (isdigit((unsigned char)s[i]) || s[i] == ','); i++)
    ;
  if (i == 1 || i >= n || s[i] != ']')
    return 0;
  i++;
  static const char *const tags[] = {"<stdout>:", "<stderr>:"};
  for (size_t t = 0; t < 2; t++) {
    size_t k = strlen(tags[t]);
    if (n - i >= k && memcmp(s + i, tags[t], k) == 0)
      return i + k;
  }
  return 0;
}

/* Length of an srun --label "12: " prefix at s, or 0. Rows of numbers
 * never have a colon after their first token, so this cannot eat one. */
static size_t srun_label(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && s[i] == ' ')
    i++;
  size_t d = i;
  while (i < n && isdigit((unsigned char)s[i]))
    i++;
  if (i == d || i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
    return 0;
  return i + 2;
}

static void strip_prefixes(struct gcb__line *l) {
  for (int round = 0; round < 4; round++) {
    size_t k = 0;
    if (l->len > 0 && l->at[0] == '>') {
      k = 1 + (l->len > 1 && l->at[1] == ' ');
    } else {
      size_t lead = 0;
      while (lead < l->len && l->at[lead] == ' ')
        lead++;
      k = mpi_tag(l->at + lead, l->len - lead);
      k = k ? lead + k : srun_label(l->at, l->len);
    }
    if (k == 0)
      return;
    l->at += k;
    l->len -= k;
  }
}

bool gcb__line_next(const char *text, size_t len, size_t *pos, int *number,
                    struct gcb__line *out) {
  if (*pos >= len)
    return false;
  const char *start = text + *pos;
  const char *nl = memchr(start, '\n', len - *pos);
  size_t n = nl ? (size_t)(nl - start) : len - *pos;
  *pos += n + (nl != NULL);
  (*number)++;
  *out = (struct gcb__line){
      .at = start, .len = n, .number = *number, .last = nl == NULL};
  if (out->len > 0 && out->at[out->len - 1] == '\r')
    out->len--;
  strip_prefixes(out);
  return true;
}

size_t gcb__line_tokens(const struct gcb__line *l, char *buf, size_t size,
                        char **tok) {
  size_t n = 0, used = 0, i = 0;
  while (i < l->len) {
    while (i < l->len && isspace((unsigned char)l->at[i]))
      i++;
    if (i == l->len)
      break;
    size_t s = i;
    while (i < l->len && !isspace((unsigned char)l->at[i]))
      i++;
    if (n == GCB__MAX_TOKENS || used + (i - s) + 1 > size)
      return GCB__MAX_TOKENS + 1;
    memcpy(buf + used, l->at + s, i - s);
    buf[used + (i - s)] = '\0';
    tok[n++] = buf + used;
    used += i - s + 1;
  }
  return n;
}

bool gcb__line_starts(const struct gcb__line *l, const char *prefix) {
  size_t i = 0, k = strlen(prefix);
  while (i < l->len && (l->at[i] == ' ' || l->at[i] == '\t'))
    i++;
  return l->len - i >= k && memcmp(l->at + i, prefix, k) == 0;
}

bool gcb__line_has(const struct gcb__line *l, const char *needle) {
  return gcb__text_has(l->at, l->len, needle, l->len);
}

bool gcb__line_at_end(const struct gcb__line *l, const struct gcb__conv *cv,
                      size_t next) {
  while (next < cv->len && isspace((unsigned char)cv->text[next]))
    next++;
  return l->last || next == cv->len;
}

bool gcb__token_number(const char *s, double *out) {
  char *end;
  if (s[0] == '\0' || isspace((unsigned char)s[0]))
    return false;
  double x = strtod(s, &end);
  if (end == s || !isfinite(x))
    return false;
  if (*end == '*')
    end++;
  *out = x;
  return *end == '\0';
}

bool gcb__text_has(const char *text, size_t len, const char *needle,
                   size_t window) {
  size_t n = strlen(needle), end = len < window ? len : window;
  for (size_t i = 0; i + n <= end; i++)
    if (text[i] == needle[0] && memcmp(text + i, needle, n) == 0)
      return true;
  return false;
}

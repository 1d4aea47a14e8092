/*
 * A main() for the fuzz targets without libFuzzer: runs each file given
 * (or every file of each directory given) through LLVMFuzzerTestOneInput
 * once. ctest replays the seed corpora and every input a fuzzer ever
 * failed on (tests/data/robust/fuzz/<target>/) this way, in the ordinary
 * and the sanitizer builds, so a fixed crasher stays fixed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 1 << 16, len = 0;
  unsigned char *buf = malloc(cap);
  size_t n;
  while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      unsigned char *grown = realloc(buf, cap *= 2);
      if (grown == NULL)
        free(buf);
      buf = grown;
    }
  }
  fclose(f);
  if (buf == NULL)
    return -1;
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int count = 0, failed = 0;
  for (int i = 1; i < argc; i++) {
    struct stat sb;
    if (stat(argv[i], &sb) != 0) {
      fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      failed++;
      continue;
    }
    if (!S_ISDIR(sb.st_mode)) {
      failed += replay_file(argv[i]) != 0;
      count++;
      continue;
    }
    DIR *d = opendir(argv[i]);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.')
        continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      failed += replay_file(path) != 0;
      count++;
    }
    if (d != NULL)
      closedir(d);
  }
  printf("replayed %d input(s), %d unreadable\n", count, failed);
  return failed != 0;
}

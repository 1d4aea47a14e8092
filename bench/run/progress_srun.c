/*
 * Slurm's srun, seen from rank 0 (see progress.c): the ranks are children
 * of slurmstepd, not of srun, so srun is no ancestor to look up. But srun
 * tells every task the TCP port it listens on for its steps
 * (SLURM_SRUN_COMM_PORT), and when srun runs on rank 0's machine (a
 * single-node job, an salloc shell on the first node) the process that
 * holds that listening socket is found in /proc: its inode in
 * /proc/net/tcp{,6}, then the process whose descriptor links to
 * "socket:[INODE]". That process must be called srun. An srun on another
 * machine is not found: --progress then.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/progress_int.h"

/* Processes and descriptors looked at, at most: a node's few hundred
 * processes fit; a pathological one cannot make rank 0 scan for long. */
#define MAX_PROCS 8192
#define MAX_FDS 1024

/* The inode of the socket listening on TCP port `port` in table (the
 * text of /proc/net/tcp or tcp6), or 0. */
unsigned long gcb__progress_listen_inode(const char *table, unsigned port) {
  const char *line = strchr(table, '\n'); /* past the header */
  while (line != NULL && *++line != '\0') {
    char local[64];
    unsigned st = 0;
    unsigned long inode = 0;
    /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
    if (sscanf(line, "%*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st,
               &inode) == 3 &&
        st == 0x0A) { /* TCP_LISTEN */
      const char *colon = strrchr(local, ':');
      if (colon != NULL && strtoul(colon + 1, NULL, 16) == port)
        return inode;
    }
    line = strchr(line, '\n');
  }
  return 0;
}

static char *slurp(const char *path, size_t cap) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return NULL;
  char *buf = malloc(cap + 1);
  size_t n = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  if (buf)
    buf[n] = '\0';
  return buf;
}

static unsigned long listen_inode(unsigned port) {
  static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
  unsigned long inode = 0;
  for (size_t i = 0; i < 2 && inode == 0; i++) {
    char *text = slurp(tables[i], (size_t)4 << 20);
    if (text != NULL)
      inode = gcb__progress_listen_inode(text, port);
    free(text);
  }
  return inode;
}

/* Whether process pid holds a descriptor linked to socket:[inode]. */
static bool holds_socket(const char *pid, unsigned long inode) {
  char dir[64], want[48];
  snprintf(dir, sizeof dir, "/proc/%s/fd", pid);
  snprintf(want, sizeof want, "socket:[%lu]", inode);
  DIR *d = opendir(dir);
  if (d == NULL)
    return false; /* another user's, or gone */
  bool found = false;
  struct dirent *e;
  for (int n = 0; !found && n < MAX_FDS && (e = readdir(d)) != NULL; n++) {
    char path[128], target[64];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    ssize_t k = readlink(path, target, sizeof target - 1);
    if (k > 0) {
      target[k] = '\0';
      found = strcmp(target, want) == 0;
    }
  }
  closedir(d);
  return found;
}

long gcb__progress_srun_pid(void) {
  const char *port_s = getenv("SLURM_SRUN_COMM_PORT");
  char *end = NULL;
  unsigned long port = port_s ? strtoul(port_s, &end, 10) : 0;
  if (port == 0 || port > 65535 || end == NULL || *end != '\0')
    return 0;
  unsigned long inode = listen_inode((unsigned)port);
  if (inode == 0)
    return 0; /* srun is on another machine */
  DIR *proc = opendir("/proc");
  if (proc == NULL)
    return 0;
  long pid = 0;
  struct dirent *e;
  for (int n = 0; pid == 0 && n < MAX_PROCS && (e = readdir(proc)) != NULL; n++)
    if (isdigit((unsigned char)e->d_name[0]) && holds_socket(e->d_name, inode))
      pid = strtol(e->d_name, NULL, 10);
  closedir(proc);
  return pid;
}

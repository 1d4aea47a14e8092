/*
 * Issue 14: the progress line under srun. Rank 0 finds the srun that
 * launched it, when srun runs on its machine, by the listening socket
 * SLURM_SRUN_COMM_PORT names (bench/run/progress_srun.c). The table
 * parsing is tested on real /proc/net/tcp text (this machine's format,
 * Linux's tcp4_seq_show), the lookup on a socket this test listens on.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/run/progress_int.h"

/* Two listening sockets and an established one, as Linux prints them. */
static const char tcp[] =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
    "retrnsmt   uid  timeout inode\n"
    "   0: 0100007F:9E1D 00000000:0000 0A 00000000:00000000 00:00000000 "
    "00000000     0        0 31903202 1 000000003bc1a464 100 0 0 10 0\n"
    "   1: 014D12C6:87CB 00000000:0000 0A 00000000:00000000 00:00000000 "
    "00000000     0        0 31903208 1 000000009bf71e6a 100 0 0 10 0\n"
    "   2: 0100007F:D431 0100007F:87CB 01 00000000:00000000 00:00000000 "
    "00000000     0        0 31903301 1 000000009bf71e6b 20 4 30 10 -1\n";

Test(progress_srun, a_listening_port_gives_its_inode) {
  cr_expect_eq(gcb__progress_listen_inode(tcp, 0x9E1D), 31903202ul);
  cr_expect_eq(gcb__progress_listen_inode(tcp, 0x87CB), 31903208ul);
}

Test(progress_srun, a_connected_socket_or_another_port_is_not_it) {
  cr_expect_eq(gcb__progress_listen_inode(tcp, 0xD431), 0ul,
               "established, not listening");
  cr_expect_eq(gcb__progress_listen_inode(tcp, 80), 0ul);
  cr_expect_eq(gcb__progress_listen_inode("", 80), 0ul);
  cr_expect_eq(gcb__progress_listen_inode("header only", 80), 0ul);
}

/* This process listens as srun would: it is the one found. */
Test(progress_srun, the_process_holding_the_port_is_found) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  cr_assert_geq(fd, 0);
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  cr_assert_eq(listen(fd, 1), 0);
  cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
  char port[16];
  snprintf(port, sizeof port, "%u", ntohs(a.sin_port));
  cr_assert_eq(setenv("SLURM_SRUN_COMM_PORT", port, 1), 0);
  cr_expect_eq(gcb__progress_srun_pid(), (long)getpid());
  close(fd);
  cr_expect_eq(gcb__progress_srun_pid(), 0, "closed: nobody holds it");
}

Test(progress_srun, no_srun_or_a_bad_port_is_nothing) {
  unsetenv("SLURM_SRUN_COMM_PORT");
  cr_expect_eq(gcb__progress_srun_pid(), 0);
  const char *bad[] = {"", "0", "65536", "12x", "-1"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert_eq(setenv("SLURM_SRUN_COMM_PORT", bad[i], 1), 0);
    cr_expect_eq(gcb__progress_srun_pid(), 0, "'%s'", bad[i]);
  }
}

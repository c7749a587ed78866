// LD_PRELOAD shim for the one-machine multi-node cluster (test/harness/cluster.ts). All nodes share
// one network namespace, so every loopback connection would leave from 127.0.0.1 whatever node opened
// it, and Slurm answers a client at the address its connection came from (cross-node srun fails).
// This binds each outgoing IPv4 connection to 127.0.0.0/8 to the node's own address 127.0.0.(10+K).
// The node is known by its hostname nK (its own UTS namespace), NOT by the environment: Slurm copies
// the submitting shell's environment into job steps on other nodes. A hostname that is not nK, or a
// socket already bound, is left alone.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int node_address(struct in_addr *out) {
  char host[256];
  if (gethostname(host, sizeof host) != 0) return 0;
  host[sizeof host - 1] = 0;
  if (host[0] != 'n' || host[1] == 0) return 0;
  char *end = NULL;
  long k = strtol(host + 1, &end, 10);
  if (*end != 0 || k < 1 || k > 200) return 0;
  out->s_addr = htonl((127u << 24) | (unsigned)(10 + k));
  return 1;
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
  static int (*real_connect)(int, const struct sockaddr *, socklen_t);
  if (!real_connect) real_connect = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "connect");
  if (addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *to = (const struct sockaddr_in *)addr;
    struct in_addr self;
    if ((ntohl(to->sin_addr.s_addr) >> 24) == 127 && node_address(&self)) {
      struct sockaddr_in bound;
      socklen_t blen = sizeof bound;
      int type = 0;
      socklen_t tlen = sizeof type;
      // Only unbound sockets (port 0 after getsockname), and only TCP/UDP: leave raw sockets alone.
      if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0 && (type == SOCK_STREAM || type == SOCK_DGRAM) &&
          getsockname(fd, (struct sockaddr *)&bound, &blen) == 0 && bound.sin_family == AF_INET && bound.sin_port == 0 &&
          bound.sin_addr.s_addr == htonl(INADDR_ANY)) {
        struct sockaddr_in src;
        memset(&src, 0, sizeof src);
        src.sin_family = AF_INET;
        src.sin_addr = self;
        src.sin_port = 0;
        (void)bind(fd, (struct sockaddr *)&src, sizeof src); // best effort: on failure connect as before
      }
    }
  }
  return real_connect(fd, addr, len);
}

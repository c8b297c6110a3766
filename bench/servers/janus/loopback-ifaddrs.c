/*
 * loopback-ifaddrs.so — an LD_PRELOAD shim that makes a process see exactly one network
 * interface: "lo" with 127.0.0.1, *without* the IFF_LOOPBACK flag.
 *
 * Why: Janus 1.1.2 skips loopback interfaces when it gathers ICE candidates, so on a machine
 * whose only other address is a real one it offers that address and never 127.0.0.1. With
 * this shim its only gatherable address is 127.0.0.1, which it then offers as its single host
 * candidate; no other address ever appears in its SDP and no media leaves the loopback
 * interface. Built by install.sh (gcc -shared -fPIC ... -ldl); used by start.sh for Janus only.
 *
 * getifaddrs() returns a block of our own (copies of the kept entries); freeifaddrs() frees
 * our blocks and hands anything else to the real one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAGIC 0x6c6f6f7062616b31ULL /* "loopbak1" */

struct entry {
  struct ifaddrs ifa;
  struct sockaddr_in addr;
  struct sockaddr_in mask;
  char name[IFNAMSIZ];
};

struct block {
  unsigned long long magic;
  struct entry entries[];
};

static int keep(const struct ifaddrs *i) {
  if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET) return 0;
  const struct sockaddr_in *a = (const struct sockaddr_in *)i->ifa_addr;
  return a->sin_addr.s_addr == htonl(INADDR_LOOPBACK);
}

int getifaddrs(struct ifaddrs **out) {
  int (*real_get)(struct ifaddrs **) = (int (*)(struct ifaddrs **))dlsym(RTLD_NEXT, "getifaddrs");
  void (*real_free)(struct ifaddrs *) = (void (*)(struct ifaddrs *))dlsym(RTLD_NEXT, "freeifaddrs");
  struct ifaddrs *list = NULL;
  if (real_get == NULL || real_free == NULL) return -1;
  if (real_get(&list) != 0) return -1;
  size_t n = 0;
  for (struct ifaddrs *i = list; i != NULL; i = i->ifa_next) n += keep(i);
  struct block *b = calloc(1, sizeof(struct block) + (n ? n : 1) * sizeof(struct entry));
  if (b == NULL) {
    real_free(list);
    return -1;
  }
  b->magic = MAGIC;
  size_t k = 0;
  for (struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
    if (!keep(i)) continue;
    struct entry *e = &b->entries[k];
    strncpy(e->name, i->ifa_name, IFNAMSIZ - 1);
    memcpy(&e->addr, i->ifa_addr, sizeof(e->addr));
    if (i->ifa_netmask) memcpy(&e->mask, i->ifa_netmask, sizeof(e->mask));
    e->ifa.ifa_name = e->name;
    e->ifa.ifa_flags = i->ifa_flags & ~(unsigned int)IFF_LOOPBACK;
    e->ifa.ifa_addr = (struct sockaddr *)&e->addr;
    e->ifa.ifa_netmask = i->ifa_netmask ? (struct sockaddr *)&e->mask : NULL;
    e->ifa.ifa_next = NULL;
    if (k > 0) b->entries[k - 1].ifa.ifa_next = &e->ifa;
    k++;
  }
  real_free(list);
  *out = n ? &b->entries[0].ifa : NULL;
  if (n == 0) free(b);
  return 0;
}

void freeifaddrs(struct ifaddrs *ifa) {
  if (ifa == NULL) return;
  struct block *b = (struct block *)((char *)ifa - offsetof(struct block, entries));
  /* a block of ours starts 8 bytes before its first entry; a list from the real getifaddrs
   * starts a malloc chunk, whose preceding word is a chunk size, never the magic */
  if (b->magic == MAGIC) {
    b->magic = 0;
    free(b);
    return;
  }
  void (*real_free)(struct ifaddrs *) = (void (*)(struct ifaddrs *))dlsym(RTLD_NEXT, "freeifaddrs");
  if (real_free) real_free(ifa);
}

// A user-space link impairer on an NFQUEUE queue, for the tests' own network namespaces (this
// kernel has no netem qdisc). Every packet the iptables rule queues gets a seeded fate: random
// loss, loss in bursts (Gilbert-Elliott), a delay with normal jitter (packets reorder when the
// jitter is larger than their spacing) and duplication. Held packets are released by their
// verdict at their instant, in any order. Bounded: it stops itself after --duration-s (or on
// SIGTERM/SIGINT), accepts what it still holds, and prints its counts as one JSON line.
// Deterministic too: --drop-dtls 1,3,5-9 drops the 1st, 3rd and 5th … 9th DTLS datagram (UDP
// payload's first byte 20…63, RFC 7983) sent to each destination address and port, first sends
// and resends alike;
// --drop-ccs N drops the first N of them that hold a ChangeCipherSpec record (type 20: the final
// flight of a DTLS server, whichever datagram it is).
// Compiled at test time (test/netem/impairer.ts): gcc -O2 nfq-impair.c -lnetfilter_queue.
//   nfq-impair --queue N --duration-s S [--seed N] [--loss P] [--burst-enter P --burst-leave P]
//              [--delay-ms D] [--jitter-ms J] [--dup P] [--mark M] [--drop-dtls N,N-M…] [--drop-ccs N]
// Chances are fractions (0.02 = 2 %). Duplicates are sent on a raw socket carrying --mark, which
// the queueing rule must exclude (`-m mark ! --mark M`).
#include <arpa/inet.h>
#include <errno.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HELD 16384
#define MAX_COPY 2048
#define MAX_FLOWS 4096 /* destinations whose DTLS datagrams are counted; past it, none dropped */
#define MAX_DROPS 16

struct held {
  int64_t release_ns;
  uint32_t id;
  uint16_t copy_len; /* > 0: send this copy as a duplicate when released */
  unsigned char copy[MAX_COPY];
};

static struct held *heap[MAX_HELD];
static int held_count;
static struct held pool[MAX_HELD];
static struct held *free_list[MAX_HELD];
static int free_count;

static double loss, burst_enter, burst_leave, dup_chance, delay_ms, jitter_ms;
static int burst_bad;
static uint64_t rng;
static uint32_t mark = 0x39;
static int raw_fd = -1;
static volatile sig_atomic_t stopping;
static struct nfq_q_handle *qh;
static uint64_t seen, dropped, delayed, duplicated, max_held, bypassed, dropped_dtls;
static int drop_lo[MAX_DROPS], drop_hi[MAX_DROPS], drop_dtls_count, drop_ccs;
static struct flow {
  uint32_t addr;
  uint16_t port;
  uint16_t used;
  uint32_t dtls;
  uint32_t ccs;
} flows[MAX_FLOWS];

static uint64_t next_u64(void) { /* SplitMix64 */
  uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double uniform(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }
static double normal(void) { /* Box-Muller */
  double u = uniform(), v = uniform();
  if (u < 1e-300) u = 1e-300;
  return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}
static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void heap_push(struct held *h) {
  int i = held_count++;
  while (i > 0) {
    int p = (i - 1) / 2;
    if (heap[p]->release_ns <= h->release_ns) break;
    heap[i] = heap[p];
    i = p;
  }
  heap[i] = h;
  if ((uint64_t)held_count > max_held) max_held = held_count;
}
static struct held *heap_pop(void) {
  struct held *top = heap[0], *last = heap[--held_count];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= held_count) break;
    if (c + 1 < held_count && heap[c + 1]->release_ns < heap[c]->release_ns) c++;
    if (last->release_ns <= heap[c]->release_ns) break;
    heap[i] = heap[c];
    i = c;
  }
  if (held_count > 0) heap[i] = last;
  return top;
}

static void send_copy(const unsigned char *pkt, int len) {
  if (raw_fd < 0 || len < (int)sizeof(struct iphdr)) return;
  const struct iphdr *ip = (const struct iphdr *)pkt;
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_addr.s_addr = ip->daddr};
  if (sendto(raw_fd, pkt, len, 0, (struct sockaddr *)&to, sizeof to) == len) duplicated++;
}

static void release(struct held *h) {
  nfq_set_verdict(qh, h->id, NF_ACCEPT, 0, NULL);
  if (h->copy_len > 0) send_copy(h->copy, h->copy_len);
  free_list[free_count++] = h;
}

/* Whether a UDP payload of DTLS records holds a ChangeCipherSpec record. */
static int holds_ccs(const unsigned char *p, int len) {
  for (int at = 0; at + 13 <= len; at += 13 + (p[at + 11] << 8 | p[at + 12]))
    if (p[at] == 20) return 1;
  return 0;
}

/* Whether this datagram is a DTLS one whose index for its destination is in --drop-dtls. */
static int dtls_drop(const unsigned char *pkt, int len) {
  if ((drop_dtls_count == 0 && drop_ccs == 0) || len < (int)sizeof(struct iphdr)) return 0;
  const struct iphdr *ip = (const struct iphdr *)pkt;
  int at = ip->ihl * 4;
  if (ip->protocol != IPPROTO_UDP || len < at + 9) return 0;
  if (pkt[at + 8] < 20 || pkt[at + 8] > 63) return 0;
  uint16_t port = (uint16_t)(pkt[at + 2] << 8 | pkt[at + 3]);
  uint32_t slot = (ip->daddr * 2654435761u ^ port) % MAX_FLOWS;
  for (int probe = 0; probe < MAX_FLOWS; probe++, slot = (slot + 1) % MAX_FLOWS) {
    struct flow *f = &flows[slot];
    if (!f->used) *f = (struct flow){.addr = ip->daddr, .port = port, .used = 1};
    if (f->addr != ip->daddr || f->port != port) continue;
    f->dtls++;
    if (f->ccs < (uint32_t)drop_ccs && holds_ccs(pkt + at + 8, len - at - 8)) return ++f->ccs, 1;
    for (int i = 0; i < drop_dtls_count; i++)
      if ((uint32_t)drop_lo[i] <= f->dtls && f->dtls <= (uint32_t)drop_hi[i]) return 1;
    return 0;
  }
  return 0;
}

static int on_packet(struct nfq_q_handle *q, struct nfgenmsg *m, struct nfq_data *d, void *u) {
  (void)m, (void)u;
  struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(d);
  if (ph == NULL) return 0;
  uint32_t id = ntohl(ph->packet_id);
  seen++;
  int lost = 0;
  if (burst_enter > 0) {
    if (burst_bad ? uniform() < burst_leave : uniform() < burst_enter) burst_bad = !burst_bad;
    if (burst_bad) lost = 1;
  }
  if (!lost && loss > 0 && uniform() < loss) lost = 1;
  unsigned char *payload = NULL;
  int len = nfq_get_payload(d, &payload);
  if (!lost && dtls_drop(payload, len)) lost = 1, dropped_dtls++;
  if (lost) {
    dropped++;
    return nfq_set_verdict(q, id, NF_DROP, 0, NULL);
  }
  int dup = dup_chance > 0 && uniform() < dup_chance && len > 0 && len <= MAX_COPY;
  double wait_ms = delay_ms + (jitter_ms > 0 ? jitter_ms * normal() : 0);
  if (wait_ms <= 0 && !dup) return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
  if (free_count == 0) { /* bounded: past MAX_HELD a packet passes unimpaired */
    bypassed++;
    return nfq_set_verdict(q, id, NF_ACCEPT, 0, NULL);
  }
  struct held *h = free_list[--free_count];
  h->id = id;
  h->release_ns = now_ns() + (wait_ms > 0 ? (int64_t)(wait_ms * 1e6) : 0);
  h->copy_len = dup ? (uint16_t)len : 0;
  if (dup) memcpy(h->copy, payload, len);
  if (wait_ms > 0) delayed++;
  heap_push(h);
  return 0;
}

static void on_signal(int s) { (void)s, stopping = 1; }

static double arg_num(int argc, char **argv, const char *name, double fallback) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return strtod(argv[i + 1], NULL);
  return fallback;
}

int main(int argc, char **argv) {
  int queue = (int)arg_num(argc, argv, "--queue", -1);
  double duration_s = arg_num(argc, argv, "--duration-s", 0);
  if (queue < 0 || duration_s <= 0 || duration_s > 3600) {
    fprintf(stderr, "usage: nfq-impair --queue N --duration-s S (at most 3600) [options]\n");
    return 2;
  }
  rng = (uint64_t)arg_num(argc, argv, "--seed", 1);
  loss = arg_num(argc, argv, "--loss", 0);
  burst_enter = arg_num(argc, argv, "--burst-enter", 0);
  burst_leave = arg_num(argc, argv, "--burst-leave", 1);
  dup_chance = arg_num(argc, argv, "--dup", 0);
  delay_ms = arg_num(argc, argv, "--delay-ms", 0);
  jitter_ms = arg_num(argc, argv, "--jitter-ms", 0);
  mark = (uint32_t)arg_num(argc, argv, "--mark", 0x39);
  drop_ccs = (int)arg_num(argc, argv, "--drop-ccs", 0);
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--drop-dtls") == 0)
      for (char *p = argv[i + 1], *end; *p && drop_dtls_count < MAX_DROPS; p = *end ? end + 1 : end) {
        long lo = strtol(p, &end, 10), hi = lo;
        if (end != p && *end == '-') hi = strtol(end + 1, &end, 10);
        if (end == p || lo < 1 || hi < lo) {
          fprintf(stderr, "nfq-impair: --drop-dtls takes indices and ranges from 1: 1,3,5-40\n");
          return 2;
        }
        drop_lo[drop_dtls_count] = (int)lo;
        drop_hi[drop_dtls_count++] = (int)hi;
      }
  for (int i = 0; i < MAX_HELD; i++) free_list[free_count++] = &pool[i];
  signal(SIGTERM, on_signal);
  signal(SIGINT, on_signal);
  if (dup_chance > 0) {
    raw_fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
    if (raw_fd < 0 || setsockopt(raw_fd, SOL_SOCKET, SO_MARK, &mark, sizeof mark) < 0) {
      perror("nfq-impair: raw socket");
      return 1;
    }
  }
  struct nfq_handle *h = nfq_open();
  if (h == NULL) {
    perror("nfq-impair: nfq_open");
    return 1;
  }
  qh = nfq_create_queue(h, (uint16_t)queue, on_packet, NULL);
  if (qh == NULL || nfq_set_mode(qh, NFQNL_COPY_PACKET, 0xffff) < 0) {
    perror("nfq-impair: queue");
    nfq_close(h);
    return 1;
  }
  nfq_set_queue_maxlen(qh, MAX_HELD * 2);
  int fd = nfq_fd(h);
  char buf[65536] __attribute__((aligned));
  int64_t end_ns = now_ns() + (int64_t)(duration_s * 1e9);
  printf("ready\n");
  fflush(stdout);
  while (!stopping) {
    int64_t now = now_ns();
    while (held_count > 0 && heap[0]->release_ns <= now) release(heap_pop());
    if (now >= end_ns) break;
    int64_t wake = end_ns;
    if (held_count > 0 && heap[0]->release_ns < wake) wake = heap[0]->release_ns;
    int timeout_ms = (int)((wake - now + 999999) / 1000000);
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r = poll(&p, 1, timeout_ms > 100 ? 100 : timeout_ms);
    if (r > 0) {
      for (int k = 0; k < 256; k++) { /* drain what is ready, bounded */
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n <= 0) break;
        nfq_handle_packet(h, buf, (int)n);
      }
    } else if (r < 0 && errno != EINTR) {
      perror("nfq-impair: poll");
      break;
    }
  }
  while (held_count > 0) release(heap_pop());
  nfq_destroy_queue(qh);
  nfq_close(h);
  printf("{\"seen\":%llu,\"dropped\":%llu,\"delayed\":%llu,\"duplicated\":%llu,\"maxHeld\":%llu,"
         "\"bypassed\":%llu,\"droppedDtls\":%llu}\n",
         (unsigned long long)seen, (unsigned long long)dropped, (unsigned long long)delayed,
         (unsigned long long)duplicated, (unsigned long long)max_held,
         (unsigned long long)bypassed, (unsigned long long)dropped_dtls);
  return 0;
}

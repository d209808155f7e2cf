// Build: cc -O2 -pthread -o cpugaps cpugaps.c
// Run:   ./cpugaps SECONDS [CPU...]   (CPUGAPS_LOG=1: every gap over 300 us on stderr)
// cpugaps: one thread pinned per CPU spins on clock_gettime and counts gaps (the thread
// was not running). Usage: cpugaps SECONDS [CPU...] (default every online CPU).
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
typedef struct { int cpu; double secs; long n50, n200, n1000; long max; long total; } arg_t;
static long now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
static void *run(void *p) {
  arg_t *a = p; cpu_set_t s; CPU_ZERO(&s); CPU_SET(a->cpu, &s);
  if (pthread_setaffinity_np(pthread_self(), sizeof s, &s)) { perror("affinity"); return 0; }
  long start = now(), last = start, end = start + (long)(a->secs * 1e9);
  while (last < end) {
    long t = now(), g = t - last; last = t;
    if (g > 300000 && getenv("CPUGAPS_LOG")) {
      struct timespec r; clock_gettime(CLOCK_REALTIME, &r);
      fprintf(stderr, "gap cpu %d %ld ns ending at realtime %ld\n", a->cpu, g, r.tv_sec * 1000000000L + r.tv_nsec);
    }
    if (g > 50000) { a->n50++; a->total += g; if (g > 200000) a->n200++; if (g > 1000000) a->n1000++; if (g > a->max) a->max = g; }
  }
  return 0;
}
int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 2;
  int n = argc > 2 ? argc - 2 : (int)sysconf(_SC_NPROCESSORS_ONLN);
  arg_t *a = calloc(n, sizeof *a); pthread_t *t = calloc(n, sizeof *t);
  for (int i = 0; i < n; i++) { a[i].cpu = argc > 2 ? atoi(argv[i + 2]) : i; a[i].secs = secs; pthread_create(&t[i], 0, run, &a[i]); }
  for (int i = 0; i < n; i++) pthread_join(t[i], 0);
  for (int i = 0; i < n; i++)
    printf("cpu %2d: gaps >50us %5ld  >200us %4ld  >1ms %3ld  max %8.1f us  lost %7.1f us in %.1f s\n", a[i].cpu, a[i].n50, a[i].n200, a[i].n1000, a[i].max / 1e3, a[i].total / 1e3, secs);
  return 0;
}

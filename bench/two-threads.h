/* What the C benches share: `count` jobs shared out to two threads, each taking the next job
 * number until none is left; a job that fails prints libvips' error with its name. */
#ifndef BENCH_TWO_THREADS_H
#define BENCH_TWO_THREADS_H

#include <vips/vips.h>
#include <pthread.h>
#include <stdio.h>

static int (*bench_job)(int index);
static const char *(*bench_name)(int index);
static int bench_count, bench_next;
static pthread_mutex_t bench_lock = PTHREAD_MUTEX_INITIALIZER;

static void *bench_worker(void *unused) {
    (void) unused;
    for (;;) {
        pthread_mutex_lock(&bench_lock);
        int index = bench_next++;
        pthread_mutex_unlock(&bench_lock);
        if (index >= bench_count) return NULL;
        if (bench_job(index)) fprintf(stderr, "%s: %s\n", bench_name(index), vips_error_buffer());
    }
}

static void run_on_two_threads(int count, int (*job)(int), const char *(*name)(int)) {
    bench_job = job;
    bench_name = name;
    bench_count = count;
    pthread_t threads[2];
    for (int i = 0; i < 2; i++) pthread_create(&threads[i], NULL, bench_worker, NULL);
    for (int i = 0; i < 2; i++) pthread_join(threads[i], NULL);
}

#endif

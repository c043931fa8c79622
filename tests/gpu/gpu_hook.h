/*
 * A kernels allocation hook for the GPU tests: counts live buffers and bytes
 * per role, hands out ids and checks that every free matches an allocation
 * (same id, role, device and bytes). Header-only, one copy per test.
 */
#ifndef ZKB_TESTS_GPU_HOOK_H
#define ZKB_TESTS_GPU_HOOK_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "kernels/kernels.h"

#define HOOK_MAX_LIVE 4096

struct hook_state {
    pthread_mutex_t lock;
    uint64_t next_id;
    unsigned long allocs, frees, mismatches;
    size_t live_bytes[KERNELS_MEM_OTHER + 1];
    long live[KERNELS_MEM_OTHER + 1];
    struct {
        uint64_t id;
        int role, device;
        size_t bytes;
    } table[HOOK_MAX_LIVE];
    int n_table;
};

static struct hook_state hook_st = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void hook_fn(void *ctx, int role, int device, size_t bytes, int is_free,
                    uint64_t *id)
{
    struct hook_state *h = ctx;
    pthread_mutex_lock(&h->lock);
    if (role < 0 || role > KERNELS_MEM_OTHER) {
        h->mismatches++;
        pthread_mutex_unlock(&h->lock);
        return;
    }
    if (!is_free) {
        h->allocs++;
        if (*id != 0)
            h->mismatches++;
        *id = ++h->next_id;
        h->live[role]++;
        h->live_bytes[role] += bytes;
        if (h->n_table < HOOK_MAX_LIVE) {
            h->table[h->n_table].id = *id;
            h->table[h->n_table].role = role;
            h->table[h->n_table].device = device;
            h->table[h->n_table].bytes = bytes;
            h->n_table++;
        }
    } else {
        int found = 0;
        h->frees++;
        for (int i = 0; i < h->n_table; i++)
            if (h->table[i].id == *id) {
                if (h->table[i].role != role || h->table[i].bytes != bytes ||
                    h->table[i].device != device)
                    h->mismatches++;
                h->table[i] = h->table[--h->n_table];
                found = 1;
                break;
            }
        if (!found)
            h->mismatches++;
        h->live[role]--;
        h->live_bytes[role] -= bytes;
    }
    pthread_mutex_unlock(&h->lock);
}

static void hook_install(void)
{
    kernels_set_alloc_hook(hook_fn, &hook_st);
}

/* Live buffers of every role together. */
static long hook_live_total(void)
{
    long t = 0;
    pthread_mutex_lock(&hook_st.lock);
    for (int r = 0; r <= KERNELS_MEM_OTHER; r++)
        t += hook_st.live[r];
    pthread_mutex_unlock(&hook_st.lock);
    return t;
}

#endif

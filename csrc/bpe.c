/* Classic BPE of one piece (see core.h). */
#include "core.h"

#include <stdlib.h>

/* ------------------------------------------------------------------ classic BPE */

/* bpe_short on a rank vocabulary hashes every span of a piece of up to SPANS units at once, and
 * asks for each span's filter word and table slot before the first lookup: BPE's lookups of
 * merged parts depend on each other, and without this each one waits on memory in turn. */
#define SPANS 12

/* Priority and result of merging units [i, j) and [j, e) (parts with ids a and b); hs: the spans'
 * hashes (hs[i * SPANS + e]) or NULL. */
static inline int64_t merge_prio(const Model *m, const char *s, const int32_t *ub, int32_t i,
                                 int32_t e, int32_t a, int32_t b, int32_t *merged,
                                 const uint64_t *hs) {
    if (m->pairs) {
        if (a < 0 || b < 0) return NONE_PRIO;
        const PairSlot *p = pair_find(m, a, b);
        if (!p) return NONE_PRIO;
        *merged = p->merged;
        return p->prio;
    }
    size_t len = (size_t)(ub[e] - ub[i]);
    int32_t id;
    if (hs && len > 2 && (len > 16 || !m->mid)) {
        const Ids *x = lookup_h(m, s + ub[i], len, hs[i * SPANS + e]);
        id = x ? x->id : -1;
    } else id = token_id(m, s + ub[i], len);
    if (id < 0) return NONE_PRIO;
    *merged = id;
    return id;
}

/* Short pieces: parts linked by their first units (nx[k]: the first unit of the part after the
 * one at k, n after the last), the best pair found by a scan (leftmost among equals). A merge
 * relinks one part and moves nothing. */
LBPE_FN ptrdiff_t bpe_short(Model *m, const char *s, const int32_t *ub, int32_t n,
                            const int32_t *uid, Part *out) {
    int32_t nx[SHORT_BPE], pid[SHORT_BPE], pm[SHORT_BPE];
    int64_t pr[SHORT_BPE]; /* pr[k]: merging the part at k with the next one */
    for (int32_t k = 0; k < n; k++) {
        nx[k] = k + 1;
        pid[k] = uid[k];
    }
    uint64_t hsb[SPANS * (SPANS + 1)], *hs = NULL;
    if (!m->pairs && n <= SPANS) {
        /* every span of three bytes or more: its lines asked for (up to 16 bytes, in the tables
         * of those; longer, its hash kept and its two lines in the token table) */
        const unsigned char *u = (const unsigned char *)s;
        if (ub[n] > 16 || !m->mid) hs = hsb;
        for (int32_t i = 0; i < n; i++) {
            uint64_t h = FNV_OFFSET;
            for (int32_t e = i + 1; e <= n; e++) {
                size_t len = (size_t)(ub[e] - ub[i]);
                if (hs) {
                    h = fnv(u + ub[e - 1], (size_t)(ub[e] - ub[e - 1]), h);
                    hs[i * SPANS + e] = h;
                }
                if (len <= 2) continue;
                if (len <= 16 && m->mid) mid_prefetch(m, u + ub[i], len);
                else {
                    if (m->filter) LBPE_PREFETCH(&m->filter[filter_bit(m->filter_shift, h) >> 6]);
                    LBPE_PREFETCH(&m->fast[fast_slot(h, m->n_fast)]);
                }
            }
        }
    }
    for (int32_t k = 0; k + 1 < n; k++)
        pr[k] = merge_prio(m, s, ub, k, k + 2, pid[k], pid[k + 1], &pm[k], hs);
    for (;;) {
        int64_t best = NONE_PRIO;
        int32_t b = -1, before = -1; /* the best pair's first part, and the part before it */
        for (int32_t k = 0, prev = -1; nx[k] < n; prev = k, k = nx[k])
            if (pr[k] < best) {
                best = pr[k];
                b = k;
                before = prev;
            }
        if (b < 0) break;
        pid[b] = pm[b];
        int32_t e = nx[b] = nx[nx[b]]; /* the merged part ends where the second one did */
        if (before >= 0)
            pr[before] = merge_prio(m, s, ub, before, e, pid[before], pid[b], &pm[before], hs);
        if (e < n) pr[b] = merge_prio(m, s, ub, b, nx[e], pid[b], pid[e], &pm[b], hs);
    }
    ptrdiff_t np = 0;
    for (int32_t k = 0; k < n; k = nx[k], np++) {
        out[np].s = k;
        out[np].e = nx[k];
        out[np].id = pid[k];
    }
    return np;
}

/* Pieces of at most SMALL_PIECE bytes on a rank vocabulary (a token's rank is its id, and
 * every span of 3 to 16 bytes is looked up by its words in the tables of tokens of those
 * lengths): the parts are the set bits of `live` (a bit at each part's first byte, and one at
 * n), and rk[k] is the rank of merging the part at k with the next one, RANK_NONE where there
 * is none or k starts no part. Each step takes the least rank, leftmost among equals, as
 * bpe_short does; no list is walked, and the spans' words come from one zero-padded copy of
 * the piece. Compiled twice: for pieces of at most 16 bytes, whose arrays and scans are half as
 * long, and for those of 17 to 32. */
#define RANK_NONE INT32_MAX

static LBPE_ALWAYS_INLINE int32_t span_rank(const Model *m, const unsigned char *u, int32_t i,
                                            int32_t e, int32_t cap) {
    int32_t id = cap <= 16 || e - i <= 16 ? span_id(m, u, i, e) : long_span_id(m, u, i, e);
    return id < 0 ? RANK_NONE : id;
}

/* The first part start after k, and the last one before it. */
static LBPE_ALWAYS_INLINE int32_t after(uint64_t live, int32_t k) {
    return (int32_t)__builtin_ctzll(live & ~((2ull << k) - 1));
}
static LBPE_ALWAYS_INLINE int32_t before(uint64_t live, int32_t k) {
    return 63 - (int32_t)__builtin_clzll(live & ((1ull << k) - 1));
}

static LBPE_ALWAYS_INLINE ptrdiff_t bpe_bits(const Model *m, const char *s, int32_t n,
                                             const int32_t *uid, Part *out, int32_t cap) {
    unsigned char u[SMALL_PIECE + 16] = {0};
    memcpy(u, s, (size_t)n);
    int32_t id[SMALL_PIECE], rk[SMALL_PIECE];
    for (int32_t k = 0; k < cap; k++) rk[k] = RANK_NONE;
    for (int32_t k = 0; k < n; k++) id[k] = uid[k];
    for (int32_t k = 0; k + 1 < n; k++) {
        int32_t x = two_byte_id(m, u + k);
        rk[k] = x < 0 ? RANK_NONE : x;
    }
    uint64_t live = (2ull << n) - 1; /* every byte starts a part; bit n closes the last */
    for (;;) {
        int32_t best = RANK_NONE, b = -1;
        for (int32_t k = 0; k + 1 < n; k++)
            if (rk[k] < best) {
                best = rk[k];
                b = k;
            }
        if (b < 0) break;
        int32_t j = after(live, b), e = after(live, j); /* the parts [b, j) and [j, e) merge */
        live &= ~(1ull << j);
        rk[j] = RANK_NONE;
        id[b] = best;
        rk[b] = e < n ? span_rank(m, u, b, after(live, e), cap) : RANK_NONE;
        if (b > 0) rk[before(live, b)] = span_rank(m, u, before(live, b), e, cap);
    }
    ptrdiff_t np = 0;
    for (int32_t k = 0; k < n; k = after(live, k), np++) {
        out[np].s = k;
        out[np].e = after(live, k);
        out[np].id = id[k];
    }
    return np;
}

LBPE_FN ptrdiff_t bpe_small(const Model *m, const char *s, int32_t n, const int32_t *uid,
                            Part *out) {
    return n <= 16 ? bpe_bits(m, s, n, uid, out, 16) : bpe_bits(m, s, n, uid, out, 32);
}

static inline int heap_less(const HeapItem *a, const HeapItem *b) { return a->key < b->key; }

static void heap_push(HeapItem *h, size_t *len, HeapItem item) {
    size_t k = (*len)++;
    while (k > 0) {
        size_t p = (k - 1) / 2;
        if (!heap_less(&item, &h[p])) break;
        h[k] = h[p];
        k = p;
    }
    h[k] = item;
}

static HeapItem heap_pop(HeapItem *h, size_t *len) {
    HeapItem top = h[0], last = h[--(*len)];
    size_t k = 0, n = *len;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n) break;
        if (c + 1 < n && heap_less(&h[c + 1], &h[c])) c++;
        if (!heap_less(&h[c], &last)) break;
        h[k] = h[c];
        k = c;
    }
    if (n) h[k] = last;
    return top;
}

/* Long pieces: a linked list of parts (keyed by their first unit) and a heap of candidate
 * pairs ordered by (priority, position), so every step merges the best, leftmost pair as the
 * one-at-a-time definition does. A candidate is stale unless its left part still starts at i
 * and its right part still ends at e (boundaries only ever disappear).
 * heap_merge runs from any state of the list (end, prev, pid), so the bucketed sweep below can
 * hand over to it part-way. */
static ptrdiff_t heap_merge(Model *m, const char *s, const int32_t *ub, int32_t n, int32_t *end,
                            int32_t *prev, int32_t *pid, Part *out) {
    /* at most n - 1 initial candidates plus two per merge (fewer than n merges) */
    HeapItem *heap = scratch(m, 6, (size_t)3 * n * sizeof(HeapItem));
    if (!heap) return -1;
    size_t hl = 0;
    for (int32_t k = 0; end[k] < n; k = end[k]) {
        int32_t j = end[k];
        HeapItem it = {0, end[j], 0};
        int64_t prio = merge_prio(m, s, ub, k, end[j], pid[k], pid[j], &it.merged, NULL);
        if (prio != NONE_PRIO) {
            it.key = heap_key(prio, k);
            heap_push(heap, &hl, it);
        }
    }
    long steps = 0;
    while (hl) {
        if (++steps % SIGNAL_EVERY == 0 && lbpe_interrupted() < 0) return -1;
        HeapItem it = heap_pop(heap, &hl);
        int32_t i = (int32_t)(uint32_t)it.key, e = it.e;
        if (pid[i] == INT32_MIN) continue; /* i no longer starts a part */
        int32_t j = end[i];
        if (j >= e || j >= n || end[j] != e) continue; /* the pair changed */
        pid[j] = INT32_MIN;
        end[i] = e;
        pid[i] = it.merged;
        if (e < n) {
            prev[e] = i;
            HeapItem r = {0, end[e], 0};
            int64_t prio = merge_prio(m, s, ub, i, end[e], pid[i], pid[e], &r.merged, NULL);
            if (prio != NONE_PRIO) {
                r.key = heap_key(prio, i);
                heap_push(heap, &hl, r);
            }
        }
        int32_t p = prev[i];
        if (p >= 0) {
            HeapItem l = {0, e, 0};
            int64_t prio = merge_prio(m, s, ub, p, e, pid[p], pid[i], &l.merged, NULL);
            if (prio != NONE_PRIO) {
                l.key = heap_key(prio, p);
                heap_push(heap, &hl, l);
            }
        }
    }
    ptrdiff_t np = 0;
    for (int32_t k = 0; k < n; k = end[k]) {
        out[np].s = k;
        out[np].e = end[k];
        out[np].id = pid[k];
        np++;
    }
    return np;
}

LBPE_FN ptrdiff_t bpe_long(Model *m, const char *s, const int32_t *ub, int32_t n,
                           const int32_t *uid, Part *out) {
    int32_t *end = scratch(m, 3, (size_t)n * sizeof(int32_t));
    int32_t *prev = scratch(m, 4, (size_t)n * sizeof(int32_t));
    int32_t *pid = scratch(m, 5, (size_t)n * sizeof(int32_t));
    if (!end || !prev || !pid) return -1;
    for (int32_t k = 0; k < n; k++) {
        end[k] = k + 1;
        prev[k] = k - 1;
        pid[k] = uid[k];
    }
    return heap_merge(m, s, ub, n, end, prev, pid, out);
}

/* Very long pieces (a megabyte "word"): candidate pairs kept in one bucket per priority; the
 * best bucket is sorted by position and applied in one left-to-right sweep, which touches memory
 * in order and stays linear in practice where a heap of every candidate does not. A merge that
 * creates a pair at least as good as the sweep's priority stops the sweep: the rest of the bucket
 * goes back and waits behind it, so the order is still exactly one merge at a time, leftmost
 * first among equal priorities. */

typedef struct {
    uint64_t *items;
    uint32_t len, cap;
} Bucket; /* candidates: (i << 32) | e */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void prio_push(int32_t *h, size_t *len, int32_t v) {
    size_t k = (*len)++;
    while (k > 0 && h[(k - 1) / 2] > v) {
        h[k] = h[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h[k] = v;
}

static int32_t prio_pop(int32_t *h, size_t *len) {
    int32_t top = h[0], last = h[--(*len)];
    size_t k = 0, n = *len;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1] < h[c]) c++;
        if (h[c] >= last) break;
        h[k] = h[c];
        k = c;
    }
    if (n) h[k] = last;
    return top;
}

/* Append a candidate to the bucket of priority pr (a new non-empty bucket joins the queue). */
static int bucket_push(Bucket *buckets, int32_t *prios, size_t *np, int32_t pr, uint64_t item) {
    Bucket *b = &buckets[pr];
    if (b->len == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 8;
        uint64_t *p = lbpe_realloc(b->items, (size_t)cap * sizeof(uint64_t));
        if (!p) {
            lbpe_no_memory();
            return -1;
        }
        b->items = p;
        b->cap = cap;
    }
    if (b->len == 0) prio_push(prios, np, pr);
    b->items[b->len++] = item;
    return 0;
}

LBPE_FN ptrdiff_t bpe_bucketed(Model *m, const char *s, const int32_t *ub, int32_t n,
                               const int32_t *uid, Part *out) {
    int32_t *end = scratch(m, 3, (size_t)n * sizeof(int32_t));
    int32_t *prev = scratch(m, 4, (size_t)n * sizeof(int32_t));
    int32_t *pid = scratch(m, 5, (size_t)n * sizeof(int32_t));
    /* a priority enters the queue when its bucket fills: at most once per candidate (3n) plus
     * once per interrupted sweep (n) */
    int32_t *prios = scratch(m, 7, (size_t)4 * n * sizeof(int32_t) + sizeof(int32_t));
    if (!end || !prev || !pid || !prios) return -1;
    size_t nb = (size_t)m->max_prio + 1, np = 0;
    Bucket *buckets = lbpe_calloc(nb, sizeof(Bucket));
    uint64_t *sweep = NULL;
    size_t sweep_cap = 0;
    if (!buckets) {
        lbpe_no_memory();
        return -1;
    }
    ptrdiff_t result = -1;
    for (int32_t k = 0; k < n; k++) {
        end[k] = k + 1;
        prev[k] = k - 1;
        pid[k] = uid[k];
    }
    for (int32_t k = 0; k + 1 < n; k++) {
        int32_t merged;
        int64_t pr = merge_prio(m, s, ub, k, k + 2, pid[k], pid[k + 1], &merged, NULL);
        if (pr != NONE_PRIO && bucket_push(buckets, prios, &np, (int32_t)pr,
                                           ((uint64_t)k << 32) | (uint32_t)(k + 2)) < 0)
            goto done;
    }
    long steps = 0;
    size_t requeued = 0; /* candidates put back by interrupted sweeps */
    int handover = 0;
    while (np) {
        int32_t r = prio_pop(prios, &np);
        Bucket *b = &buckets[r];
        /* take the bucket's candidates out (merges may refill it), sorted by position */
        size_t count = b->len;
        if (grow((void **)&sweep, &sweep_cap, count, sizeof(uint64_t)) < 0) goto done;
        memcpy(sweep, b->items, count * sizeof(uint64_t));
        b->len = 0;
        qsort(sweep, count, sizeof(uint64_t), cmp_u64);
        for (size_t k = 0; k < count; k++) {
            if (++steps % SIGNAL_EVERY == 0 && lbpe_interrupted() < 0) goto done;
            int32_t i = (int32_t)(sweep[k] >> 32), e = (int32_t)(uint32_t)sweep[k];
            if (pid[i] == INT32_MIN) continue;
            int32_t j = end[i];
            if (j >= e || j >= n || end[j] != e) continue;
            int32_t merged;
            if (merge_prio(m, s, ub, i, e, pid[i], pid[j], &merged, NULL) == NONE_PRIO)
                continue; /* cannot happen */
            pid[j] = INT32_MIN;
            end[i] = e;
            pid[i] = merged;
            int better = 0;
            if (e < n) {
                prev[e] = i;
                int64_t q = merge_prio(m, s, ub, i, end[e], pid[i], pid[e], &merged, NULL);
                if (q != NONE_PRIO) {
                    if (bucket_push(buckets, prios, &np, (int32_t)q,
                                    ((uint64_t)i << 32) | (uint32_t)end[e]) < 0)
                        goto done;
                    better = q <= r;
                }
            }
            int32_t p = prev[i];
            if (p >= 0) {
                int64_t q = merge_prio(m, s, ub, p, e, pid[p], pid[i], &merged, NULL);
                if (q != NONE_PRIO) {
                    if (bucket_push(buckets, prios, &np, (int32_t)q,
                                    ((uint64_t)p << 32) | (uint32_t)e) < 0)
                        goto done;
                    better = better || q <= r;
                }
            }
            if (better) { /* a pair as good as r appeared: the rest of this sweep waits behind it */
                /* Each merge of some pieces (a run of one character whose longer runs are
                 * better tokens) interrupts the sweep, and putting the rest back every time is
                 * quadratic: past a linear amount of such work the heap takes over from here. */
                requeued += count - k - 1;
                int32_t slack = m->thresholds->handover_slack;
                if (!slack || requeued > (size_t)4 * n + (size_t)slack) {
                    handover = 1;
                    break;
                }
                for (size_t x = k + 1; x < count; x++)
                    if (bucket_push(buckets, prios, &np, r, sweep[x]) < 0) goto done;
                break;
            }
        }
        if (handover) break;
    }
    if (handover) {
        result = heap_merge(m, s, ub, n, end, prev, pid, out);
        goto done;
    }
    result = 0;
    for (int32_t k = 0; k < n; k = end[k]) {
        out[result].s = k;
        out[result].e = end[k];
        out[result].id = pid[k];
        result++;
    }
done:
    for (size_t x = 0; x < nb; x++) lbpe_free(buckets[x].items);
    lbpe_free(buckets);
    lbpe_free(sweep);
    return result;
}

/* lbpe._native: the compiled fast path of the model stage (CPython only).
 *
 * The pure-Python modules lbpe/model/bpe.py and lbpe/model/lbpe.py are the reference; this
 * file computes the same tokens for the same pieces, faster, and the test suite checks that
 * the two agree (tests/test_native.py). What lives here:
 *
 *   Table    every token's bytes and every proper prefix of a token, hashed (FNV-1a, so a
 *            span's hash grows one byte at a time while LBPE walks it) -> id / LBPE id;
 *   Pairs    for merge-list vocabularies: (left id, right id) -> (priority, merged id);
 *   bpe      classic BPE of one piece: an array scan for short pieces, a linked list with a
 *            heap ordered by (priority, position) for long ones (exactly one merge at a time,
 *            leftmost first among equal priorities);
 *   lbpe     the paper's loop, as lbpe/model/lbpe.py computes it: windows longer than WALKED
 *            units scanned over the gaps still free (a polynomial hash of every prefix of the
 *            piece gives any window's hash at once, looked up in a table of the long tokens),
 *            then the spans of up to WALKED units listed by walking the token table, longest
 *            first, left to right, placed when both of their ends are still free;
 *   split    the preset pre-tokenisers (gpt2/r50k/p50k, cl100k, o200k, llama3, qwen2, paper)
 *            written out as code: for each, the piece the preset's regular expression would
 *            match at a position, with the same classes (set_classes, from lbpe/pretokenize/classes.py);
 *   Model.encode_text    text -> ids: split with a preset, each piece through a bounded cache
 *            (piece UTF-8 -> ids) or the model, ids returned as shared int objects;
 *   Model.encode_pieces  the same for pieces another pre-tokeniser made.
 *
 * Units are bytes (byte-level vocabularies) or characters (character-level ones; a character is
 * its UTF-8 bytes, and spans may only start and end on character boundaries). A character
 * that is no token takes the vocabulary's byte fallback, or the Python callable `fallback`
 * (lbpe.vocab.Vocab.fallback_ids), exactly as the pure path does.
 *
 * Nothing here keeps a pointer into a Python object across a call into Python, and every loop
 * that can run long checks for signals (Ctrl-C) now and then.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define FNV_OFFSET 1469598103934665603ULL
#define FNV_PRIME 1099511628211ULL
#define NONE_PRIO INT64_MAX
/* pieces of at most this many units take the array scan in classic BPE */
#define SHORT_BPE 8
/* pieces of more units take the bucketed sweep (bpe_bucketed) instead of the heap */
#define LONG_BPE 4096
/* the thresholds in force, kept in the module's state (lowered by tests, _set_bpe_thresholds, to
 * run every algorithm on small pieces) */
typedef struct { int32_t short_bpe, long_bpe; } Thresholds;
/* code points: the pre-tokenisers' class table has one byte each */
#define MAX_CP 0x110000
/* A table of classes; the module keeps every table it made until it is freed, since threads of a
 * running encode_batch may still read one that set_classes() replaced. */
typedef struct ClassTable { struct ClassTable *prev; unsigned char cls[MAX_CP]; } ClassTable;
/* ... when the priorities fit a table of bucket heads this long */
#define MAX_BUCKETS (1 << 24)
/* slots of the memo of boundaries tested for a cut */
#define CUT_MEMO_MASK ((1 << 16) - 1)
/* parts of pieces longer than this (bytes) are not cached */
#define MAX_CACHED_PART 1024
/* LBPE: windows up to this many units are found by walking the token table, longer ones by
 * scanning the gaps (lbpe/model/lbpe.py, WALKED) */
#define WALKED 16
/* the multiplier of the polynomial hash of long windows (odd) */
#define POLY 0x9E3779B97F4A7C15ULL
/* how many steps of a long loop run between two checks for Ctrl-C */
#define SIGNAL_EVERY 65536

typedef struct {
    int32_t id;     /* token id, or -1 for a proper prefix that is not a token */
    int32_t lid;    /* id LBPE may place (-1: not a token, or a scaffold token) */
} Ids;

typedef struct {
    unsigned char head[8];   /* the first bytes, compared here: most tokens never touch the arena */
    uint32_t off;            /* into the byte arena */
    uint32_t len;
    Ids v;
} Entry;


typedef struct {
    uint64_t key;   /* (left id << 32) | right id; UINT64_MAX when empty */
    int32_t prio;
    int32_t merged;
} PairSlot;

typedef struct { int32_t s, e, id; } Part;       /* units [s, e) with their id (-1: none) */
typedef struct { int32_t i, len, id; } Span;     /* an LBPE candidate */
/* a candidate merge: key = (priority, position of its left part), one integer to compare */
typedef struct { uint64_t key; int32_t e, merged; } HeapItem;

static inline uint64_t heap_key(int64_t prio, int32_t i) {
    return ((uint64_t)((uint32_t)(int32_t)prio ^ 0x80000000u) << 32) | (uint32_t)i;
}

/* A bounded cache of pieces (keyed by their UTF-8) -> ids, emptied when full. */
typedef struct { uint64_t hash; uint32_t koff, klen, ioff, icount; } CEntry;
typedef struct {
    uint64_t *slots; size_t mask;
    CEntry *entries; size_t n, cap;
    char *keys; size_t klen, kcap;
    int32_t *ids; size_t ilen, icap;
} Cache;

#define N_SCRATCH 11
typedef struct ModelS {
    PyObject_HEAD
    /* token table */
    char *arena; size_t arena_len, arena_cap;
    Entry *entries; size_t n_entries, cap_entries;
    uint64_t *slots; size_t mask;      /* (hash high 32 << 32) | (entry + 1); 0 = empty */
    /* merge pairs (NULL for rank vocabularies) */
    PairSlot *pairs; size_t pair_mask;
    int char_units;
    int whole_piece_first;
    /* scaffold: id -> its two parts (-1 when not scaffold); NULL when none */
    int32_t *sc_left, *sc_right; Py_ssize_t sc_size;
    /* character units without a token */
    int has_byte_fallback; int32_t byte_fallback[256];
    int has_unk; int32_t unk; int fuse_unk;
    PyObject *fallback;                /* callable(char) -> list[int] */
    int32_t max_prio;                  /* the largest merge priority */
    void *scratch[N_SCRATCH]; size_t scratch_cap[N_SCRATCH];
    PyThread_type_lock lock;           /* held by the call using the caches and scratch */
    unsigned long owner;               /* the thread that holds it (0: none) */
    Cache cache[2];                    /* piece -> ids, per mode (0: BPE, 1: LBPE) */
    Cache part_cache[2];               /* part of a piece (between cuts) -> ids, per mode */
    const struct ModelS *parent;       /* a worker's copy: the model whose caches it may read */
    uint64_t *witness; size_t witness_mask, n_witness;   /* (end, start) fragment pairs inside tokens */
    uint64_t *cut_memo;                /* boundaries tested for a cut (NULL: no cuts) ... */
    uint8_t *cut_val;                  /* ... and the answers: 0 empty slot, 1 cut, 2 covered */
    PyObject **longs; Py_ssize_t n_longs;   /* shared int objects for ids 0..n_longs-1 */
    /* LBPE tokens longer than WALKED units, by the polynomial hash of their bytes */
    uint32_t *long_slots; size_t long_mask;  /* entry + 1; 0 = empty */
    uint64_t *long_hash;                     /* the hash of each slot's token */
    int32_t *long_lengths; int32_t n_long_lengths;   /* their lengths in units, longest first */
    uint64_t *poly_pow; uint32_t poly_max;   /* POLY^k for k <= the longest such token's bytes */
    int32_t reach[256];                      /* first byte -> the longest such token starting with it */
    const Thresholds *thresholds;            /* the module's, which outlives its models */
} Model;

/* What the module keeps (one per interpreter that imports it). */
typedef struct {
    PyTypeObject *model_type;
    ClassTable *classes;      /* the presets' classes (NULL until set_classes), older tables behind */
    Thresholds thresholds;
} State;

static State *module_state(PyObject *mod) { return (State *)PyModule_GetState(mod); }
static State *model_state(Model *m) { return (State *)PyType_GetModuleState(Py_TYPE(m)); }

/* The presets' classes, or NULL with RuntimeError when set_classes() was not called. */
static const unsigned char *classes_of(const State *st) {
    if (!st->classes) { PyErr_SetString(PyExc_RuntimeError, "set_classes() first"); return NULL; }
    return st->classes->cls;
}

static int model_enter(Model *m) {
    if (!m->slots || !m->lock) { PyErr_SetString(PyExc_RuntimeError, "lbpe._native.Model was not initialised"); return -1; }
    unsigned long me = PyThread_get_thread_ident();
    if (!PyThread_acquire_lock(m->lock, NOWAIT_LOCK)) {
        if (m->owner == me) { PyErr_SetString(PyExc_RuntimeError, "lbpe._native.Model is not re-entrant"); return -1; }
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(m->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    m->owner = me;
    return 0;
}

static void model_exit(Model *m) {
    m->owner = 0;
    PyThread_release_lock(m->lock);
}

/* ------------------------------------------------------------------ helpers */

/* encode_batch's workers run without the GIL. There a failure only returns -1 (the caller's
 * thread then encodes that share again, the ordinary way, which raises the real error), nothing
 * calls into Python, and Ctrl-C is left to the caller's thread. */
static _Thread_local int in_worker = 0;

static void no_memory(void) { if (!in_worker) PyErr_NoMemory(); }
static void set_error(PyObject *type, const char *msg) { if (!in_worker) PyErr_SetString(type, msg); }

/* A time budget (lbpe/budget.py): encode_text and encode_pieces get the seconds left and stop
 * with TimeoutError once they are spent, checked where Ctrl-C is (0: no budget). */
static _Thread_local double deadline = 0;

static double monotonic_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void set_deadline(double seconds) { deadline = seconds > 0 ? monotonic_now() + seconds : 0; }

static int check_signals(void) {
    if (in_worker) return 0;
    if (deadline > 0 && monotonic_now() > deadline) {
        PyErr_SetString(PyExc_TimeoutError, "lbpe._native: the time budget is spent");
        return -1;
    }
    return PyErr_CheckSignals();
}

struct ModelS;
/* One call at a time uses a model's caches and scratch buffers: another thread waits (without
 * the GIL) for the lock, e.g. while encode_batch's threads run; the same thread calling again
 * from inside (through a Python callback) is refused. */
static int model_enter(struct ModelS *m);
static void model_exit(struct ModelS *m);

static void *scratch(Model *m, int slot, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (m->scratch_cap[slot] < bytes) {
        size_t cap = m->scratch_cap[slot] ? m->scratch_cap[slot] : 256;
        while (cap < bytes) cap *= 2;
        void *p = PyMem_RawRealloc(m->scratch[slot], cap);
        if (!p) { no_memory(); return NULL; }
        m->scratch[slot] = p;
        m->scratch_cap[slot] = cap;
    }
    return m->scratch[slot];
}

static inline uint64_t fnv(const unsigned char *s, size_t n, uint64_t h) {
    for (size_t k = 0; k < n; k++) { h ^= s[k]; h *= FNV_PRIME; }
    return h;
}

static inline Entry *table_find(const Model *m, uint64_t h, const char *s, size_t n) {
    uint64_t tag = h >> 32;
    size_t k = (size_t)h & m->mask;
    for (;;) {
        uint64_t slot = m->slots[k];
        if (slot == 0) return NULL;
        if ((slot >> 32) == tag) {
            Entry *e = &m->entries[(uint32_t)slot - 1];
            if (e->len == n) {
                if (n <= 8 ? memcmp(e->head, s, n) == 0
                           : memcmp(e->head, s, 8) == 0 && memcmp(m->arena + e->off + 8, s + 8, n - 8) == 0)
                    return e;
            }
        }
        k = (k + 1) & m->mask;
    }
}

static int table_grow(Model *m) {
    size_t size = (m->mask + 1) * 2;
    uint64_t *slots = PyMem_RawCalloc(size, sizeof(uint64_t));
    if (!slots) { no_memory(); return -1; }
    for (size_t x = 0; x < m->n_entries; x++) {
        uint64_t h = fnv((const unsigned char *)m->arena + m->entries[x].off, m->entries[x].len, FNV_OFFSET);
        size_t k = (size_t)h & (size - 1);
        while (slots[k]) k = (k + 1) & (size - 1);
        slots[k] = ((h >> 32) << 32) | (uint64_t)(x + 1);
    }
    PyMem_RawFree(m->slots);
    m->slots = slots;
    m->mask = size - 1;
    return 0;
}

/* Find or add the string s[0:n] (hash h); returns the entry or NULL with an exception set. */
static Entry *table_add(Model *m, uint64_t h, const char *s, size_t n) {
    Entry *e = table_find(m, h, s, n);
    if (e) return e;
    if (n > UINT32_MAX || m->n_entries >= UINT32_MAX - 1) { set_error(PyExc_OverflowError, "vocabulary too large"); return NULL; }
    if ((m->n_entries + 1) * 2 > m->mask + 1 && table_grow(m) < 0) return NULL;
    if (m->n_entries == m->cap_entries) {
        size_t cap = m->cap_entries ? m->cap_entries * 2 : 1024;
        Entry *p = PyMem_RawRealloc(m->entries, cap * sizeof(Entry));
        if (!p) { no_memory(); return NULL; }
        m->entries = p; m->cap_entries = cap;
    }
    if (m->arena_len + n > m->arena_cap) {
        size_t cap = m->arena_cap ? m->arena_cap : 1 << 16;
        while (cap < m->arena_len + n) cap *= 2;
        if (cap > UINT32_MAX) { set_error(PyExc_OverflowError, "vocabulary too large"); return NULL; }
        char *p = PyMem_RawRealloc(m->arena, cap);
        if (!p) { no_memory(); return NULL; }
        m->arena = p; m->arena_cap = cap;
    }
    memcpy(m->arena + m->arena_len, s, n);
    e = &m->entries[m->n_entries];
    memset(e->head, 0, 8);
    memcpy(e->head, s, n < 8 ? n : 8);
    e->off = (uint32_t)m->arena_len; e->len = (uint32_t)n; e->v.id = -1; e->v.lid = -1;
    m->arena_len += n;
    size_t k = (size_t)h & m->mask;
    while (m->slots[k]) k = (k + 1) & m->mask;
    m->slots[k] = ((h >> 32) << 32) | (uint64_t)(m->n_entries + 1);
    m->n_entries++;
    return e;
}

/* The token / prefix s[0:n] (h: its FNV hash), or NULL. */
static inline const Ids *lookup_h(const Model *m, const char *s, size_t n, uint64_t h) {
    const Entry *e = table_find(m, h, s, n);
    return e ? &e->v : NULL;
}

static inline const Ids *lookup(const Model *m, const char *s, size_t n) {
    const Entry *e = table_find(m, fnv((const unsigned char *)s, n, FNV_OFFSET), s, n);
    return e ? &e->v : NULL;
}

static inline uint64_t pair_key(int32_t a, int32_t b) { return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b; }
static inline size_t pair_hash(uint64_t key) { return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17); }

static inline const PairSlot *pair_find(const Model *m, int32_t a, int32_t b) {
    uint64_t key = pair_key(a, b);
    size_t k = pair_hash(key) & m->pair_mask;
    for (;;) {
        const PairSlot *p = &m->pairs[k];
        if (p->key == key) return p;
        if (p->key == UINT64_MAX) return NULL;
        k = (k + 1) & m->pair_mask;
    }
}

/* ------------------------------------------------------------------ classic BPE */

/* Priority and result of merging units [i, j) and [j, e) (parts with ids a and b). */
static inline int64_t merge_prio(const Model *m, const char *s, const int32_t *ub, int32_t i, int32_t e,
                                 int32_t a, int32_t b, int32_t *merged) {
    if (m->pairs) {
        if (a < 0 || b < 0) return NONE_PRIO;
        const PairSlot *p = pair_find(m, a, b);
        if (!p) return NONE_PRIO;
        *merged = p->merged;
        return p->prio;
    }
    const Ids *x = lookup(m, s + ub[i], (size_t)(ub[e] - ub[i]));
    if (!x || x->id < 0) return NONE_PRIO;
    *merged = x->id;
    return x->id;
}

/* Short pieces: arrays of parts, the best pair found by a scan (leftmost among equals). */
static Py_ssize_t bpe_short(Model *m, const char *s, const int32_t *ub, int32_t n, const int32_t *uid, Part *out) {
    int32_t ps[SHORT_BPE + 1], pid[SHORT_BPE], pm[SHORT_BPE];
    int64_t pr[SHORT_BPE];
    int32_t np = n;
    for (int32_t k = 0; k < n; k++) { ps[k] = k; pid[k] = uid[k]; }
    ps[n] = n;
    for (int32_t k = 0; k + 1 < np; k++) pr[k] = merge_prio(m, s, ub, k, k + 2, pid[k], pid[k + 1], &pm[k]);
    while (np > 1) {
        int64_t best = NONE_PRIO; int32_t b = -1;
        for (int32_t k = 0; k + 1 < np; k++) if (pr[k] < best) { best = pr[k]; b = k; }
        if (b < 0) break;
        pid[b] = pm[b];
        memmove(ps + b + 1, ps + b + 2, (size_t)(np - b - 1) * sizeof(int32_t));
        memmove(pid + b + 1, pid + b + 2, (size_t)(np - b - 2) * sizeof(int32_t));
        memmove(pr + b, pr + b + 1, (size_t)(np - b - 2) * sizeof(int64_t));
        memmove(pm + b, pm + b + 1, (size_t)(np - b - 2) * sizeof(int32_t));
        np--;
        if (b > 0) pr[b - 1] = merge_prio(m, s, ub, ps[b - 1], ps[b + 1], pid[b - 1], pid[b], &pm[b - 1]);
        if (b + 1 < np) pr[b] = merge_prio(m, s, ub, ps[b], ps[b + 2], pid[b], pid[b + 1], &pm[b]);
    }
    for (int32_t k = 0; k < np; k++) { out[k].s = ps[k]; out[k].e = ps[k + 1]; out[k].id = pid[k]; }
    return np;
}

static inline int heap_less(const HeapItem *a, const HeapItem *b) { return a->key < b->key; }

static void heap_push(HeapItem *h, size_t *len, HeapItem item) {
    size_t k = (*len)++;
    while (k > 0) {
        size_t p = (k - 1) / 2;
        if (!heap_less(&item, &h[p])) break;
        h[k] = h[p]; k = p;
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
        h[k] = h[c]; k = c;
    }
    if (n) h[k] = last;
    return top;
}

/* Long pieces: a linked list of parts (keyed by their first unit) and a heap of candidate
 * pairs ordered by (priority, position), so every step merges the best, leftmost pair as the
 * one-at-a-time definition does. A candidate is stale unless its left part still starts at i
 * and its right part still ends at e (boundaries only ever disappear). */
static Py_ssize_t bpe_long(Model *m, const char *s, const int32_t *ub, int32_t n, const int32_t *uid, Part *out) {
    int32_t *end = scratch(m, 3, (size_t)n * sizeof(int32_t));
    int32_t *prev = scratch(m, 4, (size_t)n * sizeof(int32_t));
    int32_t *pid = scratch(m, 5, (size_t)n * sizeof(int32_t));
    /* at most n - 1 initial candidates plus two per merge (n - 1 merges) */
    HeapItem *heap = scratch(m, 6, (size_t)3 * n * sizeof(HeapItem));
    if (!end || !prev || !pid || !heap) return -1;
    size_t hl = 0;
    for (int32_t k = 0; k < n; k++) { end[k] = k + 1; prev[k] = k - 1; pid[k] = uid[k]; }
    for (int32_t k = 0; k + 1 < n; k++) {
        HeapItem it = {0, k + 2, 0};
        int64_t prio = merge_prio(m, s, ub, k, k + 2, pid[k], pid[k + 1], &it.merged);
        if (prio != NONE_PRIO) { it.key = heap_key(prio, k); heap_push(heap, &hl, it); }
    }
    long steps = 0;
    while (hl) {
        if (++steps % SIGNAL_EVERY == 0 && check_signals() < 0) return -1;
        HeapItem it = heap_pop(heap, &hl);
        int32_t i = (int32_t)(uint32_t)it.key, e = it.e;
        if (pid[i] == INT32_MIN) continue;                 /* i no longer starts a part */
        int32_t j = end[i];
        if (j >= e || j >= n || end[j] != e) continue;     /* the pair changed */
        pid[j] = INT32_MIN;
        end[i] = e;
        pid[i] = it.merged;
        if (e < n) {
            prev[e] = i;
            HeapItem r = {0, end[e], 0};
            int64_t prio = merge_prio(m, s, ub, i, end[e], pid[i], pid[e], &r.merged);
            if (prio != NONE_PRIO) { r.key = heap_key(prio, i); heap_push(heap, &hl, r); }
        }
        int32_t p = prev[i];
        if (p >= 0) {
            HeapItem l = {0, e, 0};
            int64_t prio = merge_prio(m, s, ub, p, e, pid[p], pid[i], &l.merged);
            if (prio != NONE_PRIO) { l.key = heap_key(prio, p); heap_push(heap, &hl, l); }
        }
    }
    Py_ssize_t np = 0;
    for (int32_t k = 0; k < n; k = end[k]) { out[np].s = k; out[np].e = end[k]; out[np].id = pid[k]; np++; }
    return np;
}


/* Very long pieces (a megabyte "word"): candidate pairs kept in one bucket per priority; the
 * best bucket is sorted by position and applied in one left-to-right sweep, which touches memory
 * in order and stays linear in practice where a heap of every candidate does not. A merge that
 * creates a pair at least as good as the sweep's priority stops the sweep: the rest of the bucket
 * goes back and waits behind it, so the order is still exactly one merge at a time, leftmost
 * first among equal priorities. */
static int grow(void **p, size_t *cap, size_t need, size_t item);

typedef struct { uint64_t *items; uint32_t len, cap; } Bucket;   /* candidates: (i << 32) | e */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void prio_push(int32_t *h, size_t *len, int32_t v) {
    size_t k = (*len)++;
    while (k > 0 && h[(k - 1) / 2] > v) { h[k] = h[(k - 1) / 2]; k = (k - 1) / 2; }
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
        h[k] = h[c]; k = c;
    }
    if (n) h[k] = last;
    return top;
}

/* Append a candidate to the bucket of priority pr (a new non-empty bucket joins the queue). */
static int bucket_push(Bucket *buckets, int32_t *prios, size_t *np, int32_t pr, uint64_t item) {
    Bucket *b = &buckets[pr];
    if (b->len == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 8;
        uint64_t *p = PyMem_RawRealloc(b->items, (size_t)cap * sizeof(uint64_t));
        if (!p) { no_memory(); return -1; }
        b->items = p; b->cap = cap;
    }
    if (b->len == 0) prio_push(prios, np, pr);
    b->items[b->len++] = item;
    return 0;
}

static Py_ssize_t bpe_bucketed(Model *m, const char *s, const int32_t *ub, int32_t n, const int32_t *uid, Part *out) {
    int32_t *end = scratch(m, 3, (size_t)n * sizeof(int32_t));
    int32_t *prev = scratch(m, 4, (size_t)n * sizeof(int32_t));
    int32_t *pid = scratch(m, 5, (size_t)n * sizeof(int32_t));
    /* a priority enters the queue when its bucket fills: at most once per candidate (3n) plus
     * once per interrupted sweep (n) */
    int32_t *prios = scratch(m, 7, (size_t)4 * n * sizeof(int32_t) + sizeof(int32_t));
    if (!end || !prev || !pid || !prios) return -1;
    size_t nb = (size_t)m->max_prio + 1, np = 0;
    Bucket *buckets = PyMem_RawCalloc(nb, sizeof(Bucket));
    uint64_t *sweep = NULL;
    size_t sweep_cap = 0;
    if (!buckets) { no_memory(); return -1; }
    Py_ssize_t result = -1;
    for (int32_t k = 0; k < n; k++) { end[k] = k + 1; prev[k] = k - 1; pid[k] = uid[k]; }
    for (int32_t k = 0; k + 1 < n; k++) {
        int32_t merged;
        int64_t pr = merge_prio(m, s, ub, k, k + 2, pid[k], pid[k + 1], &merged);
        if (pr != NONE_PRIO && bucket_push(buckets, prios, &np, (int32_t)pr, ((uint64_t)k << 32) | (uint32_t)(k + 2)) < 0) goto done;
    }
    long steps = 0;
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
            if (++steps % SIGNAL_EVERY == 0 && check_signals() < 0) goto done;
            int32_t i = (int32_t)(sweep[k] >> 32), e = (int32_t)(uint32_t)sweep[k];
            if (pid[i] == INT32_MIN) continue;
            int32_t j = end[i];
            if (j >= e || j >= n || end[j] != e) continue;
            int32_t merged;
            if (merge_prio(m, s, ub, i, e, pid[i], pid[j], &merged) == NONE_PRIO) continue;   /* cannot happen */
            pid[j] = INT32_MIN;
            end[i] = e;
            pid[i] = merged;
            int better = 0;
            if (e < n) {
                prev[e] = i;
                int64_t q = merge_prio(m, s, ub, i, end[e], pid[i], pid[e], &merged);
                if (q != NONE_PRIO) {
                    if (bucket_push(buckets, prios, &np, (int32_t)q, ((uint64_t)i << 32) | (uint32_t)end[e]) < 0) goto done;
                    better = q <= r;
                }
            }
            int32_t p = prev[i];
            if (p >= 0) {
                int64_t q = merge_prio(m, s, ub, p, e, pid[p], pid[i], &merged);
                if (q != NONE_PRIO) {
                    if (bucket_push(buckets, prios, &np, (int32_t)q, ((uint64_t)p << 32) | (uint32_t)e) < 0) goto done;
                    better = better || q <= r;
                }
            }
            if (better) {   /* a pair as good as r appeared: the rest of this sweep waits behind it */
                for (size_t x = k + 1; x < count; x++)
                    if (bucket_push(buckets, prios, &np, r, sweep[x]) < 0) goto done;
                break;
            }
        }
    }
    result = 0;
    for (int32_t k = 0; k < n; k = end[k]) { out[result].s = k; out[result].e = end[k]; out[result].id = pid[k]; result++; }
done:
    for (size_t x = 0; x < nb; x++) PyMem_RawFree(buckets[x].items);
    PyMem_RawFree(buckets);
    PyMem_RawFree(sweep);
    return result;
}

/* ------------------------------------------------------------------ LBPE */

static inline size_t mix64(uint64_t k);

/* The LBPE id of the long token whose bytes are s[0:len] (h: their polynomial hash), or -1. */
static inline int32_t long_find(const Model *m, const char *s, uint32_t len, uint64_t h) {
    size_t k = mix64(h) & m->long_mask;
    for (;;) {
        uint32_t slot = m->long_slots[k];
        if (!slot) return -1;
        if (m->long_hash[k] == h) {
            const Entry *e = &m->entries[slot - 1];
            if (e->len == len && memcmp(m->arena + e->off, s, len) == 0) return e->v.lid;
        }
        k = (k + 1) & m->long_mask;
    }
}

/* The paper's loop for the windows longer than WALKED units, over the gaps g[0:2*ng] (pairs of
 * unit offsets a, b: the runs nothing covers yet): a window is checked where it fits in a gap,
 * for the lengths long tokens have, at a unit some token that long starts with; a placed token
 * splits its gap. Leaves the gaps of two units or more in g and returns their count (-1: error). */
static Py_ssize_t place_long(Model *m, const char *s, const int32_t *ub, int32_t n, int32_t *placed, int32_t *g,
                             Py_ssize_t ng, int32_t *next) {
    int32_t top = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = m->reach[(unsigned char)s[ub[i]]];
        if (r > top) top = r;
    }
    if (top > n) top = n;
    if (top <= WALKED) return ng;
    size_t nb = (size_t)ub[n];
    uint64_t *H = scratch(m, 10, (nb + 1) * sizeof(uint64_t));   /* H[k]: hash of the first k bytes */
    if (!H) return -1;
    H[0] = 0;
    for (size_t k = 0; k < nb; k++) H[k + 1] = H[k] * POLY + (unsigned char)s[k] + 1;
    uint64_t probes = 0;
    for (int32_t x = 0; x < m->n_long_lengths; x++) {
        int32_t len = m->long_lengths[x];
        if (len > top) continue;
        Py_ssize_t nn = 0;
        for (Py_ssize_t y = 0; y < ng; y++) {
            int32_t a = g[2 * y], b = g[2 * y + 1], i = a;
            while (i + len <= b) {
                if (m->reach[(unsigned char)s[ub[i]]] >= len) {
                    if ((++probes & (SIGNAL_EVERY - 1)) == 0 && check_signals() < 0) return -1;
                    uint32_t p = (uint32_t)ub[i], q = (uint32_t)ub[i + len];
                    int32_t id = q - p > m->poly_max ? -1 : long_find(m, s + p, q - p, H[q] - H[p] * m->poly_pow[q - p]);
                    if (id >= 0) {
                        if (i - a >= 2) { next[2 * nn] = a; next[2 * nn + 1] = i; nn++; }
                        placed[2 * i] = len;
                        placed[2 * i + 1] = id;
                        i += len;
                        a = i;
                        continue;
                    }
                }
                i++;
            }
            if (b - a >= 2) { next[2 * nn] = a; next[2 * nn + 1] = b; nn++; }
        }
        memcpy(g, next, (size_t)nn * 2 * sizeof(int32_t));
        ng = nn;
    }
    return ng;
}

static Py_ssize_t lbpe(Model *m, const char *s, const int32_t *ub, int32_t n, const int32_t *uid, Part *out) {
    /* placed[2i], placed[2i + 1]: the length and id of the token placed at unit i (length 0: none) */
    int32_t *placed = scratch(m, 7, (size_t)n * sizeof(int32_t) * 2);
    size_t gap_bytes = ((size_t)n / 2 + 2) * 2 * sizeof(int32_t);
    int32_t *g = scratch(m, 8, gap_bytes), *next = scratch(m, 9, gap_bytes);
    if (!placed || !g || !next) return -1;
    for (int32_t k = 0; k < n; k++) placed[2 * k] = 0;
    Py_ssize_t ng = 1;
    g[0] = 0;
    g[1] = n;
    if (m->n_long_lengths && n > WALKED && (ng = place_long(m, s, ub, n, placed, g, ng, next)) < 0) return -1;
    /* the spans of up to WALKED units inside the gaps, by walking the token table */
    size_t cap = (size_t)n * 2 + 16, ns = 0;
    Span *spans = scratch(m, 3, cap * sizeof(Span));
    if (!spans) return -1;
    int32_t longest = 1;
    for (Py_ssize_t y = 0; y < ng; y++) {
        int32_t a = g[2 * y], b = g[2 * y + 1];
        for (int32_t i = a; i + 1 < b; i++) {
            if ((i & (SIGNAL_EVERY - 1)) == SIGNAL_EVERY - 1 && check_signals() < 0) return -1;
            int32_t stop = b - i > WALKED ? i + WALKED : b;
            uint64_t h = FNV_OFFSET;
            for (int32_t j = i + 1; j <= stop; j++) {
                h = fnv((const unsigned char *)s + ub[j - 1], (size_t)(ub[j] - ub[j - 1]), h);
                const Ids *x = lookup_h(m, s + ub[i], (size_t)(ub[j] - ub[i]), h);
                if (!x) break;
                if (x->lid >= 0 && j - i >= 2) {
                    if (ns == cap) {
                        cap *= 2;
                        spans = scratch(m, 3, cap * sizeof(Span));
                        if (!spans) return -1;
                    }
                    spans[ns].i = i; spans[ns].len = j - i; spans[ns].id = x->lid; ns++;
                    if (j - i > longest) longest = j - i;
                }
            }
        }
    }
    /* longest first, left to right: a counting sort by length (stable in position) */
    size_t *start = scratch(m, 4, ((size_t)longest + 2) * sizeof(size_t));
    Span *order = scratch(m, 5, ns * sizeof(Span));
    unsigned char *taken = scratch(m, 6, (size_t)n);
    if (!start || !order || !taken) return -1;
    memset(start, 0, ((size_t)longest + 2) * sizeof(size_t));
    for (size_t k = 0; k < ns; k++) start[longest - spans[k].len + 1]++;
    for (int32_t l = 1; l <= longest + 1; l++) start[l] += start[l - 1];
    for (size_t k = 0; k < ns; k++) order[start[longest - spans[k].len]++] = spans[k];
    memset(taken, 0, (size_t)n);
    for (size_t k = 0; k < ns; k++) {
        int32_t i = order[k].i, last = i + order[k].len - 1;
        if (taken[i] || taken[last]) continue;
        memset(taken + i, 1, (size_t)order[k].len);
        placed[2 * i] = order[k].len;
        placed[2 * i + 1] = order[k].id;
    }
    Py_ssize_t np = 0;
    for (int32_t i = 0; i < n;) {
        int32_t len = placed[2 * i];
        if (len) { out[np].s = i; out[np].e = i + len; out[np].id = placed[2 * i + 1]; i += len; }
        else { out[np].s = i; out[np].e = i + 1; out[np].id = uid[i]; i++; }
        np++;
    }
    return np;
}

/* ------------------------------------------------------------------ one piece -> ids */

typedef struct { int32_t *ids; size_t len, cap; } IdBuf;

static int idbuf_push(IdBuf *b, int32_t id) {
    if (b->len == b->cap && grow((void **)&b->ids, &b->cap, b->len + 1, sizeof(int32_t)) < 0) return -1;
    b->ids[b->len++] = id;
    return 0;
}

static int push_scaffold(Model *m, int32_t id, IdBuf *b) {
    /* split a scaffold token into its parts, depth first, left part first (any depth) */
    IdBuf stack = {NULL, 0, 0};
    int rc = idbuf_push(&stack, id);
    while (rc == 0 && stack.len) {
        int32_t x = stack.ids[--stack.len];
        if (x >= 0 && x < m->sc_size && m->sc_left[x] >= 0) {
            rc = idbuf_push(&stack, m->sc_right[x]);
            if (rc == 0) rc = idbuf_push(&stack, m->sc_left[x]);
        } else rc = idbuf_push(b, x);
    }
    PyMem_RawFree(stack.ids);
    return rc;
}

/* ids of a character that has no token (character units only) */
static int push_fallback(Model *m, const char *s, int32_t a, int32_t z, int *prev_unk, IdBuf *b) {
    if (m->has_byte_fallback) {
        for (int32_t k = a; k < z; k++) if (idbuf_push(b, m->byte_fallback[(unsigned char)s[k]]) < 0) return -1;
        *prev_unk = 0;
        return 0;
    }
    if (m->has_unk) {
        if (!(m->fuse_unk && *prev_unk) && idbuf_push(b, m->unk) < 0) return -1;
        *prev_unk = m->fuse_unk;
        return 0;
    }
    /* neither: the Python side raises the error that names the character */
    if (in_worker) return -1;
    PyObject *ch = PyUnicode_DecodeUTF8(s + a, z - a, "strict");
    if (!ch) return -1;
    PyObject *r = PyObject_CallOneArg(m->fallback, ch);
    Py_DECREF(ch);
    if (!r) return -1;
    Py_DECREF(r);
    set_error(PyExc_RuntimeError, "lbpe._native: the fallback returned ids for a vocabulary without fallback");
    return -1;
}

/* Encode one piece (UTF-8 bytes s[0:len]) into b. Returns 0, or -1 with an exception set. */
static int encode_piece(Model *m, const char *s, Py_ssize_t len, int lbpe_mode, int whole, IdBuf *b) {
    if (len > INT32_MAX / 4) { set_error(PyExc_OverflowError, "piece too long for the compiled path"); return -1; }
    int32_t n;
    int32_t *ub = scratch(m, 0, ((size_t)len + 1) * sizeof(int32_t));
    if (!ub) return -1;
    if (m->char_units) {
        n = 0;
        for (int32_t k = 0; k < len; k++) if (((unsigned char)s[k] & 0xC0) != 0x80) ub[n++] = k;
        ub[n] = (int32_t)len;
    } else {
        n = (int32_t)len;
        for (int32_t k = 0; k <= n; k++) ub[k] = k;
    }
    if (n == 0) return 0;
    Part *parts = scratch(m, 1, (size_t)n * sizeof(Part));
    int32_t *uid = scratch(m, 2, (size_t)n * sizeof(int32_t));
    if (!parts || !uid) return -1;
    Py_ssize_t np = -2;
    if (!lbpe_mode && whole && m->whole_piece_first) {
        const Ids *x = lookup(m, s, (size_t)len);
        if (x && x->id >= 0) { parts[0].s = 0; parts[0].e = n; parts[0].id = x->id; np = 1; }
    }
    if (np == -2) {
        for (int32_t k = 0; k < n; k++) {
            const Ids *x = lookup(m, s + ub[k], (size_t)(ub[k + 1] - ub[k]));
            uid[k] = x ? x->id : -1;
        }
        if (n == 1) { parts[0].s = 0; parts[0].e = 1; parts[0].id = uid[0]; np = 1; }
        else if (lbpe_mode) np = lbpe(m, s, ub, n, uid, parts);
        else if (n <= m->thresholds->short_bpe) np = bpe_short(m, s, ub, n, uid, parts);
        else if (n <= m->thresholds->long_bpe || m->max_prio > MAX_BUCKETS) np = bpe_long(m, s, ub, n, uid, parts);
        else np = bpe_bucketed(m, s, ub, n, uid, parts);
        if (np < 0) return -1;
    }
    int prev_unk = 0;
    for (Py_ssize_t k = 0; k < np; k++) {
        int32_t id = parts[k].id;
        if (id < 0) {
            /* a single character without a token: copy it out of scratch before calling out */
            char ch[8]; int32_t a = ub[parts[k].s], z = ub[parts[k].e];
            if (z - a > 8) { set_error(PyExc_RuntimeError, "lbpe._native: unit longer than a character"); return -1; }
            memcpy(ch, s + a, (size_t)(z - a));
            if (push_fallback(m, ch, 0, z - a, &prev_unk, b) < 0) return -1;
            continue;
        }
        prev_unk = 0;
        if (!lbpe_mode && m->sc_left) {
            if (push_scaffold(m, id, b) < 0) return -1;
        } else if (idbuf_push(b, id) < 0) return -1;
    }
    return 0;
}

static PyObject *ids_tuple(const IdBuf *b, size_t from) {
    PyObject *t = PyTuple_New((Py_ssize_t)(b->len - from));
    if (!t) return NULL;
    for (size_t k = from; k < b->len; k++) {
        PyObject *v = PyLong_FromLong(b->ids[k]);
        if (!v) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, (Py_ssize_t)(k - from), v);
    }
    return t;
}

/* ------------------------------------------------------------------ the piece cache */

static void cache_free(Cache *c) {
    PyMem_RawFree(c->slots); PyMem_RawFree(c->entries); PyMem_RawFree(c->keys); PyMem_RawFree(c->ids);
    memset(c, 0, sizeof(Cache));
}

static void cache_clear(Cache *c) {
    if (c->mask + 1 > 4096) { cache_free(c); return; }  /* give the memory back */
    if (c->slots) memset(c->slots, 0, (c->mask + 1) * sizeof(uint64_t));
    c->n = c->klen = c->ilen = 0;
}

static const CEntry *cache_find(const Cache *c, uint64_t h, const char *s, size_t n) {
    if (!c->slots) return NULL;
    uint64_t tag = h >> 32;
    size_t k = (size_t)h & c->mask;
    for (;;) {
        uint64_t slot = c->slots[k];
        if (slot == 0) return NULL;
        if ((slot >> 32) == tag) {
            const CEntry *e = &c->entries[(uint32_t)slot - 1];
            if (e->hash == h && e->klen == n && memcmp(c->keys + e->koff, s, n) == 0) return e;
        }
        k = (k + 1) & c->mask;
    }
}

static int grow(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = PyMem_RawRealloc(*p, c * item);
    if (!q) { no_memory(); return -1; }
    *p = q; *cap = c;
    return 0;
}

static int cache_add(Cache *c, uint64_t h, const char *s, size_t n, const int32_t *ids, size_t count) {
    if (c->klen + n > UINT32_MAX || c->ilen + count > UINT32_MAX) return 0;  /* full: just skip */
    if (!c->slots || (c->n + 1) * 2 > c->mask + 1) {
        size_t size = c->slots ? (c->mask + 1) * 2 : 1024;
        uint64_t *slots = PyMem_RawCalloc(size, sizeof(uint64_t));
        if (!slots) { no_memory(); return -1; }
        for (size_t x = 0; x < c->n; x++) {
            size_t k = (size_t)c->entries[x].hash & (size - 1);
            while (slots[k]) k = (k + 1) & (size - 1);
            slots[k] = ((c->entries[x].hash >> 32) << 32) | (uint64_t)(x + 1);
        }
        PyMem_RawFree(c->slots);
        c->slots = slots; c->mask = size - 1;
    }
    if (grow((void **)&c->entries, &c->cap, c->n + 1, sizeof(CEntry)) < 0 ||
        grow((void **)&c->keys, &c->kcap, c->klen + n, 1) < 0 ||
        grow((void **)&c->ids, &c->icap, c->ilen + count, sizeof(int32_t)) < 0)
        return -1;
    CEntry *e = &c->entries[c->n];
    e->hash = h; e->koff = (uint32_t)c->klen; e->klen = (uint32_t)n; e->ioff = (uint32_t)c->ilen; e->icount = (uint32_t)count;
    memcpy(c->keys + c->klen, s, n); c->klen += n;
    if (count) memcpy(c->ids + c->ilen, ids, count * sizeof(int32_t));
    c->ilen += count;
    size_t k = (size_t)h & c->mask;
    while (c->slots[k]) k = (k + 1) & c->mask;
    c->slots[k] = ((h >> 32) << 32) | (uint64_t)(c->n + 1);
    c->n++;
    return 0;
}

static int append_ids(IdBuf *out, const int32_t *ids, size_t count) {
    if (grow((void **)&out->ids, &out->cap, out->len + count, sizeof(int32_t)) < 0) return -1;
    if (count) memcpy(out->ids + out->len, ids, count * sizeof(int32_t));
    out->len += count;
    return 0;
}

/* ---- cuts (lbpe/model/cuts.py, the same test): a boundary between two characters that no
 * token can cover. Pieces of Chinese or Japanese fall apart there into parts (mostly words) that
 * encode independently and repeat, so a cache of parts makes unseen pieces cheap. A witness is a
 * pair (the end of a character, the start of the next) found inside some token; the boundary
 * c1 c2 is a cut when no suffix of c1's bytes followed by a prefix of c2's bytes is a witness
 * (character units: c1, c2 themselves). Two ASCII characters never count as a cut. */

static inline uint64_t frag_key(const unsigned char *a, int la, const unsigned char *b, int lb) {
    uint64_t k = 0;
    for (int x = 0; x < la; x++) k = (k << 8) | a[x];
    for (int x = 0; x < lb; x++) k = (k << 8) | b[x];
    return (k << 6) | ((uint64_t)la << 3) | (uint64_t)lb;   /* at most 8 bytes of fragments */
}

static inline size_t mix64(uint64_t k) {
    k ^= k >> 33; k *= 0xff51afd7ed558ccdULL; k ^= k >> 33; k *= 0xc4ceb9fe1a85ec53ULL; k ^= k >> 33;
    return (size_t)k;
}

static int witness_add(Model *m, uint64_t key) {
    if ((m->n_witness + 1) * 2 > m->witness_mask + 1) {
        size_t size = m->witness ? (m->witness_mask + 1) * 2 : 4096;
        uint64_t *w = PyMem_RawCalloc(size, sizeof(uint64_t));
        if (!w) { no_memory(); return -1; }
        for (size_t x = 0; m->witness && x <= m->witness_mask; x++) {
            if (!m->witness[x]) continue;
            size_t k = mix64(m->witness[x]) & (size - 1);
            while (w[k]) k = (k + 1) & (size - 1);
            w[k] = m->witness[x];
        }
        PyMem_RawFree(m->witness);
        m->witness = w; m->witness_mask = size - 1;
    }
    size_t k = mix64(key) & m->witness_mask;
    while (m->witness[k]) { if (m->witness[k] == key) return 0; k = (k + 1) & m->witness_mask; }
    m->witness[k] = key;
    m->n_witness++;
    return 0;
}

static inline int witness_has(const Model *m, uint64_t key) {
    size_t k = mix64(key) & m->witness_mask;
    while (m->witness[k]) { if (m->witness[k] == key) return 1; k = (k + 1) & m->witness_mask; }
    return 0;
}

#define CONT(b) (((b) & 0xC0) == 0x80)

static int build_witnesses(Model *m) {
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        if (e->v.id < 0) continue;
        const unsigned char *t = (const unsigned char *)m->arena + e->off;
        uint32_t n = e->len;
        for (uint32_t i = 1; i < n; i++) {
            if (CONT(t[i])) continue;   /* inside a character: never a character boundary */
            uint32_t p = i - 1, q = i + 1;
            while (p > 0 && CONT(t[p])) p--;
            while (q < n && CONT(t[q])) q++;
            if (t[p] < 0x80 && i - p == 1 && t[i] < 0x80 && q - i == 1) continue;   /* two ASCII characters */
            if (i - p > 4 || q - i > 4) continue;   /* not UTF-8 text: such tokens never meet text */
            if (witness_add(m, frag_key(t + p, (int)(i - p), t + i, (int)(q - i))) < 0) return -1;
        }
    }
    return 0;
}

/* Is the boundary between the characters a[0:la] and b[0:lb] (UTF-8) a cut? Answers are
 * remembered by the pair's bytes (a character's first byte tells its length, so the 64-bit key
 * is exact); a full neighbourhood of the memo simply overwrites a slot. */
static int is_cut(Model *m, const unsigned char *a, int la, const unsigned char *b, int lb) {
    if (la == 1 && lb == 1 && a[0] < 0x80 && b[0] < 0x80) return 0;
    if (!m->witness) return 1;
    uint64_t ka = 0, kb = 0;
    for (int x = 0; x < la; x++) ka = (ka << 8) | a[x];
    for (int x = 0; x < lb; x++) kb = (kb << 8) | b[x];
    uint64_t key = (ka << 32) | kb;
    size_t k = mix64(key) & CUT_MEMO_MASK, free_slot = k;
    for (int probe = 0; probe < 8; probe++, k = (k + 1) & CUT_MEMO_MASK) {
        if (!m->cut_val[k]) { free_slot = k; break; }
        if (m->cut_memo[k] == key) return m->cut_val[k] == 1;
    }
    int covered = 0;
    if (m->char_units) covered = witness_has(m, frag_key(a, la, b, lb));
    else
        for (int x = 0; x < la && !covered; x++)        /* a token may start inside c1 ... */
            for (int y = 1; y <= lb && !covered; y++)   /* ... and end inside c2 */
                covered = witness_has(m, frag_key(a + x, la - x, b, y));
    m->cut_memo[free_slot] = key;
    m->cut_val[free_slot] = covered ? 2 : 1;
    return !covered;
}

/* A piece that falls apart at cuts: each part through the part cache (no whole-piece shortcut:
 * the parts of a piece are merged as parts, as the pure path does). Returns 1 when it did
 * the work, 0 when the piece has no cut. */
static int by_parts(Model *m, const char *s, size_t n, int lbpe_mode, Py_ssize_t limit, IdBuf *out) {
    const unsigned char *u = (const unsigned char *)s;
    size_t start = 0, prev = 0, k;
    int parted = 0;
    /* first character */
    k = 1;
    while (k < n && CONT(u[k])) k++;
    Cache *c = &m->part_cache[lbpe_mode];
    while (k < n) {
        size_t next = k + 1;
        while (next < n && CONT(u[next])) next++;
        if (k - prev <= 4 && next - k <= 4 && is_cut(m, u + prev, (int)(k - prev), u + k, (int)(next - k))) {
            parted = 1;
            /* the part [start, k) */
            uint64_t h = fnv(u + start, k - start, FNV_OFFSET);
            const CEntry *e = cache_find(c, h, s + start, k - start);
            if (e) { if (append_ids(out, c->ids + e->ioff, e->icount) < 0) return -1; }
            else {
                size_t from = out->len;
                if (encode_piece(m, s + start, (Py_ssize_t)(k - start), lbpe_mode, 0, out) < 0) return -1;
                if (k - start <= MAX_CACHED_PART) {
                    if ((Py_ssize_t)c->n >= limit) cache_clear(c);
                    if (limit > 0 && cache_add(c, h, s + start, k - start, out->ids + from, out->len - from) < 0) return -1;
                }
            }
            start = k;
        }
        prev = k;
        k = next;
    }
    if (!parted) return 0;
    uint64_t h = fnv(u + start, n - start, FNV_OFFSET);
    const CEntry *e = cache_find(c, h, s + start, n - start);
    if (e) return append_ids(out, c->ids + e->ioff, e->icount) < 0 ? -1 : 1;
    size_t from = out->len;
    if (encode_piece(m, s + start, (Py_ssize_t)(n - start), lbpe_mode, 0, out) < 0) return -1;
    if (n - start <= MAX_CACHED_PART) {
        if ((Py_ssize_t)c->n >= limit) cache_clear(c);
        if (limit > 0 && cache_add(c, h, s + start, n - start, out->ids + from, out->len - from) < 0) return -1;
    }
    return 1;
}

static int is_ascii(const char *s, size_t n) {
    for (size_t k = 0; k < n; k++) if ((unsigned char)s[k] >= 0x80) return 0;
    return 1;
}

/* One piece (UTF-8 s[0:n], `chars` characters) -> its ids appended to out, through the cache. */
static int cached_piece(Model *m, const char *s, size_t n, Py_ssize_t chars, int lbpe_mode, Py_ssize_t limit,
                        Py_ssize_t cached_chars, IdBuf *out) {
    Cache *c = &m->cache[lbpe_mode];
    uint64_t h = fnv((const unsigned char *)s, n, FNV_OFFSET);
    const CEntry *e = cache_find(c, h, s, n);
    if (e) return append_ids(out, c->ids + e->ioff, e->icount);
    if (m->parent) {   /* a worker reads the model's own cache (nobody writes it meanwhile) */
        const Cache *pc = &m->parent->cache[lbpe_mode];
        if ((e = cache_find(pc, h, s, n))) return append_ids(out, pc->ids + e->ioff, e->icount);
    }
    size_t from = out->len;
    int done = 0;
    if (m->cut_memo && chars > 1 && !is_ascii(s, n)) {
        /* the whole-piece shortcut comes first, as in the pure path */
        const Ids *x = (!lbpe_mode && m->whole_piece_first) ? lookup(m, s, n) : NULL;
        if (!(x && x->id >= 0)) {
            done = by_parts(m, s, n, lbpe_mode, limit, out);
            if (done < 0) return -1;
        }
    }
    if (!done && encode_piece(m, s, (Py_ssize_t)n, lbpe_mode, 1, out) < 0) return -1;
    if (chars <= cached_chars) {
        if ((Py_ssize_t)c->n >= limit) cache_clear(c);
        if (limit > 0 && cache_add(c, h, s, n, out->ids + from, out->len - from) < 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ pre-tokenising the presets */

/* Character classes of the presets, per code point, filled by set_classes() from the ranges
 * lbpe/pretokenize/classes.py builds (so both paths see the same Unicode data). */
#define C_L 1    /* \p{L} */
#define C_N 2    /* \p{N} */
#define C_U 4    /* Lu Lt Lm Lo M: o200k's "upper" letters */
#define C_W 8    /* Ll Lm Lo M: o200k's "lower" letters */
#define C_S 16   /* White_Space */

enum { CONTR_NONE, CONTR_CASE, CONTR_ANY_CASE };
typedef struct { int contractions, letters, numbers, other_tail, space; } Preset;
/* letters: 0 " ?L+", 1 "[^\r\n L N]?L+", 2 o200k's two forms; numbers: 0 " ?N+", 1 "N{1,3}", 2 "N";
 * other_tail: 0 none, 1 "[\r\n]*", 2 "[\r\n/]*"; space: see split_space() */
static const Preset PRESETS[] = {
    /* 0 r50k_base (gpt2, p50k_base) */ {CONTR_CASE, 0, 0, 0, 0},
    /* 1 cl100k_base */ {CONTR_ANY_CASE, 1, 1, 1, 1},
    /* 2 o200k_base */ {CONTR_NONE, 2, 1, 2, 2},
    /* 3 llama3 */ {CONTR_ANY_CASE, 1, 1, 1, 2},
    /* 4 qwen2 */ {CONTR_ANY_CASE, 1, 2, 1, 2},
    /* 5 paper */ {CONTR_CASE, 0, 2, 0, 0},
};
#define N_PRESETS 6

#define CP(i) PyUnicode_READ(kind, data, (i))
#define CLS(i) cls[CP(i)]
#define IS(i, f) ((CLS(i) & (f)) != 0)
#define OTHER(i) ((CLS(i) & (C_L | C_N | C_S)) == 0)
#define CRLF(ch) ((ch) == '\r' || (ch) == '\n')

/* Length of the contraction ('s 't 're 've 'm 'll 'd) at p, or 0. */
static Py_ssize_t contraction(int kind, const void *data, Py_ssize_t n, Py_ssize_t p, int any_case) {
    if (p + 1 >= n || CP(p) != '\'') return 0;
    Py_UCS4 a = CP(p + 1), b = p + 2 < n ? CP(p + 2) : 0;
    if (any_case) {
        if (a == 0x17F) a = 's';   /* LATIN SMALL LETTER LONG S folds to s */
        if (a < 128) a |= 0x20;
        if (b < 128 && b) b |= 0x20;
    }
    if (a == 's' || a == 'd' || a == 'm' || a == 't') return 2;
    if ((a == 'l' && b == 'l') || (a == 'v' && b == 'e') || (a == 'r' && b == 'e')) return 3;
    return 0;
}

static inline Py_ssize_t run(const unsigned char *cls, int kind, const void *data, Py_ssize_t n, Py_ssize_t p, unsigned char f) {
    while (p < n && IS(p, f)) p++;
    return p;
}

static inline Py_ssize_t run_other(const unsigned char *cls, int kind, const void *data, Py_ssize_t n, Py_ssize_t p) {
    while (p < n && OTHER(p)) p++;
    return p;
}

/* o200k: "[U]*[W]+" from s (end, or -1) and "[U]+[W]*" from s */
static Py_ssize_t upper_lower(const unsigned char *cls, int kind, const void *data, Py_ssize_t n, Py_ssize_t s) {
    Py_ssize_t u = run(cls, kind, data, n, s, C_U);
    if (u < n && IS(u, C_W)) return run(cls, kind, data, n, u, C_W);
    for (Py_ssize_t k = u - 1; k >= s; k--) if (IS(k, C_W)) return k + 1;
    return -1;
}

static Py_ssize_t upper_then_lower(const unsigned char *cls, int kind, const void *data, Py_ssize_t n, Py_ssize_t s) {
    Py_ssize_t u = run(cls, kind, data, n, s, C_U);
    return u == s ? -1 : run(cls, kind, data, n, u, C_W);
}

/* White space at p (reached only when CP(p) is white space). */
static Py_ssize_t split_space(const unsigned char *cls, int kind, const void *data, Py_ssize_t n, Py_ssize_t p, int style) {
    Py_ssize_t r = run(cls, kind, data, n, p, C_S);
    Py_ssize_t last_newline = -1;
    if (style) for (Py_ssize_t k = r - 1; k >= p; k--) if (CRLF(CP(k))) { last_newline = k; break; }
    if (style == 2 && last_newline >= 0) return last_newline + 1;   /* \s*[\r\n]+ first */
    if (r == n) return n;                                           /* \s+$ (or \s+(?!\S) at the end) */
    if (style == 1 && last_newline >= 0) return last_newline + 1;   /* cl100k: \s*[\r\n] */
    return r - p >= 2 ? r - 1 : p + 1;                              /* \s+(?!\S), then \s */
}

/* The end of the piece that starts at p (p < n). */
static Py_ssize_t next_piece(const Preset *pr, const unsigned char *cls, int kind, const void *data, Py_ssize_t n, Py_ssize_t p) {
    Py_UCS4 c = CP(p);
    unsigned char cc = cls[c];
    Py_ssize_t q;
    if (pr->contractions && (q = contraction(kind, data, n, p, pr->contractions == CONTR_ANY_CASE))) return p + q;
    int lead = !CRLF(c) && !(cc & (C_L | C_N));   /* [^\r\n\p{L}\p{N}] */
    switch (pr->letters) {
    case 0:
        if (c == ' ' && p + 1 < n && IS(p + 1, C_L)) return run(cls, kind, data, n, p + 1, C_L);
        if (cc & C_L) return run(cls, kind, data, n, p, C_L);
        break;
    case 1:
        if (cc & C_L) return run(cls, kind, data, n, p, C_L);
        if (lead && p + 1 < n && IS(p + 1, C_L)) return run(cls, kind, data, n, p + 1, C_L);
        break;
    default:
        for (int form = 0; form < 2; form++) {
            Py_ssize_t e = -1;
            if (lead && p + 1 < n)
                e = form ? upper_then_lower(cls, kind, data, n, p + 1) : upper_lower(cls, kind, data, n, p + 1);
            if (e < 0) e = form ? upper_then_lower(cls, kind, data, n, p) : upper_lower(cls, kind, data, n, p);
            if (e >= 0) return e + contraction(kind, data, n, e, 1);
        }
    }
    switch (pr->numbers) {
    case 0:
        if (c == ' ' && p + 1 < n && IS(p + 1, C_N)) return run(cls, kind, data, n, p + 1, C_N);
        if (cc & C_N) return run(cls, kind, data, n, p, C_N);
        break;
    case 1:
        if (cc & C_N) {
            q = p + 1;
            while (q < n && q < p + 3 && IS(q, C_N)) q++;
            return q;
        }
        break;
    default:
        if (cc & C_N) return p + 1;
    }
    q = -1;
    if (c == ' ' && p + 1 < n && OTHER(p + 1)) q = run_other(cls, kind, data, n, p + 1);
    else if (!(cc & (C_L | C_N | C_S))) q = run_other(cls, kind, data, n, p);
    if (q >= 0) {
        if (pr->other_tail) while (q < n && (CRLF(CP(q)) || (pr->other_tail == 2 && CP(q) == '/'))) q++;
        return q;
    }
    return split_space(cls, kind, data, n, p, pr->space);
}

/* set_classes(letters, numbers, upper, lower, space): inclusive (lo, hi) code point ranges */
static PyObject *set_classes(PyObject *mod, PyObject *args) {
    PyObject *lists[5];
    if (!PyArg_ParseTuple(args, "OOOOO", &lists[0], &lists[1], &lists[2], &lists[3], &lists[4])) return NULL;
    ClassTable *made = PyMem_RawCalloc(1, sizeof(ClassTable));
    if (!made) return PyErr_NoMemory();
    unsigned char *table = made->cls;
    static const unsigned char flags[5] = {C_L, C_N, C_U, C_W, C_S};
    for (int f = 0; f < 5; f++) {
        PyObject *seq = PySequence_Fast(lists[f], "ranges must be a sequence of (lo, hi)");
        if (!seq) { PyMem_RawFree(made); return NULL; }
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq); k++) {
            long lo, hi;
            if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, k), "ll", &lo, &hi)) { Py_DECREF(seq); PyMem_RawFree(made); return NULL; }
            if (lo < 0 || hi >= MAX_CP || lo > hi) {
                Py_DECREF(seq); PyMem_RawFree(made);
                PyErr_Format(PyExc_ValueError, "bad code point range (%ld, %ld)", lo, hi);
                return NULL;
            }
            for (long cp = lo; cp <= hi; cp++) table[cp] |= flags[f];
        }
        Py_DECREF(seq);
    }
    /* the old table is kept: threads of a running encode_batch may be reading it */
    State *st = module_state(mod);
    made->prev = st->classes;
    st->classes = made;
    Py_RETURN_NONE;
}

/* split(text, preset) -> list[str]: the pieces (for tests: must equal the preset's findall) */
static PyObject *split(PyObject *mod, PyObject *args) {
    PyObject *text;
    int preset;
    if (!PyArg_ParseTuple(args, "Ui", &text, &preset)) return NULL;
    const unsigned char *cls = classes_of(module_state(mod));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) { PyErr_SetString(PyExc_ValueError, "unknown preset"); return NULL; }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    for (Py_ssize_t p = 0; p < n;) {
        Py_ssize_t q = next_piece(&PRESETS[preset], cls, kind, data, n, p);
        PyObject *piece = PyUnicode_Substring(text, p, q);
        if (!piece || PyList_Append(out, piece) < 0) { Py_XDECREF(piece); Py_DECREF(out); return NULL; }
        Py_DECREF(piece);
        p = q;
    }
    return out;
}

/* last_starts(text, preset, count) -> (pieces, starts): how many pieces the preset splits text
 * into, and where the last `count` of them start (for Tokenizer.safe_cut, without building
 * every piece) */
static PyObject *last_starts(PyObject *mod, PyObject *args) {
    PyObject *text;
    int preset;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "Uin", &text, &preset, &count)) return NULL;
    const unsigned char *cls = classes_of(module_state(mod));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS || count < 1 || count > 4096) { PyErr_SetString(PyExc_ValueError, "bad preset or count"); return NULL; }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), total = 0;
    Py_ssize_t *ring = PyMem_RawMalloc((size_t)count * sizeof(Py_ssize_t));
    if (!ring) return PyErr_NoMemory();
    for (Py_ssize_t p = 0; p < n; total++) {
        ring[total % count] = p;
        p = next_piece(&PRESETS[preset], cls, kind, data, n, p);
    }
    Py_ssize_t kept = total < count ? total : count;
    PyObject *starts = PyList_New(kept);
    if (!starts) { PyMem_RawFree(ring); return NULL; }
    for (Py_ssize_t k = 0; k < kept; k++) {
        PyObject *v = PyLong_FromSsize_t(ring[(total - kept + k) % count]);
        if (!v) { Py_DECREF(starts); PyMem_RawFree(ring); return NULL; }
        PyList_SET_ITEM(starts, k, v);
    }
    PyMem_RawFree(ring);
    PyObject *r = Py_BuildValue("nN", total, starts);
    return r;
}

/* UTF-8 of text[p:q] into buf; -1 with UnicodeEncodeError (as str.encode gives) at a surrogate */
static Py_ssize_t utf8_of(PyObject *text, int kind, const void *data, Py_ssize_t p, Py_ssize_t q, unsigned char *buf) {
    Py_ssize_t n = 0;
    for (Py_ssize_t i = p; i < q; i++) {
        Py_UCS4 c = CP(i);
        if (c < 0x80) buf[n++] = (unsigned char)c;
        else if (c < 0x800) { buf[n++] = 0xC0 | (c >> 6); buf[n++] = 0x80 | (c & 0x3F); }
        else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) {
                if (in_worker) return -1;
                PyObject *piece = PyUnicode_Substring(text, p, q);
                if (piece) { PyObject *r = PyUnicode_AsUTF8String(piece); Py_XDECREF(r); Py_DECREF(piece); }
                if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "lbpe._native: surrogate not refused");
                return -1;
            }
            buf[n++] = 0xE0 | (c >> 12); buf[n++] = 0x80 | ((c >> 6) & 0x3F); buf[n++] = 0x80 | (c & 0x3F);
        } else {
            buf[n++] = 0xF0 | (c >> 18); buf[n++] = 0x80 | ((c >> 12) & 0x3F);
            buf[n++] = 0x80 | ((c >> 6) & 0x3F); buf[n++] = 0x80 | (c & 0x3F);
        }
    }
    return n;
}

static int ensure_longs(Model *m) {
    if (!m->longs) {
        Py_ssize_t n = 0;
        for (size_t x = 0; x < m->n_entries; x++) if (m->entries[x].v.id >= n) n = m->entries[x].v.id + 1;
        if (m->has_byte_fallback) for (int x = 0; x < 256; x++) if (m->byte_fallback[x] >= n) n = m->byte_fallback[x] + 1;
        if (m->has_unk && m->unk >= n) n = m->unk + 1;
        PyObject **longs = PyMem_RawCalloc((size_t)n + 1, sizeof(PyObject *));
        if (!longs) { PyErr_NoMemory(); return -1; }
        for (Py_ssize_t x = 0; x < n; x++) {
            longs[x] = PyLong_FromSsize_t(x);
            if (!longs[x]) { while (x--) Py_DECREF(longs[x]); PyMem_RawFree(longs); return -1; }
        }
        m->longs = longs; m->n_longs = n;
    }
    return 0;
}

static inline PyObject *id_object(Model *m, int32_t id) {
    if (id >= 0 && id < m->n_longs) { Py_INCREF(m->longs[id]); return m->longs[id]; }
    return PyLong_FromLong(id);
}

static PyObject *id_list(Model *m, const IdBuf *b) {
    if (ensure_longs(m) < 0) return NULL;
    PyObject *list = PyList_New((Py_ssize_t)b->len);
    if (!list) return NULL;
    for (size_t x = 0; x < b->len; x++) {
        int32_t id = b->ids[x];
        PyObject *v;
        if (id >= 0 && id < m->n_longs) { v = m->longs[id]; Py_INCREF(v); }
        else if (!(v = PyLong_FromLong(id))) { Py_DECREF(list); return NULL; }
        PyList_SET_ITEM(list, (Py_ssize_t)x, v);
    }
    return list;
}

/* encode_text(text, preset, lbpe, limit, cached_chars, seconds=0) -> list[int]: pre-tokenise with
 * a preset and encode every piece, in one pass (TimeoutError after `seconds`, see set_deadline). */
/* Pre-tokenise `text` with a preset and append the ids of every piece to b (u8: a buffer for
 * the UTF-8 of non-ASCII pieces, kept across calls). */
static int encode_one_text(Model *m, PyObject *text, const Preset *pr, const unsigned char *cls, int lbpe_mode,
                           Py_ssize_t limit,
                           Py_ssize_t cached_chars, IdBuf *b, unsigned char **u8, size_t *u8cap) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int ascii = PyUnicode_IS_ASCII(text);
    Py_ssize_t count = 0;
    for (Py_ssize_t p = 0; p < n; count++) {
        if ((count & 8191) == 8191 && check_signals() < 0) return -1;
        Py_ssize_t q = next_piece(pr, cls, kind, data, n, p);
        const char *s;
        Py_ssize_t len;
        if (ascii) { s = (const char *)data + p; len = q - p; }
        else {
            /* its own buffer: encode_piece reuses the scratch buffers */
            if (grow((void **)u8, u8cap, (size_t)(q - p) * 4 + 1, 1) < 0) return -1;
            len = utf8_of(text, kind, data, p, q, *u8);
            if (len < 0) return -1;
            s = (const char *)*u8;
        }
        if (cached_piece(m, s, (size_t)len, q - p, lbpe_mode, limit, cached_chars, b) < 0) return -1;
        p = q;
    }
    return 0;
}

static PyObject *Model_encode_text(Model *m, PyObject *args, PyObject *kw) {
    static char *names[] = {"", "", "lbpe", "limit", "cached_chars", "seconds", NULL};
    PyObject *text;
    int preset, lbpe_mode;
    Py_ssize_t limit, cached_chars;
    double seconds;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Ui$pnnd", names, &text, &preset, &lbpe_mode, &limit, &cached_chars,
                                     &seconds))
        return NULL;
    const unsigned char *cls = classes_of(model_state(m));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) { PyErr_SetString(PyExc_ValueError, "unknown preset"); return NULL; }
    if (model_enter(m) < 0) return NULL;
    IdBuf b = {NULL, 0, 0};
    unsigned char *u8 = NULL;
    size_t u8cap = 0;
    PyObject *result = NULL;
    set_deadline(seconds);
    if (encode_one_text(m, text, &PRESETS[preset], cls, lbpe_mode, limit, cached_chars, &b, &u8, &u8cap) == 0)
        result = id_list(m, &b);
    set_deadline(0);
    PyMem_RawFree(b.ids);
    PyMem_RawFree(u8);
    model_exit(m);
    return result;
}

/* ---- encode_batch: texts shared among threads that run without the GIL ---- */

typedef struct {
    Model copy;                  /* the model's tables, with its own scratch, caches and memo */
    PyObject **texts;            /* borrowed: the caller's list holds them */
    Py_ssize_t count;
    const Preset *pr;
    const unsigned char *cls;
    int lbpe_mode;
    Py_ssize_t limit, cached_chars;
    IdBuf ids;
    size_t *ends;                /* ids.len after each text */
    int failed;
} Job;

static void *run_job(void *arg) {
    Job *j = arg;
    unsigned char *u8 = NULL;
    size_t u8cap = 0;
    in_worker = 1;
    for (Py_ssize_t k = 0; k < j->count; k++) {
        if (encode_one_text(&j->copy, j->texts[k], j->pr, j->cls, j->lbpe_mode, j->limit, j->cached_chars, &j->ids, &u8, &u8cap) < 0) {
            j->failed = 1;
            break;
        }
        j->ends[k] = j->ids.len;
    }
    in_worker = 0;
    PyMem_RawFree(u8);
    return NULL;
}

/* A worker's copy shares every table of m (read only) and owns the buffers it writes. */
static int job_setup(Job *j, Model *m) {
    memcpy(&j->copy, m, sizeof(Model));
    for (int k = 0; k < N_SCRATCH; k++) { j->copy.scratch[k] = NULL; j->copy.scratch_cap[k] = 0; }
    memset(j->copy.cache, 0, sizeof(j->copy.cache));
    memset(j->copy.part_cache, 0, sizeof(j->copy.part_cache));
    j->copy.parent = m;
    j->copy.longs = NULL;
    j->copy.owner = 0;
    j->copy.cut_memo = NULL;
    j->copy.cut_val = NULL;
    if (m->cut_memo) {
        j->copy.cut_memo = PyMem_RawMalloc((CUT_MEMO_MASK + 1) * sizeof(uint64_t));
        j->copy.cut_val = PyMem_RawMalloc(CUT_MEMO_MASK + 1);
        if (!j->copy.cut_memo || !j->copy.cut_val) return -1;
        memcpy(j->copy.cut_memo, m->cut_memo, (CUT_MEMO_MASK + 1) * sizeof(uint64_t));
        memcpy(j->copy.cut_val, m->cut_val, CUT_MEMO_MASK + 1);
    }
    return 0;
}

static void job_free(Job *j) {
    for (int k = 0; k < N_SCRATCH; k++) PyMem_RawFree(j->copy.scratch[k]);
    cache_free(&j->copy.cache[0]); cache_free(&j->copy.cache[1]);
    cache_free(&j->copy.part_cache[0]); cache_free(&j->copy.part_cache[1]);
    PyMem_RawFree(j->copy.cut_memo);
    PyMem_RawFree(j->copy.cut_val);
    PyMem_RawFree(j->ids.ids);
    PyMem_RawFree(j->ends);
}


/* Copy what a worker cached into the model's own caches (as room allows). */
static int merge_cache(Cache *into, const Cache *from, Py_ssize_t limit) {
    for (size_t x = 0; x < from->n && (Py_ssize_t)into->n < limit; x++) {
        const CEntry *e = &from->entries[x];
        const char *key = from->keys + e->koff;
        uint64_t h = fnv((const unsigned char *)key, e->klen, FNV_OFFSET);
        if (cache_find(into, h, key, e->klen)) continue;
        if (cache_add(into, h, key, e->klen, from->ids + e->ioff, e->icount) < 0) return -1;
    }
    return 0;
}

/* encode_batch(texts, preset, lbpe, limit, cached_chars, threads) -> list[list[int]]
 * Each text pre-tokenised with a preset and encoded, as encode_text would; `threads` threads
 * share the texts (consecutive runs of about equal size) and run without the GIL. A share that
 * fails there (a character the vocabulary cannot encode, a lone surrogate, no memory) is encoded
 * again here, the ordinary way, which raises the real error. */
static PyObject *Model_encode_batch(Model *m, PyObject *args, PyObject *kw) {
    static char *names[] = {"", "", "lbpe", "limit", "cached_chars", "threads", NULL};
    PyObject *texts;
    int preset, lbpe_mode, threads;
    Py_ssize_t limit, cached_chars;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!i$pnni", names, &PyList_Type, &texts, &preset, &lbpe_mode, &limit,
                                     &cached_chars, &threads))
        return NULL;
    const unsigned char *cls = classes_of(model_state(m));
    if (!cls) return NULL;
    if (preset < 0 || preset >= N_PRESETS) { PyErr_SetString(PyExc_ValueError, "unknown preset"); return NULL; }
    Py_ssize_t n = PyList_GET_SIZE(texts);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = PyList_GET_ITEM(texts, k);
        if (!PyUnicode_Check(t)) { PyErr_SetString(PyExc_TypeError, "texts must be str"); return NULL; }
        if (PyUnicode_READY(t) < 0) return NULL;
    }
    if (model_enter(m) < 0) return NULL;
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    if (threads > n) threads = (int)(n ? n : 1);
    if (ensure_longs(m) < 0) { model_exit(m); return NULL; }
    /* consecutive shares of about equal length */
    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0; k < n; k++) total += PyUnicode_GET_LENGTH(PyList_GET_ITEM(texts, k));
    Job *jobs = PyMem_RawCalloc((size_t)threads, sizeof(Job));
    /* our own references: the list may change while the threads read the texts */
    PyObject **items = PyMem_RawMalloc(((size_t)n + 1) * sizeof(PyObject *));
    if (!jobs || !items) { PyMem_RawFree(jobs); PyMem_RawFree(items); model_exit(m); return PyErr_NoMemory(); }
    for (Py_ssize_t k = 0; k < n; k++) { items[k] = PyList_GET_ITEM(texts, k); Py_INCREF(items[k]); }
    Py_ssize_t start = 0, next = 0, done = 0;
    int made = 0;
    PyObject *result = NULL;
    for (int t = 0; t < threads; t++) {
        Job *j = &jobs[t];
        if (t == threads - 1) next = n;
        while (next < n) {
            done += PyUnicode_GET_LENGTH(items[next++]);
            if (done * threads >= total * (t + 1)) break;
        }
        Py_ssize_t end = next;
        j->texts = items + start; j->count = end - start; j->pr = &PRESETS[preset]; j->cls = cls;
        j->lbpe_mode = lbpe_mode; j->limit = limit; j->cached_chars = cached_chars;
        j->ends = PyMem_RawCalloc((size_t)j->count + 1, sizeof(size_t));
        made++;
        if (!j->ends || job_setup(j, m) < 0) { PyErr_NoMemory(); goto cleanup; }
        start = end;
    }
    pthread_t tids[64];
    int started[64] = {0};
    Py_BEGIN_ALLOW_THREADS
    for (int t = 1; t < threads; t++) started[t] = pthread_create(&tids[t], NULL, run_job, &jobs[t]) == 0;
    run_job(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) pthread_join(tids[t], NULL);
        else run_job(&jobs[t]);   /* no thread could be started: do its share here */
    }
    Py_END_ALLOW_THREADS
    /* shares that failed in a thread: again here, with the GIL, so the real error is raised */
    for (int t = 0; t < threads; t++) {
        Job *j = &jobs[t];
        if (!j->failed) continue;
        j->ids.len = 0;
        unsigned char *u8 = NULL;
        size_t u8cap = 0;
        int bad = 0;
        for (Py_ssize_t k = 0; k < j->count && !bad; k++) {
            bad = encode_one_text(m, j->texts[k], j->pr, cls, lbpe_mode, limit, cached_chars, &j->ids, &u8, &u8cap) < 0;
            j->ends[k] = j->ids.len;
        }
        PyMem_RawFree(u8);
        if (bad) goto cleanup;
        j->failed = 0;
    }
    for (int t = 0; t < threads; t++)
        for (int c = 0; c < 2; c++)
            if (merge_cache(&m->cache[c], &jobs[t].copy.cache[c], limit) < 0 ||
                merge_cache(&m->part_cache[c], &jobs[t].copy.part_cache[c], limit) < 0)
                goto cleanup;
    result = PyList_New(n);
    if (!result) goto cleanup;
    Py_ssize_t at = 0;
    for (int t = 0; t < threads; t++) {
        Job *j = &jobs[t];
        size_t from = 0;
        for (Py_ssize_t k = 0; k < j->count; k++, at++) {
            size_t to = j->ends[k];
            PyObject *list = PyList_New((Py_ssize_t)(to - from));
            if (!list) { Py_CLEAR(result); goto cleanup; }
            for (size_t x = from; x < to; x++) {
                PyObject *v = id_object(m, j->ids.ids[x]);
                if (!v) { Py_DECREF(list); Py_CLEAR(result); goto cleanup; }
                PyList_SET_ITEM(list, (Py_ssize_t)(x - from), v);
            }
            PyList_SET_ITEM(result, at, list);
            from = to;
        }
    }
cleanup:
    for (int t = 0; t < made; t++) job_free(&jobs[t]);
    PyMem_RawFree(jobs);
    for (Py_ssize_t k = 0; k < n; k++) Py_DECREF(items[k]);
    PyMem_RawFree(items);
    model_exit(m);
    return result;
}

/* encode_pieces(pieces, lbpe, limit, cached_chars, seconds=0) -> list[int]: pieces from any
 * pre-tokeniser */
static PyObject *Model_encode_pieces(Model *m, PyObject *args, PyObject *kw) {
    static char *names[] = {"", "lbpe", "limit", "cached_chars", "seconds", NULL};
    PyObject *pieces;
    int lbpe_mode;
    Py_ssize_t limit, cached_chars;
    double seconds;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!$pnnd", names, &PyList_Type, &pieces, &lbpe_mode, &limit,
                                     &cached_chars, &seconds))
        return NULL;
    if (model_enter(m) < 0) return NULL;
    IdBuf b = {NULL, 0, 0};
    PyObject *result = NULL;
    set_deadline(seconds);
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(pieces); k++) {
        if ((k & 8191) == 8191 && check_signals() < 0) goto done;
        PyObject *piece = PyList_GET_ITEM(pieces, k);
        if (!PyUnicode_Check(piece)) { PyErr_SetString(PyExc_TypeError, "pieces must be str"); goto done; }
        Py_INCREF(piece);   /* a signal handler could take it out of the list meanwhile */
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(piece, &n);   /* a lone surrogate: UnicodeEncodeError */
        int bad = !s || cached_piece(m, s, (size_t)n, PyUnicode_GET_LENGTH(piece), lbpe_mode, limit, cached_chars, &b) < 0;
        Py_DECREF(piece);
        if (bad) goto done;
    }
    result = id_list(m, &b);
done:
    set_deadline(0);
    PyMem_RawFree(b.ids);
    model_exit(m);
    return result;
}

/* pack(lists) -> bytes: lists of ids as b"I" + count (int64) + lengths (int64 each) + ids (int32
 * each), little-endian; what a worker of encode_batch sends back through its pipe. */
static PyObject *pack(PyObject *Py_UNUSED(mod), PyObject *lists) {
    if (!PyList_Check(lists)) { PyErr_SetString(PyExc_TypeError, "pack() takes a list of lists of ids"); return NULL; }
    Py_ssize_t count = PyList_GET_SIZE(lists), total = 0;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *ids = PyList_GET_ITEM(lists, k);
        if (!PyList_Check(ids)) { PyErr_SetString(PyExc_TypeError, "pack() takes a list of lists of ids"); return NULL; }
        total += PyList_GET_SIZE(ids);
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, 1 + 8 + 8 * count + 4 * total);
    if (!out) return NULL;
    char *p = PyBytes_AS_STRING(out);
    *p++ = 'I';
    int64_t c64 = count;
    memcpy(p, &c64, 8); p += 8;
    for (Py_ssize_t k = 0; k < count; k++) {
        int64_t n = PyList_GET_SIZE(PyList_GET_ITEM(lists, k));
        memcpy(p, &n, 8); p += 8;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *ids = PyList_GET_ITEM(lists, k);
        for (Py_ssize_t x = 0; x < PyList_GET_SIZE(ids); x++) {
            PyObject *item = PyList_GET_ITEM(ids, x);
            /* exact ints only: nothing can run Python code (and change the lists) meanwhile */
            if (!PyLong_CheckExact(item)) { Py_DECREF(out); PyErr_SetString(PyExc_TypeError, "pack() takes lists of int ids"); return NULL; }
            long v = PyLong_AsLong(item);
            if (v == -1 && PyErr_Occurred()) { Py_DECREF(out); return NULL; }
            if (v < 0 || v > INT32_MAX) { Py_DECREF(out); PyErr_SetString(PyExc_OverflowError, "id out of range"); return NULL; }
            int32_t v32 = (int32_t)v;
            memcpy(p, &v32, 4); p += 4;
        }
    }
    return out;
}

/* unpack(data) -> list[list[int]]: the inverse of pack(), ids as the model's shared ints */
static PyObject *Model_unpack(Model *m, PyObject *arg) {
    Py_buffer view;
    if (!m->slots) { PyErr_SetString(PyExc_RuntimeError, "lbpe._native.Model was not initialised"); return NULL; }
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *p = view.buf, *end = p + view.len;
    PyObject *out = NULL;
    int64_t count;
    if (view.len < 9 || *p != 'I') goto bad;
    p++;
    memcpy(&count, p, 8); p += 8;
    if (count < 0 || count > (end - p) / 8) goto bad;
    const char *lengths = p, *ids = p + 8 * count;
    int64_t total = 0;
    for (int64_t k = 0; k < count; k++) {
        int64_t n;
        memcpy(&n, lengths + 8 * k, 8);
        if (n < 0 || n > (end - ids) / 4 - total) goto bad;
        total += n;
    }
    if (ids + 4 * total != end) goto bad;
    if (ensure_longs(m) < 0) goto done;
    out = PyList_New((Py_ssize_t)count);
    if (!out) goto done;
    for (int64_t k = 0; k < count; k++) {
        int64_t n;
        memcpy(&n, lengths + 8 * k, 8);
        PyObject *list = PyList_New((Py_ssize_t)n);
        if (!list) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, (Py_ssize_t)k, list);
        for (int64_t x = 0; x < n; x++) {
            int32_t id;
            memcpy(&id, ids, 4); ids += 4;
            PyObject *v = id_object(m, id);
            if (!v) { Py_CLEAR(out); goto done; }
            PyList_SET_ITEM(list, (Py_ssize_t)x, v);
        }
    }
    goto done;
bad:
    PyErr_SetString(PyExc_ValueError, "unpack(): not data written by pack()");
done:
    PyBuffer_Release(&view);
    return out;
}

static PyObject *Model_clear_cache(Model *m, PyObject *Py_UNUSED(ignored)) {
    if (model_enter(m) < 0) return NULL;   /* waits for an encode_batch whose threads read the caches */
    cache_clear(&m->cache[0]);
    cache_clear(&m->cache[1]);
    cache_clear(&m->part_cache[0]);
    cache_clear(&m->part_cache[1]);
    if (m->cut_val) memset(m->cut_val, 0, CUT_MEMO_MASK + 1);
    model_exit(m);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the Model type */

static void Model_dealloc(Model *m) {
    PyMem_RawFree(m->arena); PyMem_RawFree(m->entries); PyMem_RawFree(m->slots); PyMem_RawFree(m->pairs);
    PyMem_RawFree(m->sc_left); PyMem_RawFree(m->sc_right);
    for (int k = 0; k < N_SCRATCH; k++) PyMem_RawFree(m->scratch[k]);
    Py_XDECREF(m->fallback);
    if (m->lock) PyThread_free_lock(m->lock);
    cache_free(&m->cache[0]);
    cache_free(&m->cache[1]);
    cache_free(&m->part_cache[0]);
    cache_free(&m->part_cache[1]);
    PyMem_RawFree(m->witness);
    PyMem_RawFree(m->cut_memo);
    PyMem_RawFree(m->cut_val);
    PyMem_RawFree(m->long_slots); PyMem_RawFree(m->long_hash); PyMem_RawFree(m->long_lengths); PyMem_RawFree(m->poly_pow);
    if (m->longs) { for (Py_ssize_t x = 0; x < m->n_longs; x++) Py_DECREF(m->longs[x]); PyMem_RawFree(m->longs); }
    PyTypeObject *type = Py_TYPE(m);
    type->tp_free((PyObject *)m);
    Py_DECREF(type);   /* an instance of a heap type holds a reference to it */
}

static int as_id(PyObject *v, int32_t *out, const char *what) {
    if (!PyLong_Check(v)) { PyErr_Format(PyExc_TypeError, "%s must be an int", what); return -1; }
    long x = PyLong_AsLong(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (x < 0 || x > INT32_MAX) { PyErr_Format(PyExc_ValueError, "%s %ld is outside 0..2**31-1", what, x); return -1; }
    *out = (int32_t)x;
    return 0;
}

static Entry *lookup_bytes(Model *m, PyObject *key) {
    char *s; Py_ssize_t n;
    if (PyBytes_AsStringAndSize(key, &s, &n) < 0) return NULL;
    Entry *e = table_find(m, fnv((const unsigned char *)s, (size_t)n, FNV_OFFSET), s, (size_t)n);
    if (!e || e->v.id < 0) PyErr_Format(PyExc_ValueError, "merge part %R is not a token", key);
    return (e && e->v.id >= 0) ? e : NULL;
}

static int pair_put(Model *m, int32_t a, int32_t b, int32_t prio, int32_t merged) {
    uint64_t key = pair_key(a, b);
    size_t slot = pair_hash(key) & m->pair_mask;
    while (m->pairs[slot].key != UINT64_MAX && m->pairs[slot].key != key) slot = (slot + 1) & m->pair_mask;
    if (m->pairs[slot].key == key && m->pairs[slot].prio <= prio) return 0;  /* keep the best */
    m->pairs[slot].key = key; m->pairs[slot].prio = prio; m->pairs[slot].merged = merged;
    return 0;
}

/* The table of the LBPE tokens longer than WALKED units (see place_long). */
static int build_long_tokens(Model *m) {
    size_t count = 0;
    uint32_t max_bytes = 0;
    int32_t max_units = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t x = 0; x < m->n_entries; x++) {
            const Entry *e = &m->entries[x];
            if (e->v.lid < 0) continue;
            const unsigned char *t = (const unsigned char *)m->arena + e->off;
            int32_t units = (int32_t)e->len;
            if (m->char_units) {
                units = 0;
                for (uint32_t k = 0; k < e->len; k++) units += !CONT(t[k]);
            }
            if (units <= WALKED) continue;
            if (pass == 0) {
                count++;
                if (e->len > max_bytes) max_bytes = e->len;
                if (units > max_units) max_units = units;
                if (units > m->reach[t[0]]) m->reach[t[0]] = units;
                continue;
            }
            uint64_t h = 0;
            for (uint32_t k = 0; k < e->len; k++) h = h * POLY + t[k] + 1;
            size_t k = mix64(h) & m->long_mask;
            while (m->long_slots[k]) k = (k + 1) & m->long_mask;
            m->long_slots[k] = (uint32_t)(x + 1);
            m->long_hash[k] = h;
            m->long_lengths[units] = 1;   /* marks the lengths; made a list below */
        }
        if (pass == 0) {
            if (!count) return 0;
            size_t size = 16;
            while (size < count * 2) size *= 2;
            m->long_slots = PyMem_RawCalloc(size, sizeof(uint32_t));
            m->long_hash = PyMem_RawCalloc(size, sizeof(uint64_t));
            m->long_lengths = PyMem_RawCalloc((size_t)max_units + 1, sizeof(int32_t));
            m->poly_pow = PyMem_RawMalloc(((size_t)max_bytes + 1) * sizeof(uint64_t));
            if (!m->long_slots || !m->long_hash || !m->long_lengths || !m->poly_pow) { PyErr_NoMemory(); return -1; }
            m->long_mask = size - 1;
            m->poly_max = max_bytes;
            m->poly_pow[0] = 1;
            for (uint32_t k = 1; k <= max_bytes; k++) m->poly_pow[k] = m->poly_pow[k - 1] * POLY;
        }
    }
    int32_t nl = 0;
    for (int32_t len = max_units; len > WALKED; len--) if (m->long_lengths[len]) m->long_lengths[nl++] = len;
    m->n_long_lengths = nl;
    return 0;
}

/* Model(tokens, *, char_units, whole_piece_first, merges, scaffold, byte_fallback, unk,
 *       fuse_unk, fallback)
 *   tokens: dict bytes -> id;  merges: dict (bytes, bytes) -> priority, or None;
 *   scaffold: dict id -> (id, id);  byte_fallback: dict byte -> id, or None;  unk: int or None */
static int Model_init(Model *m, PyObject *args, PyObject *kw) {
    static char *names[] = {"tokens", "char_units", "whole_piece_first", "merges", "scaffold",
                            "byte_fallback", "unk", "fuse_unk", "fallback", NULL};
    PyObject *tokens, *merges, *scaffold, *bf, *unk, *fallback;
    int char_units, wpf, fuse;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!$ppOOOOpO", names, &PyDict_Type, &tokens, &char_units, &wpf,
                                     &merges, &scaffold, &bf, &unk, &fuse, &fallback))
        return -1;
    if (m->slots) { PyErr_SetString(PyExc_RuntimeError, "Model is already initialised"); return -1; }
    m->thresholds = &model_state(m)->thresholds;
    m->lock = PyThread_allocate_lock();
    if (!m->lock) { PyErr_NoMemory(); return -1; }
    m->char_units = char_units; m->whole_piece_first = wpf; m->fuse_unk = fuse;
    Py_INCREF(fallback); m->fallback = fallback;
    size_t size = 1024;
    while (size < (size_t)PyDict_GET_SIZE(tokens) * 4) size *= 2;
    m->slots = PyMem_RawCalloc(size, sizeof(uint64_t));
    if (!m->slots) { PyErr_NoMemory(); return -1; }
    m->mask = size - 1;
    /* scaffold ids: excluded from LBPE, split after BPE */
    PyObject *k, *v; Py_ssize_t pos = 0;
    int32_t max_id = 0;
    while (PyDict_Next(tokens, &pos, &k, &v)) {
        int32_t id;
        if (as_id(v, &id, "token id") < 0) return -1;
        if (id > max_id) max_id = id;
    }
    if (scaffold != Py_None && PyDict_GET_SIZE(scaffold)) {
        m->sc_size = (Py_ssize_t)max_id + 1;
        m->sc_left = PyMem_RawMalloc((size_t)m->sc_size * sizeof(int32_t));
        m->sc_right = PyMem_RawMalloc((size_t)m->sc_size * sizeof(int32_t));
        if (!m->sc_left || !m->sc_right) { PyErr_NoMemory(); return -1; }
        for (Py_ssize_t x = 0; x < m->sc_size; x++) m->sc_left[x] = m->sc_right[x] = -1;
        pos = 0;
        while (PyDict_Next(scaffold, &pos, &k, &v)) {
            int32_t id, a, b;
            if (as_id(k, &id, "scaffold id") < 0) return -1;
            if (!PyTuple_Check(v) || PyTuple_GET_SIZE(v) != 2) { PyErr_SetString(PyExc_TypeError, "scaffold parts must be (id, id)"); return -1; }
            if (as_id(PyTuple_GET_ITEM(v, 0), &a, "scaffold part") < 0 || as_id(PyTuple_GET_ITEM(v, 1), &b, "scaffold part") < 0) return -1;
            if (id >= m->sc_size) { PyErr_SetString(PyExc_ValueError, "scaffold id is not a token"); return -1; }
            m->sc_left[id] = a; m->sc_right[id] = b;
        }
    }
    pos = 0;
    m->max_prio = max_id;   /* rank vocabularies: the priority is the merged token's id */
    while (PyDict_Next(tokens, &pos, &k, &v)) {
        char *s; Py_ssize_t n;
        if (PyBytes_AsStringAndSize(k, &s, &n) < 0) return -1;
        if (n == 0) { PyErr_SetString(PyExc_ValueError, "empty token"); return -1; }
        int32_t id;
        if (as_id(v, &id, "token id") < 0) return -1;
        /* every proper prefix, then the token (prefix entries keep id -1 unless a token) */
        uint64_t h = FNV_OFFSET;
        for (Py_ssize_t c = 1; c < n; c++) {
            h = fnv((const unsigned char *)s + c - 1, 1, h);
            if (!table_add(m, h, s, (size_t)c)) return -1;
        }
        h = fnv((const unsigned char *)s + n - 1, 1, h);
        Entry *e = table_add(m, h, s, (size_t)n);
        if (!e) return -1;
        e->v.id = id;
        int scaffold_id = m->sc_left && id < m->sc_size && m->sc_left[id] >= 0;
        e->v.lid = scaffold_id ? -1 : id;
    }
    if (build_long_tokens(m) < 0) return -1;
    if (merges != Py_None) {
        m->max_prio = 0;
        Py_ssize_t count = PyDict_GET_SIZE(merges);
        size_t psize = 1024;
        while (psize < (size_t)count * 2 + 2) psize *= 2;
        m->pairs = PyMem_RawMalloc(psize * sizeof(PairSlot));
        if (!m->pairs) { PyErr_NoMemory(); return -1; }
        for (size_t x = 0; x < psize; x++) m->pairs[x].key = UINT64_MAX;
        m->pair_mask = psize - 1;
        pos = 0;
        while (PyDict_Next(merges, &pos, &k, &v)) {
            if (!PyTuple_Check(k) || PyTuple_GET_SIZE(k) != 2) { PyErr_SetString(PyExc_TypeError, "merge keys must be (bytes, bytes)"); return -1; }
            Entry *a = lookup_bytes(m, PyTuple_GET_ITEM(k, 0));
            if (!a) return -1;
            Entry *b = lookup_bytes(m, PyTuple_GET_ITEM(k, 1));
            if (!b) return -1;
            /* the merged token: look the concatenation up */
            size_t la = a->len, lb = b->len;
            char *joined = PyMem_RawMalloc(la + lb);
            if (!joined) { PyErr_NoMemory(); return -1; }
            memcpy(joined, m->arena + a->off, la);
            memcpy(joined + la, m->arena + b->off, lb);
            Entry *c = table_find(m, fnv((const unsigned char *)joined, la + lb, FNV_OFFSET), joined, la + lb);
            PyMem_RawFree(joined);
            if (!c || c->v.id < 0) { PyErr_Format(PyExc_ValueError, "merge %R does not make a token", k); return -1; }
            long prio = PyLong_AsLong(v);
            if (prio == -1 && PyErr_Occurred()) return -1;
            if (prio < INT32_MIN || prio > INT32_MAX) { PyErr_SetString(PyExc_ValueError, "merge priority out of range"); return -1; }
            pair_put(m, a->v.id, b->v.id, (int32_t)prio, c->v.id);
            /* a negative priority has no bucket: such lists keep the heap */
            if (prio < 0) m->max_prio = INT32_MAX;
            else if (prio > m->max_prio && m->max_prio != INT32_MAX) m->max_prio = (int32_t)prio;
        }
    }
    if (bf != Py_None) {
        if (PyDict_GET_SIZE(bf) != 256) { PyErr_SetString(PyExc_ValueError, "byte fallback needs 256 ids"); return -1; }
        for (int x = 0; x < 256; x++) {
            PyObject *key = PyLong_FromLong(x);
            if (!key) return -1;
            PyObject *id = PyDict_GetItemWithError(bf, key);
            Py_DECREF(key);
            if (!id) { if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "byte fallback lacks byte %d", x); return -1; }
            if (as_id(id, &m->byte_fallback[x], "byte fallback id") < 0) return -1;
        }
        m->has_byte_fallback = 1;
    }
    if (unk != Py_None) {
        if (as_id(unk, &m->unk, "unknown-token id") < 0) return -1;
        m->has_unk = 1;
    }
    /* cuts, except where runs of unknown characters fuse into one token across them */
    if (!(m->fuse_unk && m->has_unk && !m->has_byte_fallback)) {
        if (build_witnesses(m) < 0) return -1;
        m->cut_memo = PyMem_RawCalloc(CUT_MEMO_MASK + 1, sizeof(uint64_t));
        m->cut_val = PyMem_RawCalloc(CUT_MEMO_MASK + 1, 1);
        if (!m->cut_memo || !m->cut_val) { PyErr_NoMemory(); return -1; }
    }
    return 0;
}

/* encode_piece(piece, lbpe) -> tuple[int, ...]: one piece, no cache (for tests and display) */
static PyObject *Model_encode_piece(Model *m, PyObject *args) {
    PyObject *piece;
    int lbpe_mode;
    if (!PyArg_ParseTuple(args, "Up", &piece, &lbpe_mode)) return NULL;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(piece, &n);
    if (!s) return NULL;
    if (model_enter(m) < 0) return NULL;
    IdBuf b = {NULL, 0, 0};
    PyObject *r = encode_piece(m, s, n, lbpe_mode, 1, &b) < 0 ? NULL : ids_tuple(&b, 0);
    model_exit(m);
    PyMem_RawFree(b.ids);
    return r;
}

static PyObject *Model_cached(Model *m, PyObject *Py_UNUSED(ignored)) {
    return Py_BuildValue("nn", (Py_ssize_t)m->cache[0].n, (Py_ssize_t)m->cache[1].n);
}

static PyObject *Model_sizeof(Model *m, PyObject *Py_UNUSED(ignored)) {
    size_t total = sizeof(Model) + m->arena_cap + m->cap_entries * sizeof(Entry) + (m->mask + 1) * sizeof(uint64_t);
    if (m->pairs) total += (m->pair_mask + 1) * sizeof(PairSlot);
    total += (size_t)m->sc_size * 2 * sizeof(int32_t);
    if (m->long_slots)
        total += (m->long_mask + 1) * (sizeof(uint32_t) + sizeof(uint64_t)) + ((size_t)m->poly_max + 1) * sizeof(uint64_t) +
                 (size_t)m->n_long_lengths * sizeof(int32_t);
    for (int k = 0; k < N_SCRATCH; k++) total += m->scratch_cap[k];
    for (int k = 0; k < 2; k++)
        total += (m->cache[k].slots ? (m->cache[k].mask + 1) * sizeof(uint64_t) : 0) + m->cache[k].cap * sizeof(CEntry) +
                 m->cache[k].kcap + m->cache[k].icap * sizeof(int32_t);
    return PyLong_FromSize_t(total);
}

static PyMethodDef Model_methods[] = {
    {"encode_pieces", (PyCFunction)(void (*)(void))Model_encode_pieces, METH_VARARGS | METH_KEYWORDS,
     "encode_pieces(pieces, /, *, lbpe, limit, cached_chars, seconds) -> list[int]: encode pre-tokenised pieces"},
    {"encode_piece", (PyCFunction)Model_encode_piece, METH_VARARGS, "encode_piece(piece, lbpe) -> tuple[int, ...]"},
    {"encode_batch", (PyCFunction)(void (*)(void))Model_encode_batch, METH_VARARGS | METH_KEYWORDS,
     "encode_batch(texts, preset, /, *, lbpe, limit, cached_chars, threads) -> list[list[int]]: "
     "encode_text of each, on threads"},
    {"encode_text", (PyCFunction)(void (*)(void))Model_encode_text, METH_VARARGS | METH_KEYWORDS,
     "encode_text(text, preset, /, *, lbpe, limit, cached_chars, seconds) -> list[int]: "
     "pre-tokenise with a preset and encode"},
    {"clear_cache", (PyCFunction)Model_clear_cache, METH_NOARGS, "empty the piece caches of both modes"},
    {"unpack", (PyCFunction)Model_unpack, METH_O, "unpack(data) -> list[list[int]]: what pack() wrote"},
    {"cached", (PyCFunction)Model_cached, METH_NOARGS, "cached() -> (pieces cached for BPE, for LBPE)"},
    {"__sizeof__", (PyCFunction)Model_sizeof, METH_NOARGS, "memory held by the tables, in bytes"},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot model_slots[] = {
    {Py_tp_dealloc, Model_dealloc},
    {Py_tp_doc, "A vocabulary's tables for compiled BPE and LBPE (see lbpe/native.py)."},
    {Py_tp_methods, Model_methods},
    {Py_tp_init, Model_init},
    {Py_tp_new, PyType_GenericNew},
    {0, NULL},
};

static PyType_Spec model_spec = {
    .name = "lbpe._native.Model",
    .basicsize = sizeof(Model),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = model_slots,
};

static PyObject *set_bpe_thresholds(PyObject *mod, PyObject *args) {
    int a, b;
    if (!PyArg_ParseTuple(args, "ii", &a, &b)) return NULL;
    if (a < 1 || a > SHORT_BPE || b < 1) { PyErr_Format(PyExc_ValueError, "need 1 <= short <= %d and long >= 1", SHORT_BPE); return NULL; }
    Thresholds *t = &module_state(mod)->thresholds;
    PyObject *old = Py_BuildValue("ii", t->short_bpe, t->long_bpe);
    t->short_bpe = a; t->long_bpe = b;
    return old;
}

static PyMethodDef module_methods[] = {
    {"set_classes", set_classes, METH_VARARGS, "set_classes(letters, numbers, upper, lower, space): the presets' classes"},
    {"split", split, METH_VARARGS, "split(text, preset) -> list[str]: a preset's pieces"},
    {"_set_bpe_thresholds", set_bpe_thresholds, METH_VARARGS,
     "_set_bpe_thresholds(short, long) -> old: pieces up to short units take the array scan, up to long the heap (tests)"},
    {"last_starts", last_starts, METH_VARARGS, "last_starts(text, preset, count) -> (pieces, starts of the last count)"},
    {"pack", pack, METH_O, "pack(lists of ids) -> bytes (see Model.unpack)"},
    {NULL, NULL, 0, NULL},
};

static int module_exec(PyObject *mod) {
    State *st = module_state(mod);
    st->thresholds.short_bpe = SHORT_BPE;
    st->thresholds.long_bpe = LONG_BPE;
    st->model_type = (PyTypeObject *)PyType_FromModuleAndSpec(mod, &model_spec, NULL);
    if (!st->model_type) return -1;
    return PyModule_AddType(mod, st->model_type);
}

static int module_traverse(PyObject *mod, visitproc visit, void *arg) {
    State *st = module_state(mod);
    Py_VISIT(st->model_type);
    return 0;
}

static int module_clear(PyObject *mod) {
    State *st = module_state(mod);
    Py_CLEAR(st->model_type);
    return 0;
}

/* Runs after the last model is gone: each holds its type, which holds the module. */
static void module_free(void *mod) {
    State *st = module_state((PyObject *)mod);
    if (!st) return;
    module_clear((PyObject *)mod);
    while (st->classes) {
        ClassTable *prev = st->classes->prev;
        PyMem_RawFree(st->classes);
        st->classes = prev;
    }
}

/* Py_mod_gil: the GIL stays on for this module under free-threaded builds. encode_batch runs its
 * threads without the GIL, but over their own copies of what they write; what stays shared
 * needs the GIL: pack(), encode_pieces() and encode_batch() read caller's lists through borrowed
 * references, unpack() fills a model's table of shared ints outside the model's lock, and
 * set_classes() and _set_bpe_thresholds() replace state that running calls read without a lock. */
static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#if PY_VERSION_HEX >= 0x030C0000
    /* nothing is shared between interpreters: every Python object belongs to one module state */
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#if PY_VERSION_HEX >= 0x030D0000
    {Py_mod_gil, Py_MOD_GIL_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "lbpe._native",
    .m_doc = "The compiled fast path of lbpe's model stage and preset pre-tokenisers.",
    .m_size = sizeof(State),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModuleDef_Init(&moduledef); }

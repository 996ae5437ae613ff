/* Bounded caches of pieces -> ids (see core.h). */
#include "core.h"

static size_t slots_bytes(const Cache *c) { return c->slots ? (c->mask + 1) * sizeof(CSlot) : 0; }

LBPE_FN void cache_free(Cache *c) {
    lbpe_free_table(c->slots, slots_bytes(c));
    lbpe_free(c->entries);
    lbpe_free(c->keys);
    lbpe_free(c->ids);
    memset(c, 0, sizeof(Cache));
}

LBPE_FN void cache_clear(Cache *c) {
    if (c->mask + 1 > 4096) {
        cache_free(c);
        return;
    } /* give the memory back */
    if (c->slots) memset(c->slots, 0, (c->mask + 1) * sizeof(CSlot));
    c->n = c->n_entries = c->klen = c->ilen = 0;
}

LBPE_FN int grow(void **p, size_t *cap, size_t need, size_t item) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = lbpe_realloc(*p, c * item);
    if (!q) {
        lbpe_no_memory();
        return -1;
    }
    *p = q;
    *cap = c;
    return 0;
}

/* Copy slot x, whose key hashes to h, into the first free one of `slots` (mask + 1 of them) from
 * h on. */
static LBPE_ALWAYS_INLINE void place(CSlot *slots, size_t mask, uint64_t h, const CSlot *x) {
    size_t k = (size_t)h & mask;
    while (slots[k].len) k = (k + 1) & mask;
    slots[k] = *x;
}

/* The hash of the key of slot x of c: a short key's from the words in the slot. */
static uint64_t slot_hash(const Cache *c, const CSlot *x) {
    if (x->len > 16) return c->entries[x->entry].hash;
    uint64_t h = key_head_hash(x->word[0], x->word[1], x->len);
    return h ^ (h >> 32);
}

/* c's slots made `size` (a power of two) and every piece put in its slot again. */
static int resize(Cache *c, size_t size) {
    CSlot *slots = lbpe_calloc_table(size * sizeof(CSlot));
    if (!slots) {
        lbpe_no_memory();
        return -1;
    }
    for (size_t at = 0; c->slots && at <= c->mask; at++) {
        const CSlot *x = &c->slots[at];
        if (x->len) place(slots, size - 1, slot_hash(c, x), x);
    }
    lbpe_free_table(c->slots, slots_bytes(c));
    c->slots = slots;
    c->mask = size - 1;
    return 0;
}

/* Room made ahead in an empty cache for about `pieces` pieces (slots at most half full). */
LBPE_FN int cache_reserve(Cache *c, size_t pieces) {
    if (c->n) return 0;
    size_t size = 1024;
    while (size < 2 * pieces) size *= 2;
    if (!c->slots || c->mask + 1 < size) {
        lbpe_free_table(c->slots, slots_bytes(c));
        c->slots = NULL;
        return resize(c, size);
    }
    return 0;
}

/* The entry of a piece its slot cannot hold whole: its key (past 16 bytes) and all its ids kept
 * in the arenas; 0 with *x's entry set, 1 when the arenas are full (the piece is not cached), or
 * -1 on no memory. */
static int add_entry(Cache *c, const Key *k, const int32_t *ids, size_t count, CSlot *x) {
    size_t n = k->n, kn = n > 16 ? n : 0;
    if (c->klen + kn > UINT32_MAX || c->ilen + count > UINT32_MAX ||
        c->n_entries >= UINT32_MAX)
        return 1;
    if ((c->n_entries + 1 > c->cap &&
         grow((void **)&c->entries, &c->cap, c->n_entries + 1, sizeof(CEntry)) < 0) ||
        (c->klen + kn > c->kcap && grow((void **)&c->keys, &c->kcap, c->klen + kn, 1) < 0) ||
        (c->ilen + count > c->icap &&
         grow((void **)&c->ids, &c->icap, c->ilen + count, sizeof(int32_t)) < 0))
        return -1;
    CEntry *e = &c->entries[c->n_entries];
    e->hash = k->hash;
    e->koff = (uint32_t)c->klen;
    e->klen = (uint32_t)kn;
    e->ioff = (uint32_t)c->ilen;
    e->icount = (uint32_t)count;
    if (kn) memcpy(c->keys + c->klen, k->s, kn);
    c->klen += kn;
    if (count) memcpy(c->ids + c->ilen, ids, count * sizeof(int32_t));
    c->ilen += count;
    x->entry = (uint32_t)c->n_entries++;
    return 0;
}

LBPE_FN int cache_add(Cache *c, const Key *k, const int32_t *ids, size_t count) {
    size_t n = k->n;
    /* an empty key is never looked up; a longer key or more ids than a slot holds: just skip */
    if (n == 0 || n > CACHE_MAX_KEY || count > CACHE_MAX_IDS) return 0;
    if ((!c->slots || (c->n + 1) * 2 > (c->mask + 1)) && /* at most half full */
        resize(c, c->slots ? (c->mask + 1) * 2 : 1024) < 0)
        return -1;
    CSlot x;
    x.word[0] = k->word[0];
    x.word[1] = k->word[1];
    x.len = (uint16_t)n;
    x.count = (uint16_t)count;
    x.id[0] = count > 0 ? ids[0] : -1;
    x.id[1] = count > 1 ? ids[1] : -1;
    x.entry = 0;
    if (slot_has_entry(&x)) {
        int added = add_entry(c, k, ids, count, &x);
        if (added) return added < 0 ? -1 : 0;
    }
    place(c->slots, c->mask, k->hash, &x);
    c->n++;
    return 0;
}

LBPE_FN size_t cache_bytes(const Cache *c) {
    return lbpe_table_bytes(slots_bytes(c)) + c->cap * sizeof(CEntry) + c->kcap +
           c->icap * sizeof(int32_t);
}

LBPE_FN int append_ids(IdBuf *out, const int32_t *ids, size_t count) {
    if (grow((void **)&out->ids, &out->cap, out->len + count, sizeof(int32_t)) < 0) return -1;
    if (count) memcpy(out->ids + out->len, ids, count * sizeof(int32_t));
    out->len += count;
    return 0;
}

LBPE_FN void cache_move(Cache *into, Cache *from) {
    cache_free(into);
    *into = *from;
    memset(from, 0, sizeof(Cache));
}

/* Copy what a worker cached into the model's own caches (as room allows). */
LBPE_FN int merge_cache(Cache *into, const Cache *from, ptrdiff_t limit) {
    if (!from->slots) return 0;
    for (size_t at = 0; at <= from->mask && (ptrdiff_t)into->n < limit; at++) {
        const CSlot *x = &from->slots[at];
        if (!x->len) continue;
        const CEntry *e = slot_has_entry(x) ? &from->entries[x->entry] : NULL;
        Key k;
        unsigned char head[16];
        if (x->len > 16) k = key_of(from->keys + e->koff, e->klen, e->klen);
        else {
            for (int j = 0; j < 16; j++) head[j] = (unsigned char)(x->word[j / 8] >> (8 * (j % 8)));
            k = key_of((const char *)head, x->len, sizeof(head));
        }
        if (cache_slot(into, &k)) continue;
        if (cache_add(into, &k, e ? from->ids + e->ioff : x->id, x->count) < 0) return -1;
    }
    return 0;
}

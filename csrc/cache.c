/* Bounded caches of pieces -> ids (see core.h). */
#include "core.h"

LBPE_FN void cache_free(Cache *c) {
    lbpe_free(c->slots);
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
    c->n = c->klen = c->ilen = 0;
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

/* Room made ahead in an empty cache for about `pieces` entries (slots at most half full). */
LBPE_FN int cache_reserve(Cache *c, size_t pieces) {
    if (c->n) return 0;
    size_t size = 1024;
    while (size < 2 * pieces) size *= 2;
    if (!c->slots || c->mask + 1 < size) {
        CSlot *slots = lbpe_calloc(size, sizeof(CSlot));
        if (!slots) {
            lbpe_no_memory();
            return -1;
        }
        lbpe_free(c->slots);
        c->slots = slots;
        c->mask = size - 1;
    }
    if (grow((void **)&c->entries, &c->cap, pieces, sizeof(CEntry)) < 0 ||
        grow((void **)&c->keys, &c->kcap, pieces * 8, 1) < 0 ||
        grow((void **)&c->ids, &c->icap, pieces * 2, sizeof(int32_t)) < 0)
        return -1;
    return 0;
}

/* Put entry x of c, whose key's words (Key.word) are w0 and w1, in its slot of `slots` (mask + 1
 * of them). */
static LBPE_ALWAYS_INLINE void place(const Cache *c, CSlot *slots, size_t mask, uint32_t x,
                                      uint64_t w0, uint64_t w1) {
    const CEntry *e = &c->entries[x];
    size_t k = (size_t)e->hash & mask;
    while (slots[k].len) k = (k + 1) & mask;
    CSlot *slot = &slots[k];
    slot->word[0] = w0;
    slot->word[1] = w1;
    slot->len = (uint16_t)e->klen;
    slot->entry = x;
    slot->count = (uint16_t)e->icount;
    slot->id[0] = e->icount > 0 ? c->ids[e->ioff] : -1;
    slot->id[1] = e->icount > 1 ? c->ids[e->ioff + 1] : -1;
}

/* place() for an entry already in c (its words made again from its key) */
static void replace_entry(const Cache *c, CSlot *slots, size_t mask, uint32_t x) {
    const CEntry *e = &c->entries[x];
    const unsigned char *key = (const unsigned char *)c->keys + e->koff;
    place(c, slots, mask, x, head_word(key, e->klen),
          e->klen > 8 ? head_word(key + 8, e->klen - 8) : 0);
}

LBPE_FN int cache_add(Cache *c, const Key *k, const int32_t *ids, size_t count) {
    size_t n = k->n;
    /* an empty key is never looked up; a longer key or more ids than a slot holds: just skip */
    if (n == 0 || n > CACHE_MAX_KEY || count > CACHE_MAX_IDS) return 0;
    if (c->klen + n > UINT32_MAX || c->ilen + count > UINT32_MAX) return 0; /* full: just skip */
    if (!c->slots || (c->n + 1) * 2 > (c->mask + 1)) { /* at most half full */
        size_t size = c->slots ? (c->mask + 1) * 2 : 1024;
        CSlot *slots = lbpe_calloc(size, sizeof(CSlot));
        if (!slots) {
            lbpe_no_memory();
            return -1;
        }
        for (size_t x = 0; x < c->n; x++) replace_entry(c, slots, size - 1, (uint32_t)x);
        lbpe_free(c->slots);
        c->slots = slots;
        c->mask = size - 1;
    }
    /* (16 bytes of room past the keys: a short key is stored as its two words) */
    if ((c->n + 1 > c->cap &&
         grow((void **)&c->entries, &c->cap, c->n + 1, sizeof(CEntry)) < 0) ||
        (c->klen + n + 16 > c->kcap &&
         grow((void **)&c->keys, &c->kcap, c->klen + n + 16, 1) < 0) ||
        (c->ilen + count > c->icap &&
         grow((void **)&c->ids, &c->icap, c->ilen + count, sizeof(int32_t)) < 0))
        return -1;
    uint32_t x = (uint32_t)c->n;
    CEntry *e = &c->entries[x];
    e->hash = k->hash;
    e->koff = (uint32_t)c->klen;
    e->klen = (uint32_t)n;
    e->ioff = (uint32_t)c->ilen;
    e->icount = (uint32_t)count;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n <= 16) memcpy(c->keys + c->klen, k->word, 16); /* the words are the bytes, then zeros */
    else
#endif
        memcpy(c->keys + c->klen, k->s, n);
    c->klen += n;
    if (count > 2) memcpy(c->ids + c->ilen, ids, count * sizeof(int32_t));
    else
        for (size_t j = 0; j < count; j++) c->ids[c->ilen + j] = ids[j];
    c->ilen += count;
    place(c, c->slots, c->mask, x, k->word[0], k->word[1]);
    c->n++;
    return 0;
}

LBPE_FN size_t cache_bytes(const Cache *c) {
    return (c->slots ? (c->mask + 1) * sizeof(CSlot) : 0) + c->cap * sizeof(CEntry) + c->kcap +
           c->icap * sizeof(int32_t);
}

LBPE_FN int append_ids(IdBuf *out, const int32_t *ids, size_t count) {
    if (grow((void **)&out->ids, &out->cap, out->len + count, sizeof(int32_t)) < 0) return -1;
    if (count) memcpy(out->ids + out->len, ids, count * sizeof(int32_t));
    out->len += count;
    return 0;
}

/* Copy what a worker cached into the model's own caches (as room allows). */
LBPE_FN int merge_cache(Cache *into, const Cache *from, ptrdiff_t limit) {
    for (size_t x = 0; x < from->n && (ptrdiff_t)into->n < limit; x++) {
        const CEntry *e = &from->entries[x];
        Key k = key_of(from->keys + e->koff, e->klen, e->klen);
        if (cache_slot(into, &k)) continue;
        if (cache_add(into, &k, from->ids + e->ioff, e->icount) < 0) return -1;
    }
    return 0;
}

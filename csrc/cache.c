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
    if (c->slots) memset(c->slots, 0, (c->mask + 1) * sizeof(uint64_t));
    c->n = c->klen = c->ilen = 0;
}

LBPE_FN const CEntry *cache_find(const Cache *c, uint64_t h, const char *s, size_t n) {
    if (!c->slots) return NULL;
    uint64_t tag = h >> 32;
    size_t k = (size_t)h & c->mask;
    for (;;) {
        uint64_t slot = c->slots[k];
        if (slot == 0) return NULL;
        if ((slot >> 32) == tag) {
            const CEntry *e = &c->entries[(uint32_t)slot - 1];
            if (e->hash == h && e->klen == n && same_bytes(c->keys + e->koff, s, n)) return e;
        }
        k = (k + 1) & c->mask;
    }
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

LBPE_FN int cache_add(Cache *c, uint64_t h, const char *s, size_t n, const int32_t *ids,
                      size_t count) {
    if (c->klen + n > UINT32_MAX || c->ilen + count > UINT32_MAX) return 0; /* full: just skip */
    if (!c->slots || (c->n + 1) * 2 > c->mask + 1) {
        size_t size = c->slots ? (c->mask + 1) * 2 : 1024;
        uint64_t *slots = lbpe_calloc(size, sizeof(uint64_t));
        if (!slots) {
            lbpe_no_memory();
            return -1;
        }
        for (size_t x = 0; x < c->n; x++) {
            size_t k = (size_t)c->entries[x].hash & (size - 1);
            while (slots[k]) k = (k + 1) & (size - 1);
            slots[k] = ((c->entries[x].hash >> 32) << 32) | (uint64_t)(x + 1);
        }
        lbpe_free(c->slots);
        c->slots = slots;
        c->mask = size - 1;
    }
    if (grow((void **)&c->entries, &c->cap, c->n + 1, sizeof(CEntry)) < 0 ||
        grow((void **)&c->keys, &c->kcap, c->klen + n, 1) < 0 ||
        grow((void **)&c->ids, &c->icap, c->ilen + count, sizeof(int32_t)) < 0)
        return -1;
    CEntry *e = &c->entries[c->n];
    e->hash = h;
    e->koff = (uint32_t)c->klen;
    e->klen = (uint32_t)n;
    e->ioff = (uint32_t)c->ilen;
    e->icount = (uint32_t)count;
    memcpy(c->keys + c->klen, s, n);
    c->klen += n;
    if (count) memcpy(c->ids + c->ilen, ids, count * sizeof(int32_t));
    c->ilen += count;
    size_t k = (size_t)h & c->mask;
    while (c->slots[k]) k = (k + 1) & c->mask;
    c->slots[k] = ((h >> 32) << 32) | (uint64_t)(c->n + 1);
    c->n++;
    return 0;
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
        const char *key = from->keys + e->koff;
        uint64_t h = fnv((const unsigned char *)key, e->klen, FNV_OFFSET);
        if (cache_find(into, h, key, e->klen)) continue;
        if (cache_add(into, h, key, e->klen, from->ids + e->ioff, e->icount) < 0) return -1;
    }
    return 0;
}

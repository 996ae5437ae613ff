/* The token table, the merge pairs and the long tokens (see core.h). */
#include "core.h"

LBPE_FN void *scratch(Model *m, int slot, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (m->scratch_cap[slot] < bytes) {
        size_t cap = m->scratch_cap[slot] ? m->scratch_cap[slot] : 256;
        while (cap < bytes) cap *= 2;
        void *p = lbpe_realloc(m->scratch[slot], cap);
        if (!p) {
            lbpe_no_memory();
            return NULL;
        }
        m->scratch[slot] = p;
        m->scratch_cap[slot] = cap;
    }
    return m->scratch[slot];
}

/* Put entry x (FNV hash h) in an empty slot of fast (size slots). */
static Fast *fast_place(const Model *m, Fast *fast, size_t size, uint32_t x, uint64_t h) {
    const Entry *e = &m->entries[x];
    size_t k = (size_t)fast_slot(h, size);
    while (fast[k].len) k = k + 1 == size ? 0 : k + 1;
    fast[k].head = head_word((const unsigned char *)m->arena + e->off, e->len);
    fast[k].len = e->len;
    fast[k].tag = (uint32_t)h;
    fast[k].off = e->off;
    fast[k].entry = x;
    fast[k].v = e->v;
    return &fast[k];
}

LBPE_FN int table_reserve(Model *m, size_t count) {
    if (m->fast && count * 3 <= m->n_fast * 2) return 0; /* at most two thirds full */
    size_t size = count + count / 2 + 16;
    if (m->fast && size < m->n_fast * 2) size = m->n_fast * 2;
    if (size > UINT32_MAX) {
        lbpe_error(LBPE_OVERFLOW, "vocabulary too large");
        return -1;
    }
    void *block = lbpe_calloc(size + 2, sizeof(Fast));
    if (!block) {
        lbpe_no_memory();
        return -1;
    }
    lbpe_advise_random(block, (size + 2) * sizeof(Fast));
    Fast *fast = (Fast *)(((uintptr_t)block + 63) & ~(uintptr_t)63); /* two slots a cache line */
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        uint64_t h = fnv((const unsigned char *)m->arena + e->off, e->len, FNV_OFFSET);
        fast_place(m, fast, size, (uint32_t)x, h);
    }
    lbpe_free(m->fast_block);
    m->fast_block = block;
    m->fast = fast;
    m->n_fast = size;
    return 0;
}

/* Add the string s[0:n] (n >= 1, hash h), which is not in the table; returns its slot (valid
 * until the next string is added) or NULL with an error set. Its ids are -1. */
static Fast *table_insert(Model *m, uint64_t h, const char *s, size_t n) {
    if (n > UINT32_MAX || m->n_entries >= UINT32_MAX - 1) {
        lbpe_error(LBPE_OVERFLOW, "vocabulary too large");
        return NULL;
    }
    if (table_reserve(m, m->n_entries + 1) < 0) return NULL;
    if (m->n_entries == m->cap_entries) {
        size_t cap = m->cap_entries ? m->cap_entries * 2 : 1024;
        Entry *p = lbpe_realloc(m->entries, cap * sizeof(Entry));
        if (!p) {
            lbpe_no_memory();
            return NULL;
        }
        m->entries = p;
        m->cap_entries = cap;
    }
    if (m->arena_len + n > m->arena_cap) {
        size_t cap = m->arena_cap ? m->arena_cap : 1 << 16;
        while (cap < m->arena_len + n) cap *= 2;
        if (cap > UINT32_MAX) {
            lbpe_error(LBPE_OVERFLOW, "vocabulary too large");
            return NULL;
        }
        char *p = lbpe_realloc(m->arena, cap);
        if (!p) {
            lbpe_no_memory();
            return NULL;
        }
        m->arena = p;
        m->arena_cap = cap;
    }
    memcpy(m->arena + m->arena_len, s, n);
    Entry *e = &m->entries[m->n_entries];
    memset(e->head, 0, 8);
    memcpy(e->head, s, n < 8 ? n : 8);
    e->off = (uint32_t)m->arena_len;
    e->len = (uint32_t)n;
    e->v.id = -1;
    e->v.lid = -1;
    m->arena_len += n;
    return fast_place(m, m->fast, m->n_fast, (uint32_t)m->n_entries++, h);
}

/* How many tokens ahead of the one being added table_add_tokens asks for the lines its first
 * lookups read: each is a cache miss in a table of megabytes, and this way they overlap. */
#define ADD_AHEAD 8

/* Ask for the slots of token t and of its prefix one byte shorter. */
static void prefetch_token(const Model *m, const TokenBytes *t) {
    uint64_t h = FNV_OFFSET, shorter = FNV_OFFSET;
    for (size_t c = 0; c < t->n; c++) {
        shorter = h;
        h = fnv((const unsigned char *)t->s + c, 1, h);
    }
    LBPE_PREFETCH(&m->fast[fast_slot(h, m->n_fast)]);
    if (t->n > 1) LBPE_PREFETCH(&m->fast[fast_slot(shorter, m->n_fast)]);
}

LBPE_FN int table_add_tokens(Model *m, const TokenBytes *tokens, size_t count) {
    for (size_t x = 0; x < count; x++) {
        if (x + ADD_AHEAD < count) prefetch_token(m, &tokens[x + ADD_AHEAD]);
        const char *s = tokens[x].s;
        size_t n = tokens[x].n;
        uint64_t *hs = scratch(m, 0, (n + 1) * sizeof(uint64_t)); /* hs[c]: hash of s[0:c] */
        if (!hs) return -1;
        hs[0] = FNV_OFFSET;
        for (size_t c = 0; c < n; c++) hs[c + 1] = fnv((const unsigned char *)s + c, 1, hs[c]);
        /* Every prefix of a string in the table is there too: the longest prefix there is found
         * from the whole token down (most tokens need one or two lookups), then the longer ones
         * are added, each known to be missing. */
        size_t have = n;
        Fast *f = NULL;
        while (have > 0 && !(f = (Fast *)fast_at(m, s, have, hs[have]))) have--;
        for (size_t c = have + 1; c <= n; c++)
            if (!(f = table_insert(m, hs[c], s, c))) return -1;
        int32_t id = tokens[x].id;
        int scaffold = m->sc_left && id < m->sc_size && m->sc_left[id] >= 0;
        f->v.id = id;
        f->v.lid = scaffold ? -1 : id;
        m->entries[f->entry].v = f->v;
    }
    return 0;
}

LBPE_FN int pair_put(Model *m, int32_t a, int32_t b, int32_t prio, int32_t merged) {
    uint64_t key = pair_key(a, b);
    size_t slot = pair_hash(key) & m->pair_mask;
    while (m->pairs[slot].key != UINT64_MAX && m->pairs[slot].key != key)
        slot = (slot + 1) & m->pair_mask;
    if (m->pairs[slot].key == key && m->pairs[slot].prio <= prio) return 0; /* keep the best */
    m->pairs[slot].key = key;
    m->pairs[slot].prio = prio;
    m->pairs[slot].merged = merged;
    return 0;
}

/* The table of the LBPE tokens longer than WALKED units (see place_long). */
LBPE_FN int build_long_tokens(Model *m) {
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
            m->long_lengths[units] = 1; /* marks the lengths; made a list below */
        }
        if (pass == 0) {
            if (!count) return 0;
            size_t size = 16;
            while (size < count * 2) size *= 2;
            m->long_slots = lbpe_calloc(size, sizeof(uint32_t));
            m->long_hash = lbpe_calloc(size, sizeof(uint64_t));
            m->long_lengths = lbpe_calloc((size_t)max_units + 1, sizeof(int32_t));
            m->poly_pow = lbpe_malloc(((size_t)max_bytes + 1) * sizeof(uint64_t));
            if (!m->long_slots || !m->long_hash || !m->long_lengths || !m->poly_pow) {
                lbpe_no_memory();
                return -1;
            }
            m->long_mask = size - 1;
            m->poly_max = max_bytes;
            m->poly_pow[0] = 1;
            for (uint32_t k = 1; k <= max_bytes; k++) m->poly_pow[k] = m->poly_pow[k - 1] * POLY;
        }
    }
    int32_t nl = 0;
    for (int32_t len = max_units; len > WALKED; len--)
        if (m->long_lengths[len]) m->long_lengths[nl++] = len;
    m->n_long_lengths = nl;
    return 0;
}

LBPE_FN int build_short_ids(Model *m) {
    int32_t *ids = lbpe_malloc((256 + 65536) * sizeof(int32_t));
    if (!ids) {
        lbpe_no_memory();
        return -1;
    }
    for (int a = 0; a < 256; a++) {
        char s[2] = {(char)a, 0};
        const Ids *x = lookup(m, s, 1);
        ids[a] = x ? x->id : -1;
        /* every proper prefix of a token is in the table: no entry, no 2-byte token after it */
        for (int b = 0; b < 256; b++) {
            s[1] = (char)b;
            const Ids *y = x ? lookup(m, s, 2) : NULL;
            ids[256 + (a << 8 | b)] = y ? y->id : -1;
        }
    }
    m->short_ids = ids;
    return 0;
}

LBPE_FN int new_filter(size_t count, uint64_t **bits, uint64_t *shift) {
    /* about 8 bits a key (a lookup of a missing key passes one time in 8 or more), at least
     * 4096 bits */
    int log2 = 12;
    while (log2 < 40 && ((size_t)1 << log2) < count * 8) log2++;
    *bits = lbpe_calloc((size_t)1 << (log2 - 6), sizeof(uint64_t));
    if (!*bits) {
        lbpe_no_memory();
        return -1;
    }
    *shift = (uint64_t)(64 - log2);
    return 0;
}

LBPE_FN int build_filter(Model *m) {
    uint64_t *bits, shift;
    if (new_filter(m->n_entries, &bits, &shift) < 0) return -1;
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        filter_add(bits, shift, fnv((const unsigned char *)m->arena + e->off, e->len, FNV_OFFSET));
    }
    m->filter = bits;
    m->filter_shift = shift;
    return 0;
}

/* An empty table of `size` slots of `item` bytes, aligned to 64 bytes in *block. */
static void *new_mid_table(size_t size, size_t item, void **block) {
    *block = lbpe_calloc(size + 64 / item, item);
    if (!*block) {
        lbpe_no_memory();
        return NULL;
    }
    lbpe_advise_random(*block, (size + 64 / item) * item);
    return (void *)(((uintptr_t)*block + 63) & ~(uintptr_t)63);
}

LBPE_FN int build_mid(Model *m) {
    size_t count = 0, count2 = 0;
    uint16_t *lengths2 = lbpe_calloc(65536, sizeof(uint16_t));
    if (!lengths2) {
        lbpe_no_memory();
        return -1;
    }
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        if (e->v.id < 0 || e->len < 3) continue;
        const unsigned char *u = (const unsigned char *)m->arena + e->off;
        lengths2[(size_t)u[0] << 8 | u[1]] |= length_bit(e->len);
        if (e->len > 16) continue;
        if (e->len <= 8) count++;
        else count2++;
    }
    if (!count && !count2) {
        lbpe_free(lengths2);
        return 0;
    }
    m->lengths2 = lengths2;
    size_t size = count + count / 2 + 16, size2 = count2 + count2 / 2 + 16; /* <= 2/3 full */
    if (new_filter(count + count2, &m->mid_filter, &m->mid_shift) < 0) return -1;
    Mid *mid = new_mid_table(size, sizeof(Mid), &m->mid_block);
    Mid2 *mid2 = mid ? new_mid_table(size2, sizeof(Mid2), &m->mid2_block) : NULL;
    if (!mid2) return -1;
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        if (e->v.id < 0 || e->len < 3 || e->len > 16) continue;
        const unsigned char *u = (const unsigned char *)m->arena + e->off;
        uint64_t w0 = head_word(u, e->len), w1 = e->len > 8 ? head_word(u + 8, e->len - 8) : 0;
        uint64_t h = mid_hash(w0, w1, e->len);
        filter_add(m->mid_filter, m->mid_shift, h);
        if (e->len <= 8) {
            size_t k = mid_slot(h, size);
            while (mid[k].len) k = k + 1 == size ? 0 : k + 1;
            mid[k].word = w0;
            mid[k].id = e->v.id;
            mid[k].len = e->len;
        } else {
            size_t k = mid_slot(h, size2);
            while (mid2[k].len) k = k + 1 == size2 ? 0 : k + 1;
            mid2[k].word[0] = w0;
            mid2[k].word[1] = w1;
            mid2[k].id = e->v.id;
            mid2[k].len = e->len;
        }
    }
    m->mid = mid;
    m->mid2 = mid2;
    m->n_mid = size;
    m->n_mid2 = size2;
    /* the tokens of more than 16 bytes: about 32 bits each in their filter (long_span_id tests
     * many spans that are none) */
    size_t count3 = 0;
    for (size_t x = 0; x < m->n_entries; x++)
        if (m->entries[x].v.id >= 0 && m->entries[x].len > 16) count3++;
    if (!count3) return 0;
    if (new_filter(count3 * 4, &m->tail_filter, &m->tail_shift) < 0) return -1;
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        if (e->v.id < 0 || e->len <= 16) continue;
        const unsigned char *u = (const unsigned char *)m->arena + e->off;
        uint64_t h = mid_hash(head_word(u, 8), head_word(u + 8, 8), e->len);
        filter_add(m->tail_filter, m->tail_shift, h);
    }
    return 0;
}

LBPE_FN void model_free_own(Model *m) {
    for (int k = 0; k < N_SCRATCH; k++) lbpe_free(m->scratch[k]);
    for (int k = 0; k < N_METHODS; k++) {
        cache_free(&m->cache[k]);
        cache_free(&m->part_cache[k]);
    }
}

LBPE_FN void model_free(Model *m) {
    model_free_own(m);
    lbpe_free(m->arena);
    lbpe_free(m->entries);
    lbpe_free(m->pairs);
    lbpe_free(m->sc_left);
    lbpe_free(m->sc_right);
    lbpe_free(m->witness);
    lbpe_free(m->long_slots);
    lbpe_free(m->long_hash);
    lbpe_free(m->long_lengths);
    lbpe_free(m->poly_pow);
    lbpe_free(m->short_ids);
    lbpe_free(m->filter);
    lbpe_free(m->witness_filter);
    lbpe_free(m->part_ends);
    lbpe_free(m->fast_block);
    lbpe_free(m->mid_block);
    lbpe_free(m->mid2_block);
    lbpe_free(m->mid_filter);
    lbpe_free(m->lengths2);
    lbpe_free(m->tail_filter);
}

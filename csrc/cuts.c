/* Cuts (lbpe/model/cuts.py, the same test): a boundary between two characters that no
 * token can cover. Pieces of Chinese or Japanese fall apart there into parts (mostly words) that
 * encode independently and repeat, so a cache of parts makes unseen pieces cheap. A witness is a
 * pair (the end of a character, the start of the next) found inside some token; the boundary
 * c1 c2 is a cut when no suffix of c1's bytes followed by a prefix of c2's bytes is a witness
 * (character units: c1, c2 themselves). Two ASCII characters never count as a cut. */
#include "core.h"

static inline uint64_t frag_key(const unsigned char *a, int la, const unsigned char *b, int lb) {
    uint64_t k = 0;
    for (int x = 0; x < la; x++) k = (k << 8) | a[x];
    for (int x = 0; x < lb; x++) k = (k << 8) | b[x];
    return (k << 6) | ((uint64_t)la << 3) | (uint64_t)lb; /* at most 8 bytes of fragments */
}

/* The witnesses' table is kept at most 3/4 full: o200k_base's 21,742 fit 256 KB. */
static int witness_add(Model *m, uint64_t key) {
    if ((m->n_witness + 1) * 4 > (m->witness_mask + 1) * 3) {
        size_t size = m->witness ? (m->witness_mask + 1) * 2 : 4096;
        uint64_t *w = lbpe_calloc(size, sizeof(uint64_t));
        if (!w) {
            lbpe_no_memory();
            return -1;
        }
        for (size_t x = 0; m->witness && x <= m->witness_mask; x++) {
            if (!m->witness[x]) continue;
            size_t k = mix64(m->witness[x]) & (size - 1);
            while (w[k]) k = (k + 1) & (size - 1);
            w[k] = m->witness[x];
        }
        lbpe_free(m->witness);
        m->witness = w;
        m->witness_mask = size - 1;
    }
    size_t k = mix64(key) & m->witness_mask;
    while (m->witness[k]) {
        if (m->witness[k] == key) return 0;
        k = (k + 1) & m->witness_mask;
    }
    m->witness[k] = key;
    m->n_witness++;
    return 0;
}

/* Whether the key (which the witnesses' filter has) is a witness. */
static inline int witness_in_table(const Model *m, uint64_t key) {
    size_t k = mix64(key) & m->witness_mask;
    while (m->witness[k]) {
        if (m->witness[k] == key) return 1;
        k = (k + 1) & m->witness_mask;
    }
    return 0;
}

static inline int witness_has(const Model *m, uint64_t key) {
    return filter_has(m->witness_filter, m->witness_shift, key) && witness_in_table(m, key);
}

/* frag_key of the l bytes `suffix` followed by the first y of the lb bytes kb (the first byte
 * highest in each). */
static inline uint64_t pair_key_of(uint64_t suffix, int l, uint64_t kb, int lb, int y) {
    return ((suffix << (8 * y)) | (kb >> (8 * (lb - y)))) << 6 | ((uint64_t)l << 3) | (uint64_t)y;
}

/* Whether some suffix of a character followed by some prefix of the next is a witness, the
 * characters' bytes given as numbers (ka: la bytes, kb: lb bytes, the first byte highest), with
 * the keys frag_key makes of the same bytes. The two whole characters first: all but a few
 * witnesses are pairs of whole characters (21,123 of o200k_base's 21,742); the others (a token
 * that starts or ends inside a character) are looked for only where one of them ends with the
 * first character's last byte and starts with the second's first byte (part_ends). */
static int covered_by_bytes(const Model *m, uint64_t ka, int la, uint64_t kb, int lb) {
    if (witness_has(m, pair_key_of(ka, la, kb, lb, lb))) return 1; /* the whole characters */
    size_t ends = (size_t)(ka & 0xFF) << 8 | (size_t)(kb >> (8 * (lb - 1)));
    if (!m->part_ends || !((m->part_ends[ends >> 6] >> (ends & 63)) & 1)) return 0;
    for (int x = 0; x < la; x++) {
        int l = la - x; /* a[x:la] */
        uint64_t suffix = ka & (((uint64_t)1 << (8 * l)) - 1);
        for (int y = 1; y <= lb; y++) { /* b[0:y] */
            if (l == la && y == lb) continue;
            if (witness_has(m, pair_key_of(suffix, l, kb, lb, y))) return 1;
        }
    }
    return 0;
}

/* The length of a UTF-8 character from its first byte (0: a byte no character starts with). */
static inline uint32_t char_len(unsigned char c) {
    return c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 0;
}

LBPE_FN int build_witnesses(Model *m) {
    for (size_t x = 0; x < m->n_entries; x++) {
        const Entry *e = &m->entries[x];
        if (e->v.id < 0) continue;
        const unsigned char *t = (const unsigned char *)m->arena + e->off;
        uint32_t n = e->len;
        for (uint32_t i = 1; i < n; i++) {
            if (CONT(t[i])) continue; /* inside a character: never a character boundary */
            uint32_t p = i - 1, q = i + 1;
            while (p > 0 && CONT(t[p])) p--;
            while (q < n && CONT(t[q])) q++;
            if (t[p] < 0x80 && i - p == 1 && t[i] < 0x80 && q - i == 1)
                continue;                         /* two ASCII characters */
            if (i - p > 4 || q - i > 4) continue; /* not UTF-8 text: such tokens never meet text */
            if (witness_add(m, frag_key(t + p, (int)(i - p), t + i, (int)(q - i))) < 0) return -1;
            if (char_len(t[p]) == i - p && char_len(t[i]) == q - i) continue;
            if (!m->part_ends && !(m->part_ends = lbpe_calloc(65536 / 64, sizeof(uint64_t)))) {
                lbpe_no_memory();
                return -1;
            }
            size_t ends = (size_t)t[i - 1] << 8 | t[i];
            m->part_ends[ends >> 6] |= (uint64_t)1 << (ends & 63);
        }
    }
    /* about 32 bits a witness: a boundary tests one key, up to nine where part_ends says a
     * witness may start or end inside a character, and each one the filter lets through costs
     * a look in the table */
    if (new_filter(m->n_witness * 4, &m->witness_filter, &m->witness_shift) < 0) return -1;
    for (size_t x = 0; m->witness && x <= m->witness_mask; x++)
        if (m->witness[x]) filter_add(m->witness_filter, m->witness_shift, m->witness[x]);
    return 0;
}

/* Is the boundary between the characters a[0:la] and b[0:lb] (UTF-8) a cut? Most are answered
 * by two bits: the witnesses' filter's for the two whole characters, and part_ends'. (A memo of
 * the answers, a line of its own for each boundary, was no faster than these.) */
static int is_cut(const Model *m, const unsigned char *a, int la, const unsigned char *b, int lb) {
    if (la == 1 && lb == 1 && a[0] < 0x80 && b[0] < 0x80) return 0;
    if (!m->witness || !m->witness_filter) return 1;
    uint64_t ka = 0, kb = 0;
    for (int x = 0; x < la; x++) ka = (ka << 8) | a[x];
    for (int x = 0; x < lb; x++) kb = (kb << 8) | b[x];
    if (m->char_units) return !witness_has(m, frag_key(a, la, b, lb));
    return !covered_by_bytes(m, ka, la, kb, lb); /* from inside c1 to inside c2 */
}

/* One part (UTF-8 s[0:n]) of a piece -> its ids appended to out, through the part cache c. */
static int part_ids(Model *m, Cache *c, const char *s, size_t n, int method, ptrdiff_t limit,
                    IdBuf *out) {
    Key k = key_of(s, n, n);
    const CSlot *x = cache_slot(c, &k);
    if (x) return slot_ids(c, x, out);
    size_t from = out->len;
    if (encode_piece(m, s, (ptrdiff_t)n, method, 0, out) < 0) return -1;
    return n <= MAX_CACHED_PART ? cache_keep(c, &k, out->ids + from, out->len - from, limit) : 0;
}

/* A piece that falls apart at cuts: each part through the part cache (no whole-piece shortcut:
 * the parts of a piece are merged as parts, as the pure path does). Returns 1 when it did
 * the work, 0 when the piece has no cut. */
LBPE_FN int by_parts(Model *m, const char *s, size_t n, int method, ptrdiff_t limit, IdBuf *out) {
    const unsigned char *u = (const unsigned char *)s;
    size_t start = 0, prev = 0, k;
    int parted = 0;
    /* first character */
    k = 1;
    while (k < n && CONT(u[k])) k++;
    Cache *c = &m->part_cache[method];
    while (k < n) {
        size_t next = k + 1;
        while (next < n && CONT(u[next])) next++;
        if (k - prev <= 4 && next - k <= 4 &&
            is_cut(m, u + prev, (int)(k - prev), u + k, (int)(next - k))) {
            parted = 1;
            if (part_ids(m, c, s + start, k - start, method, limit, out) < 0) return -1;
            start = k;
        }
        prev = k;
        k = next;
    }
    if (!parted) return 0;
    return part_ids(m, c, s + start, n - start, method, limit, out) < 0 ? -1 : 1;
}

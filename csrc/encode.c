/* One piece -> ids, through the caches; a text -> ids (see core.h). */
#include "core.h"

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

LBPE_FN int idbuf_push(IdBuf *b, int32_t id) {
    if (b->len == b->cap && grow((void **)&b->ids, &b->cap, b->len + 1, sizeof(int32_t)) < 0)
        return -1;
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
    lbpe_free(stack.ids);
    return rc;
}

/* ids of a character that has no token (character units only) */
static int push_fallback(Model *m, const char *s, int32_t a, int32_t z, int *prev_unk, IdBuf *b) {
    if (m->has_byte_fallback) {
        for (int32_t k = a; k < z; k++)
            if (idbuf_push(b, m->byte_fallback[(unsigned char)s[k]]) < 0) return -1;
        *prev_unk = 0;
        return 0;
    }
    if (m->has_unk) {
        if (!(m->fuse_unk && *prev_unk) && idbuf_push(b, m->unk) < 0) return -1;
        *prev_unk = m->fuse_unk;
        return 0;
    }
    /* neither: the host reports the error that names the character */
    return lbpe_fallback(m->fallback, s + a, (size_t)(z - a));
}

/* The ids of bpe_small or lbpe_small of s[0:n] into ids (room for n), its bytes' ids from the
 * model; -1 when a byte has no token (the parts then need the fallbacks). */
static ptrdiff_t small_ids(const Model *m, const char *s, int32_t n, int method, int32_t *ids) {
    int32_t uid[SMALL_PIECE];
    Part parts[SMALL_PIECE];
    for (int32_t k = 0; k < n; k++)
        if ((uid[k] = m->short_ids[(unsigned char)s[k]]) < 0) return -1;
    ptrdiff_t np =
        method == M_BPE ? bpe_small(m, s, n, uid, parts) : lbpe_small(m, s, n, uid, parts);
    for (ptrdiff_t k = 0; k < np; k++) ids[k] = parts[k].id;
    return np;
}

/* Whether a piece of len bytes takes small_ids: a short piece of bytes, no scaffold tokens, and
 * BPE on a rank vocabulary (not with a whole scaffold token first) or LBPE, with the tables of
 * tokens of 3 to 16 bytes. */
static inline int small_way(const Model *m, ptrdiff_t len, int method, int whole) {
    return len >= 2 && len <= SMALL_PIECE && !m->sc_left && !m->char_units && m->mid &&
           ((method == M_BPE && !whole && len <= m->thresholds->short_bpe && !m->pairs) ||
            method == M_LBPE);
}

/* small_ids appended to b: how many ids, -1 when a byte has no token (nothing appended), or
 * -2 on no memory (reported). */
static inline ptrdiff_t small_ids_to(const Model *m, const char *s, int32_t n, int method,
                                     IdBuf *b) {
    if (b->cap - b->len < (size_t)n &&
        grow((void **)&b->ids, &b->cap, b->len + (size_t)n, sizeof(int32_t)) < 0)
        return -2;
    ptrdiff_t np = small_ids(m, s, n, method, b->ids + b->len);
    if (np >= 0) b->len += (size_t)np;
    return np;
}

/* Encode one piece (UTF-8 bytes s[0:len]) into b. Returns 0, or -1 with the error reported. */
LBPE_FN int encode_piece(Model *m, const char *s, ptrdiff_t len, int method, int whole, IdBuf *b) {
    if (len > INT32_MAX / 4) {
        lbpe_error(LBPE_OVERFLOW, "piece too long for the compiled path");
        return -1;
    }
    /* the common case first */
    if (small_way(m, len, method, whole)) {
        ptrdiff_t np = small_ids_to(m, s, (int32_t)len, method, b);
        if (np != -1) return np < 0 ? -1 : 0;
    }
    int32_t n;
    int32_t *ub = scratch(m, 0, ((size_t)len + 1) * sizeof(int32_t));
    if (!ub) return -1;
    if (m->char_units) {
        n = 0;
        for (int32_t k = 0; k < len; k++)
            if (((unsigned char)s[k] & 0xC0) != 0x80) ub[n++] = k;
        ub[n] = (int32_t)len;
    } else {
        n = (int32_t)len;
        for (int32_t k = 0; k <= n; k++) ub[k] = k;
    }
    if (n == 0) return 0;
    Part *parts = scratch(m, 1, (size_t)n * sizeof(Part));
    int32_t *uid = scratch(m, 2, (size_t)n * sizeof(int32_t));
    if (!parts || !uid) return -1;
    ptrdiff_t np = -2;
    if (method == M_BPE && whole && m->whole_piece_first) {
        int32_t id = token_id(m, s, (size_t)len);
        if (id >= 0) {
            parts[0].s = 0;
            parts[0].e = n;
            parts[0].id = id;
            np = 1;
        }
    }
    if (np == -2) {
        for (int32_t k = 0; k < n; k++)
            uid[k] = token_id(m, s + ub[k], (size_t)(ub[k + 1] - ub[k]));
        if (n == 1) {
            parts[0].s = 0;
            parts[0].e = 1;
            parts[0].id = uid[0];
            np = 1;
        } else if (method == M_LBPE && n <= SMALL_PIECE && m->mid && !m->sc_left && !m->char_units)
            np = lbpe_small(m, s, n, uid, parts);
        else if (method == M_LBPE) np = lbpe(m, s, ub, n, uid, parts);
        else if (method == M_PREFIX) np = longest_prefix(m, s, ub, n, uid, parts);
        else if (method == M_SUFFIX) np = longest_suffix(m, s, ub, n, uid, parts);
        else if (method == M_FEWEST) np = least_tokens(m, s, ub, n, uid, parts);
        else if (n <= m->thresholds->short_bpe && n <= SMALL_PIECE && !m->pairs && m->mid &&
                 !m->char_units)
            np = bpe_small(m, s, n, uid, parts);
        else if (n <= m->thresholds->short_bpe) np = bpe_short(m, s, ub, n, uid, parts);
        else if (n <= m->thresholds->long_bpe || m->max_prio > MAX_BUCKETS)
            np = bpe_long(m, s, ub, n, uid, parts);
        else np = bpe_bucketed(m, s, ub, n, uid, parts);
        if (np < 0) return -1;
    }
    int prev_unk = 0;
    for (ptrdiff_t k = 0; k < np; k++) {
        int32_t id = parts[k].id;
        if (id < 0) {
            /* a single character without a token: copy it out of scratch before calling out */
            char ch[8];
            int32_t a = ub[parts[k].s], z = ub[parts[k].e];
            if (z - a > 8) {
                lbpe_error(LBPE_RUNTIME, "lbpe._native: unit longer than a character");
                return -1;
            }
            memcpy(ch, s + a, (size_t)(z - a));
            if (push_fallback(m, ch, 0, z - a, &prev_unk, b) < 0) return -1;
            continue;
        }
        prev_unk = 0;
        if (method == M_BPE && m->sc_left) {
            if (push_scaffold(m, id, b) < 0) return -1;
        } else if (idbuf_push(b, id) < 0) return -1;
    }
    return 0;
}

/* Whether key k is all ASCII: its words, up to 16 bytes (zero padded), else byte by byte. */
static inline int key_ascii(const Key *k) {
    if (k->n <= 16) return ((k->word[0] | k->word[1]) & 0x8080808080808080ull) == 0;
    for (size_t j = 0; j < k->n; j++)
        if ((unsigned char)k->s[j] >= 0x80) return 0;
    return 1;
}

/* Whether a new piece (key k, `chars` characters) is first tried at cuts (by_parts): one of
 * several characters beyond ASCII, where the model has cuts. */
static inline int cuts_first(const Model *m, const Key *k, ptrdiff_t chars) {
    return m->cuts && chars > 1 && !key_ascii(k);
}

/* token_id of key k's bytes, by its words where the tables of tokens of 3 to 16 bytes have it */
static inline int32_t key_token_id(const Model *m, const Key *k) {
    if (k->n >= 3 && k->n <= 16 && m->mid) return mid_id(m, k->word[0], k->word[1], k->n);
    return token_id(m, k->s, k->n);
}

/* The id of a piece that is itself a token and encodes to that token alone, else -1: for every
 * method but BPE, any token it may place (the longest match, the fewest tokens, LBPE's longest
 * window: the piece itself); for BPE, when whole pieces come first, unless a scaffold token. */
static LBPE_ALWAYS_INLINE int32_t whole_token(const Model *m, const Key *k, int method) {
    const char *s = k->s;
    size_t n = k->n;
    if (method != M_BPE) {
        if (!m->sc_left) return key_token_id(m, k); /* no scaffold tokens: lid is id */
        const Ids *x = lookup(m, s, n);
        return x ? x->lid : -1;
    }
    if (!m->whole_piece_first) return -1;
    int32_t id = key_token_id(m, k);
    if (id >= 0 && m->sc_left && id < m->sc_size && m->sc_left[id] >= 0) return -1;
    return id;
}

/* Key k's ids appended to out from a cache of `method`: the model's own, then, in a worker, its
 * parent's (nobody writes that one meanwhile). 1 if found, 0 if not, -1 on no memory. */
static LBPE_ALWAYS_INLINE int cached_ids(const Model *m, const Key *k, int method,
                                         IdBuf *out) {
    const Cache *c = &m->cache[method];
    const CSlot *x = cache_slot(c, k);
    if (!x && m->parent) x = cache_slot(c = &m->parent->cache[method], k);
    if (!x) return 0;
    return slot_ids(c, x, out) < 0 ? -1 : 1;
}

/* A piece's ids (ids[0:count]) kept in cache c when it has at most cached_chars characters. */
static inline int keep_ids(Cache *c, const Key *k, ptrdiff_t chars, ptrdiff_t cached_chars,
                           const int32_t *ids, size_t count, ptrdiff_t limit) {
    return chars > cached_chars ? 0 : cache_keep(c, k, ids, count, limit);
}

/* whole_token's answer not asked yet (uncached_piece) */
#define WHOLE_UNASKED (-2)

/* A piece (key k) that no cache had: encoded, and cached when it has at most cached_chars
 * characters. `whole`: whole_token's answer where the caller asked it, else WHOLE_UNASKED. */
static int uncached_piece(Model *m, const Key *k, ptrdiff_t chars, int method, ptrdiff_t limit,
                          ptrdiff_t cached_chars, int32_t whole, IdBuf *out) {
    const char *s = k->s;
    size_t n = k->n;
    size_t from = out->len;
    int done = 0;
    /* a piece with a cut is no token (a token covers every boundary inside it, cuts.c), so one
     * that falls apart at cuts is encoded by its parts without looking the whole piece up */
    if (whole == WHOLE_UNASKED && cuts_first(m, k, chars)) {
        done = by_parts(m, s, n, method, limit, out);
        if (done < 0) return -1;
    }
    if (whole == WHOLE_UNASKED) whole = done ? -1 : whole_token(m, k, method);
    if (whole >= 0) { /* most pieces are tokens */
        if (idbuf_push(out, whole) < 0) return -1;
        done = 1;
    }
    /* BPE places a whole piece that is a token first (as the pure path does); one that
     * whole_token did not answer is a scaffold token, which encode_piece places and splits */
    int scaffold = !done && method == M_BPE && m->whole_piece_first && m->sc_left &&
                   token_id(m, s, n) >= 0;
    if (!done && encode_piece(m, s, (ptrdiff_t)n, method, scaffold, out) < 0) return -1;
    return keep_ids(&m->cache[method], k, chars, cached_chars, out->ids + from, out->len - from,
                    limit);
}

/* One piece (UTF-8 s[0:n], `chars` characters; `room` >= n bytes readable at s) -> its ids
 * appended to out, through the cache. */
static inline int piece_ids(Model *m, const char *s, size_t n, size_t room, ptrdiff_t chars,
                            int method, ptrdiff_t limit, ptrdiff_t cached_chars, IdBuf *out) {
    Key k = key_of(s, n, room);
    int found = cached_ids(m, &k, method, out);
    if (found) return found < 0 ? -1 : 0;
    return uncached_piece(m, &k, chars, method, limit, cached_chars, WHOLE_UNASKED, out);
}

LBPE_FN int cached_piece(Model *m, const char *s, size_t n, ptrdiff_t chars, int method,
                         ptrdiff_t limit, ptrdiff_t cached_chars, IdBuf *out) {
    return piece_ids(m, s, n, n, chars, method, limit, cached_chars, out);
}

/* The UTF-8 of text[p:q] (code points of `kind` bytes at data) into buf; -1 at a lone
 * surrogate. Compiled once for each kind. */
static LBPE_ALWAYS_INLINE ptrdiff_t utf8_kind(int kind, const void *data, ptrdiff_t p, ptrdiff_t q,
                                              unsigned char *buf) {
    ptrdiff_t n = 0;
    for (ptrdiff_t i = p; i < q; i++) {
        uint32_t c = read_cp(kind, data, i);
        if (c < 0x80) buf[n++] = (unsigned char)c;
        else if (c < 0x800) {
            buf[n++] = 0xC0 | (c >> 6);
            buf[n++] = 0x80 | (c & 0x3F);
        } else if (c < 0x10000) {
            if (c >= 0xD800 && c <= 0xDFFF) return -1;
            buf[n++] = 0xE0 | (c >> 12);
            buf[n++] = 0x80 | ((c >> 6) & 0x3F);
            buf[n++] = 0x80 | (c & 0x3F);
        } else {
            buf[n++] = 0xF0 | (c >> 18);
            buf[n++] = 0x80 | ((c >> 12) & 0x3F);
            buf[n++] = 0x80 | ((c >> 6) & 0x3F);
            buf[n++] = 0x80 | (c & 0x3F);
        }
    }
    return n;
}

/* The UTF-8 of text[p:q] when it is at most 16 code points, all ASCII, and 16 can be read at p:
 * for a text of 1-byte code points, the text itself; else packed into buf (16 bytes). NULL
 * otherwise (utf8_kind then writes it a byte at a time). One 16-byte store, so the word loads
 * of the key that follow are not held up by a byte-by-byte copy. */
static LBPE_ALWAYS_INLINE const char *ascii_piece(int kind, const void *data, ptrdiff_t n,
                                                  ptrdiff_t p, ptrdiff_t q, unsigned char *buf) {
#if defined(__SSE2__)
    if (q - p > 16 || p + 16 > n || read_cp(kind, data, p) >= 0x80) return NULL;
    unsigned want = (1u << (q - p)) - 1;
    const char *at = (const char *)data + p * kind;
    if (kind == 1) {
        __m128i x = _mm_loadu_si128((const __m128i *)at);
        return (_mm_movemask_epi8(x) & want) == 0 ? at : NULL;
    }
    __m128i bytes;
    if (kind == 2) {
        __m128i a = _mm_loadu_si128((const __m128i *)at);
        __m128i b = _mm_loadu_si128((const __m128i *)at + 1);
        __m128i high = _mm_set1_epi16((short)0xFF80), zero = _mm_setzero_si128();
        __m128i ok = _mm_packs_epi16(_mm_cmpeq_epi16(_mm_and_si128(a, high), zero),
                                     _mm_cmpeq_epi16(_mm_and_si128(b, high), zero));
        if (((unsigned)_mm_movemask_epi8(ok) & want) != want) return NULL;
        bytes = _mm_packus_epi16(a, b);
    } else {
        __m128i w[4], ok[4];
        __m128i high = _mm_set1_epi32((int)0xFFFFFF80u), zero = _mm_setzero_si128();
        for (int k = 0; k < 4; k++) {
            w[k] = _mm_loadu_si128((const __m128i *)at + k);
            ok[k] = _mm_cmpeq_epi32(_mm_and_si128(w[k], high), zero);
        }
        __m128i okb = _mm_packs_epi16(_mm_packs_epi32(ok[0], ok[1]), _mm_packs_epi32(ok[2], ok[3]));
        if (((unsigned)_mm_movemask_epi8(okb) & want) != want) return NULL;
        /* every value kept is below 0x80, so the signed packs are exact */
        bytes = _mm_packus_epi16(_mm_packs_epi32(w[0], w[1]), _mm_packs_epi32(w[2], w[3]));
    }
    _mm_storeu_si128((__m128i *)buf, bytes);
    return (const char *)buf;
#else
    (void)kind, (void)data, (void)n, (void)p, (void)q, (void)buf;
    return NULL;
#endif
}

/* A piece of at most 16 bytes split ahead of its lookup: text[p:q] and its key (whose bytes are
 * all in key.word; key.s is not kept). */
typedef struct {
    ptrdiff_t p, q;
    Key key;
} Pending;
/* How many pieces are split (their cache slots asked for) before the first of them is looked
 * up: the slots' cache misses overlap, and each of the two loops stays small. */
#define BATCH 64

/* The ids of a pending piece appended to b: from a cache, else (the piece's bytes made again
 * from the text) as piece_ids would. */
static LBPE_ALWAYS_INLINE int pending_ids(int kind, Model *m, const Text *t, const Pending *x,
                                          int method, ptrdiff_t limit, ptrdiff_t cached_chars,
                                          IdBuf *b) {
    int found = cached_ids(m, &x->key, method, b);
    if (found) return found < 0 ? -1 : 0;
    /* most pieces met for the first time are tokens: whole_token asked here where it needs
     * only the key's words (3 to 16 bytes in the tables of those, and no scaffold token's
     * lookup of the bytes, which the key does not keep) and no cuts come first, and a token's
     * id kept without the piece's bytes made again */
    const Key *key = &x->key;
    ptrdiff_t chars = x->q - x->p;
    Cache *c = &m->cache[method];
    int32_t whole = WHOLE_UNASKED;
    if (key->n >= 3 && m->mid && (method == M_BPE || !m->sc_left) &&
        !cuts_first(m, key, chars)) {
        whole = whole_token(m, key, method);
        if (whole >= 0 && idbuf_push(b, whole) < 0) return -1;
        if (whole >= 0) return keep_ids(c, key, chars, cached_chars, &whole, 1, limit);
    }
    unsigned char buf[32]; /* at most 16 bytes, and key_of may read 16 past its start */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the key's words are its bytes: stored whole, so nothing reads them back byte by byte */
    (void)kind, (void)t;
    memcpy(buf, x->key.word, 16);
    memset(buf + 16, 0, 16);
    Key k = x->key;
    k.s = (const char *)buf;
#else
    ptrdiff_t len = utf8_kind(kind, t->data, x->p, x->q, buf);
    Key k = key_of((const char *)buf, (size_t)len, sizeof(buf));
#endif
    /* a short piece of bytes that is no token: its merges or windows from here as well */
    if (whole == -1 && small_way(m, (ptrdiff_t)k.n, method, 0)) {
        size_t from = b->len;
        ptrdiff_t np = small_ids_to(m, k.s, (int32_t)k.n, method, b);
        if (np == -2) return -1;
        if (np >= 0)
            return keep_ids(c, &k, chars, cached_chars, b->ids + from, (size_t)np, limit);
    }
    return uncached_piece(m, &k, chars, method, limit, cached_chars, whole, b);
}

/* Whether text t has at least `want` code points below U+0800 (one or two bytes of UTF-8:
 * Latin, Greek, Cyrillic, Arabic, Hebrew and the like), counted a block at a time. */
static int has_short_code_points(const Text *t, size_t want) {
    if (t->kind == 1) return (size_t)t->n >= want;
    size_t count = 0;
    for (ptrdiff_t at = 0; at < t->n && count < want; at += 4096) {
        ptrdiff_t end = at + 4096 < t->n ? at + 4096 : t->n;
        if (t->kind == 2) {
            const uint16_t *u = (const uint16_t *)t->data;
            for (ptrdiff_t i = at; i < end; i++) count += u[i] < 0x800;
        } else {
            const uint32_t *u = (const uint32_t *)t->data;
            for (ptrdiff_t i = at; i < end; i++) count += u[i] < 0x800;
        }
    }
    return count >= want;
}

/* The bytes of the tables of tokens of 3 to 16 bytes (mid, mid2, mid_filter). */
static size_t tables_bytes(const Model *m) {
    return m->n_mid * sizeof(Mid) + m->n_mid2 * sizeof(Mid2) +
           ((size_t)1 << (64 - m->mid_shift)) / 8;
}

/* Every line of those tables read once, in order, once the text being encoded is known to have
 * many distinct pieces: at its start when it has a code point for every 16 bytes of tables
 * (180,000 for cl100k_base, 370,000 for o200k_base: such a text has tens of thousands), else
 * as soon as one piece for every 2 KB of tables (1,400 and 2,900) has been cached since the
 * caches were emptied. Such a text goes on to look up most tokens, each the first time at a
 * place of its own; read in order, the tables come from memory as one stream instead of one
 * wait after another. Unless it has fewer than one code point below U+0800 for every 256 bytes
 * of tables: texts of characters of three bytes or more (Chinese and Japanese, whose pieces
 * fall apart at cuts into parts that repeat) ran 5 to 19% slower with the stream, and 80 KB of
 * Russian or German (1,000 to 1,400 distinct pieces) 12 to 45% slower when it was read at the
 * start. Decided once until the caches are emptied again. */
static void read_tables(Model *m, const Text *t) {
    m->tables_read = 1;
    const unsigned char *part[3] = {(const unsigned char *)m->mid, (const unsigned char *)m->mid2,
                                    (const unsigned char *)m->mid_filter};
    size_t bytes[3] = {m->n_mid * sizeof(Mid), m->n_mid2 * sizeof(Mid2),
                       ((size_t)1 << (64 - m->mid_shift)) / 8};
    if (!has_short_code_points(t, tables_bytes(m) / 256)) return;
    volatile unsigned char sink = 0;
    for (int k = 0; k < 3; k++) {
        unsigned char x = 0;
        for (size_t i = 0; i < bytes[k]; i += 64) x ^= part[k][i];
        sink ^= x;
    }
    (void)sink;
}

/* encode_text for a text of one kind (a constant in each copy, as is latin1: a text of kind 1
 * that is not all ASCII) */
static LBPE_ALWAYS_INLINE int encode_kind(int kind, int latin1, Model *m, const Text *t,
                                          const Preset *pr, const unsigned char *cls, int method,
                                          ptrdiff_t limit, ptrdiff_t cached_chars, IdBuf *b,
                                          unsigned char **u8, size_t *u8cap, ptrdiff_t bad[2]) {
    ptrdiff_t n = t->n;
    const void *data = t->data;
    /* the cache whose slots are asked for ahead: a worker's own is empty at first, and most of
     * its hits are in its parent's */
    const Cache *c = m->parent ? &m->parent->cache[method] : &m->cache[method];
    Pending batch[BATCH];
    unsigned rounds = 0;
    if (*u8cap < 32 && grow((void **)u8, u8cap, 32, 1) < 0) return -1; /* ascii_piece's */
    size_t stream_after = SIZE_MAX; /* pieces cached before the tables are read through */
    if (m->mid && !m->tables_read) {
        if ((size_t)n >= tables_bytes(m) / 16) read_tables(m, t);
        else stream_after = tables_bytes(m) / 2048;
    }
    Splitter sp;
    splitter_init(&sp, pr, cls, t);
    ptrdiff_t p = 0;
    while (p < n) {
        if ((++rounds & 255) == 0 && lbpe_interrupted() < 0) return -1;
        /* split up to BATCH pieces of at most 16 bytes, or up to a longer one (long_s) */
        unsigned count = 0;
        const char *long_s = NULL;
        ptrdiff_t long_q = 0, long_len = 0;
        size_t long_room = 0;
        while (count < BATCH && p < n) {
            const char *s;
            ptrdiff_t q = splitter_step(&sp, p, &s, latin1), len;
            size_t room;
            if (s) { /* ASCII, from the splitter's block */
                len = q - p;
                room = (size_t)((const char *)sp.b.bytes + sizeof(sp.b.bytes) - s);
            } else if (kind == 1 && !latin1) {
                s = (const char *)data + p;
                len = q - p;
                room = (size_t)(n - p);
            } else if ((s = ascii_piece(kind, data, n, p, q, *u8)) != NULL) {
                len = q - p;
                room = s == (const char *)*u8 ? *u8cap : (size_t)(n - p);
            } else {
                /* its own buffer: encode_piece reuses the scratch buffers (16 bytes more:
                 * key_of) */
                if ((size_t)(q - p) * 4 + 16 > *u8cap &&
                    grow((void **)u8, u8cap, (size_t)(q - p) * 4 + 16, 1) < 0)
                    return -1;
                len = utf8_kind(kind, data, p, q, *u8);
                if (len < 0) {
                    bad[0] = p;
                    bad[1] = q;
                    return -2;
                }
                s = (const char *)*u8;
                room = *u8cap;
            }
            if (len > 16) {
                long_s = s;
                long_q = q;
                long_len = len;
                long_room = room;
                break;
            }
            Pending *x = &batch[count++];
            x->p = p;
            x->q = q;
            x->key = key_of(s, (size_t)len, room);
            x->key.s = NULL;
            if (c->slots) LBPE_PREFETCH(&c->slots[(size_t)x->key.hash & c->mask]);
            p = q;
        }
        for (unsigned i = 0; i < count; i++)
            if (pending_ids(kind, m, t, &batch[i], method, limit, cached_chars, b) < 0) return -1;
        if (m->cache[method].n >= stream_after) {
            if (!m->tables_read) read_tables(m, t);
            stream_after = SIZE_MAX;
        }
        if (long_s) {
            /* the bytes of a long piece outside the text are in *u8, which nothing above
             * overwrote: pending_ids makes a missed piece's bytes in a buffer of its own */
            if (piece_ids(m, long_s, (size_t)long_len, long_room, long_q - p, method, limit,
                          cached_chars, b) < 0)
                return -1;
            p = long_q;
        }
    }
    return 0;
}

/* An empty cache that meets a text of RESERVE_FROM code points or more gets room at once for
 * RESERVE_PER_ROOT times the square root of its length in pieces: a text of n code points has
 * about 5 to 40 sqrt(n) distinct pieces (80 KB of German or Russian 5, 1 MB of English 19, 2.5
 * million code points of code 38), and filling a cache by doubling its slots moves every entry
 * again at each doubling, into memory that has to be cleared each time. Below LONG_TEXT, where
 * the slots are small enough to stay in the processor's caches while they grow, the room made is
 * a quarter of that: 80,000 code points of German (1,400 pieces) ran about 5% faster than with
 * room for 9,000, and 56,000 of Chinese (5,000 pieces) as fast. */
#define RESERVE_FROM 16384
#define LONG_TEXT 262144
#define RESERVE_PER_ROOT 32

LBPE_FN size_t pieces_expected(ptrdiff_t code_points, ptrdiff_t limit) {
    if (limit <= 0 || code_points < RESERVE_FROM) return 0;
    size_t per_root = code_points < LONG_TEXT ? RESERVE_PER_ROOT / 4 : RESERVE_PER_ROOT;
    size_t want = per_root * (size_t)sqrt((double)code_points);
    return want < (size_t)limit ? want : (size_t)limit;
}

LBPE_FN int encode_text(Model *m, const Text *t, const Preset *pr, const unsigned char *cls,
                        int method, ptrdiff_t limit, ptrdiff_t cached_chars, IdBuf *b,
                        unsigned char **u8, size_t *u8cap, ptrdiff_t bad[2]) {
    /* an empty cache: the model's own and, in a worker, its parent's */
    if (m->cache[method].n == 0 && !(m->parent && m->parent->cache[method].n)) {
        size_t want = pieces_expected(t->n, limit);
        if (want && cache_reserve(&m->cache[method], want) < 0) return -1;
    }
    if (t->kind == 1 && t->ascii)
        return encode_kind(1, 0, m, t, pr, cls, method, limit, cached_chars, b, u8, u8cap, bad);
    if (t->kind == 1)
        return encode_kind(1, 1, m, t, pr, cls, method, limit, cached_chars, b, u8, u8cap, bad);
    if (t->kind == 2)
        return encode_kind(2, 0, m, t, pr, cls, method, limit, cached_chars, b, u8, u8cap, bad);
    return encode_kind(4, 0, m, t, pr, cls, method, limit, cached_chars, b, u8, u8cap, bad);
}

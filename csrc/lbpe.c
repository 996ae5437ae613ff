/* LBPE of one piece: the paper's loop (see core.h). */
#include "core.h"

/* The paper's loop for the windows longer than WALKED units, over the gaps g[0:2*ng] (pairs of
 * unit offsets a, b: the runs nothing covers yet): a window is checked where it fits in a gap,
 * for the lengths long tokens have, at a unit some token that long starts with; a placed token
 * splits its gap. Leaves the gaps of two units or more in g and returns their count (-1: error). */
static ptrdiff_t place_long(Model *m, const char *s, const int32_t *ub, int32_t n, int32_t *placed,
                            int32_t *g, ptrdiff_t ng, int32_t *next) {
    int32_t top = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = m->reach[(unsigned char)s[ub[i]]];
        if (r > top) top = r;
    }
    if (top > n) top = n;
    if (top <= WALKED) return ng;
    size_t nb = (size_t)ub[n];
    uint64_t *H = scratch(m, 10, (nb + 1) * sizeof(uint64_t)); /* H[k]: hash of the first k bytes */
    if (!H) return -1;
    H[0] = 0;
    for (size_t k = 0; k < nb; k++) H[k + 1] = H[k] * POLY + (unsigned char)s[k] + 1;
    uint64_t probes = 0;
    for (int32_t x = 0; x < m->n_long_lengths; x++) {
        int32_t len = m->long_lengths[x];
        if (len > top) continue;
        ptrdiff_t nn = 0;
        for (ptrdiff_t y = 0; y < ng; y++) {
            int32_t a = g[2 * y], b = g[2 * y + 1], i = a;
            while (i + len <= b) {
                if (m->reach[(unsigned char)s[ub[i]]] >= len) {
                    if ((++probes & (SIGNAL_EVERY - 1)) == 0 && lbpe_interrupted() < 0) return -1;
                    uint32_t p = (uint32_t)ub[i], q = (uint32_t)ub[i + len];
                    int32_t id = q - p > m->poly_max
                                     ? -1
                                     : long_find(m, s + p, q - p, H[q] - H[p] * m->poly_pow[q - p]);
                    if (id >= 0) {
                        if (i - a >= 2) {
                            next[2 * nn] = a;
                            next[2 * nn + 1] = i;
                            nn++;
                        }
                        placed[2 * i] = len;
                        placed[2 * i + 1] = id;
                        i += len;
                        a = i;
                        continue;
                    }
                }
                i++;
            }
            if (b - a >= 2) {
                next[2 * nn] = a;
                next[2 * nn + 1] = b;
                nn++;
            }
        }
        memcpy(g, next, (size_t)nn * 2 * sizeof(int32_t));
        ng = nn;
    }
    return ng;
}

/* The spans of two units or more that are tokens in a piece of at most 16 bytes, left to right
 * and shortest first at each start, as the walk below finds them: each looked up whole in the
 * tables of tokens of up to 16 bytes (no prefixes to walk through, so no lookup waits on the one
 * before), their lines all asked for first. Only where LBPE may place every token (no scaffold
 * tokens). Returns how many, into spans (room for n (n - 1) / 2). */
static size_t short_spans(const Model *m, const char *s, const int32_t *ub, int32_t n, Span *spans,
                          int32_t *longest) {
    const unsigned char *u = (const unsigned char *)s;
    for (int32_t i = 0; i + 2 <= n; i++)
        for (int32_t j = i + 2; j <= n; j++) {
            size_t len = (size_t)(ub[j] - ub[i]);
            if (len >= 3) mid_prefetch(m, u + ub[i], len);
        }
    size_t ns = 0;
    for (int32_t i = 0; i + 2 <= n; i++)
        for (int32_t j = i + 2; j <= n; j++) {
            int32_t id = token_id(m, s + ub[i], (size_t)(ub[j] - ub[i]));
            if (id < 0) continue;
            spans[ns].i = i;
            spans[ns].len = j - i;
            spans[ns].id = id;
            ns++;
            if (j - i > *longest) *longest = j - i;
        }
    return ns;
}

/* The paper's loop itself: windows from the whole piece down to 2 bytes, each left to right, over
 * a bitmask of the bytes covered so far; a window is looked up only where it covers nothing yet
 * and some token that long starts with its first two bytes (lengths2: of the windows of 3 bytes
 * or more in pieces of 80 KB of Russian that are no tokens, 26% are left to look up), each
 * lookup a filter's bit for most windows, which are no tokens. Compiled twice, as
 * bpe_small is: for pieces of at most 16 bytes and for those of 17 to 32. */
static LBPE_ALWAYS_INLINE ptrdiff_t lbpe_bits(const Model *m, const char *s, int32_t n,
                                              const int32_t *uid, Part *out, int32_t cap) {
    unsigned char u[SMALL_PIECE + 16] = {0};
    memcpy(u, s, (size_t)n);
    int32_t len_at[SMALL_PIECE], id_at[SMALL_PIECE]; /* the token placed at byte i, if any */
    uint16_t starts[SMALL_PIECE]; /* the lengths of the tokens that may start at byte i */
    for (int32_t i = 0; i + 1 < n; i++) starts[i] = m->lengths2[(size_t)u[i] << 8 | u[i + 1]];
    uint64_t taken = 0, placed = 0;
    for (int32_t w = n; w >= 2; w--)
        for (int32_t i = 0; i + w <= n; i++) {
            uint64_t span = ((1ull << w) - 1) << i;
            if (taken & span || (w > 2 && !(starts[i] & length_bit((size_t)w)))) continue;
            int32_t id = w == 2                ? two_byte_id(m, u + i)
                         : cap <= 16 || w <= 16 ? span_id(m, u, i, i + w)
                                                : long_span_id(m, u, i, i + w);
            if (id < 0) continue;
            taken |= span;
            placed |= 1ull << i;
            len_at[i] = w;
            id_at[i] = id;
            i += w - 1; /* the windows starting inside it overlap it */
        }
    ptrdiff_t np = 0;
    for (int32_t i = 0; i < n; np++) {
        int32_t w = (placed >> i) & 1 ? len_at[i] : 1;
        out[np].s = i;
        out[np].e = i + w;
        out[np].id = w > 1 ? id_at[i] : uid[i];
        i += w;
    }
    return np;
}

LBPE_FN ptrdiff_t lbpe_small(const Model *m, const char *s, int32_t n, const int32_t *uid,
                             Part *out) {
    return n <= 16 ? lbpe_bits(m, s, n, uid, out, 16) : lbpe_bits(m, s, n, uid, out, 32);
}

LBPE_FN ptrdiff_t lbpe(Model *m, const char *s, const int32_t *ub, int32_t n, const int32_t *uid,
                       Part *out) {
    /* placed[2i], placed[2i + 1]: the length and id of the token placed at unit i (length 0: none)
     */
    int32_t *placed = scratch(m, 7, (size_t)n * sizeof(int32_t) * 2);
    size_t gap_bytes = ((size_t)n / 2 + 2) * 2 * sizeof(int32_t);
    int32_t *g = scratch(m, 8, gap_bytes), *next = scratch(m, 9, gap_bytes);
    if (!placed || !g || !next) return -1;
    for (int32_t k = 0; k < n; k++) placed[2 * k] = 0;
    ptrdiff_t ng = 1;
    g[0] = 0;
    g[1] = n;
    if (m->n_long_lengths && n > WALKED && (ng = place_long(m, s, ub, n, placed, g, ng, next)) < 0)
        return -1;
    /* the spans of up to WALKED units inside the gaps: in a piece of at most 16 bytes each looked
     * up whole (short_spans), else by walking the token table */
    int direct = m->mid && !m->sc_left && ub[n] <= 16;
    size_t cap = direct ? (size_t)n * (size_t)n / 2 + 1 : (size_t)n * 2 + 16, ns = 0;
    Span *spans = scratch(m, 3, cap * sizeof(Span));
    if (!spans) return -1;
    int32_t longest = 1;
    if (direct) {
        ns = short_spans(m, s, ub, n, spans, &longest);
        ng = 0; /* no gap left to walk */
    }
    for (ptrdiff_t y = 0; y < ng; y++) {
        int32_t a = g[2 * y], b = g[2 * y + 1];
        for (int32_t i = a; i + 1 < b; i++) {
            if ((i & (SIGNAL_EVERY - 1)) == SIGNAL_EVERY - 1 && lbpe_interrupted() < 0) return -1;
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
                    spans[ns].i = i;
                    spans[ns].len = j - i;
                    spans[ns].id = x->lid;
                    ns++;
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
    ptrdiff_t np = 0;
    for (int32_t i = 0; i < n;) {
        int32_t len = placed[2 * i];
        if (len) {
            out[np].s = i;
            out[np].e = i + len;
            out[np].id = placed[2 * i + 1];
            i += len;
        } else {
            out[np].s = i;
            out[np].e = i + 1;
            out[np].id = uid[i];
            i++;
        }
        np++;
    }
    return np;
}

/* Every token that starts at a unit of a piece, for longest-prefix, longest-suffix and
 * least-tokens (greedy.c, shortest.c): the tokens LBPE may place (scaffold tokens left out, as
 * lbpe.vocab.Vocab.prefix_index leaves them out), found as LBPE finds them (see core.h). */
#include "core.h"

/* Ready the scan of one piece (n units at byte offsets ub): room for starts_at's answers, and
 * the hashes of the piece's byte prefixes when a token longer than WALKED units may fit in it.
 * 0; -1 on no memory (reported). */
LBPE_FN int starts_begin(Model *m, const char *s, const int32_t *ub, int32_t n, Starts *st) {
    size_t room = (size_t)WALKED + (size_t)m->n_long_lengths;
    st->H = NULL;
    st->ends = scratch(m, 7, room * 2 * sizeof(int32_t));
    if (!st->ends) return -1;
    st->ids = st->ends + room;
    if (!m->n_long_lengths || n <= WALKED) return 0;
    int32_t top = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = m->reach[(unsigned char)s[ub[i]]];
        if (r > top) top = r;
    }
    if (top <= WALKED) return 0;
    size_t nb = (size_t)ub[n];
    uint64_t *H = scratch(m, 10, (nb + 1) * sizeof(uint64_t)); /* H[k]: hash of the first k bytes */
    if (!H) return -1;
    H[0] = 0;
    for (size_t k = 0; k < nb; k++) H[k + 1] = H[k] * POLY + (unsigned char)s[k] + 1;
    st->H = H;
    return 0;
}

/* The tokens of two units or more that start at unit i: their ends (ascending) in st->ends and
 * their ids in st->ids; returns how many. Up to WALKED units by walking the token table, which
 * holds every proper prefix of every token (so once a span is in it no longer, no longer token
 * starts at i); longer ones from the long-token hash, for the lengths long tokens have. */
LBPE_FN int32_t starts_at(const Model *m, const char *s, const int32_t *ub, int32_t n, int32_t i,
                          const Starts *st) {
    int32_t count = 0;
    int32_t stop = n - i > WALKED ? i + WALKED : n;
    uint64_t h = FNV_OFFSET;
    for (int32_t j = i + 1; j <= stop; j++) {
        h = fnv((const unsigned char *)s + ub[j - 1], (size_t)(ub[j] - ub[j - 1]), h);
        const Ids *x = lookup_h(m, s + ub[i], (size_t)(ub[j] - ub[i]), h);
        if (!x) return count;
        if (x->lid >= 0 && j - i >= 2) {
            st->ends[count] = j;
            st->ids[count] = x->lid;
            count++;
        }
    }
    if (!st->H || stop == n) return count;
    int32_t reach = m->reach[(unsigned char)s[ub[i]]];
    /* long_lengths is longest first: from its end, the lengths ascend */
    for (int32_t x = m->n_long_lengths - 1; x >= 0; x--) {
        int32_t len = m->long_lengths[x];
        if (len > reach || len > n - i) break;
        uint32_t p = (uint32_t)ub[i], q = (uint32_t)ub[i + len];
        if (q - p > m->poly_max) break; /* longer than any long token: so are the next */
        int32_t id = long_find(m, s + p, q - p, st->H[q] - st->H[p] * m->poly_pow[q - p]);
        if (id >= 0) {
            st->ends[count] = i + len;
            st->ids[count] = id;
            count++;
        }
    }
    return count;
}

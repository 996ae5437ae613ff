/* Least-tokens of one piece: the fewest tokens, as lbpe/model/shortest.py computes it (see
 * core.h), with its tie rule: among the fewest, the token lengths read from the left are
 * lexicographically largest. A unit no token starts with counts as one token and stands alone,
 * with its own id (uid; -1: the caller's fallback). */
#include "core.h"

LBPE_FN ptrdiff_t least_tokens(Model *m, const char *s, const int32_t *ub, int32_t n,
                               const int32_t *uid, Part *out) {
    Starts st;
    if (starts_begin(m, s, ub, n, &st) < 0) return -1;
    /* fewest[i]: the fewest tokens that cover units [i, n); step[i], step_id[i]: the end and id
     * of the token taken at i (the longest among those that reach fewest[i]) */
    int32_t *fewest = scratch(m, 4, ((size_t)n + 1) * sizeof(int32_t));
    int32_t *step = scratch(m, 5, ((size_t)n + 1) * sizeof(int32_t));
    int32_t *step_id = scratch(m, 6, ((size_t)n + 1) * sizeof(int32_t));
    if (!fewest || !step || !step_id) return -1;
    fewest[n] = 0;
    for (int32_t i = n - 1; i >= 0; i--) {
        if ((i & (SIGNAL_EVERY - 1)) == SIGNAL_EVERY - 1 && lbpe_interrupted() < 0) return -1;
        int32_t best = fewest[i + 1] + 1, end = i + 1, id = uid[i]; /* the unit alone */
        int32_t count = starts_at(m, s, ub, n, i, &st);
        for (int32_t k = 0; k < count; k++) {
            int32_t j = st.ends[k];
            if (fewest[j] + 1 <= best) { /* <=: ends ascend, so the longer token wins a tie */
                best = fewest[j] + 1;
                end = j;
                id = st.ids[k];
            }
        }
        fewest[i] = best;
        step[i] = end;
        step_id[i] = id;
    }
    ptrdiff_t np = 0;
    for (int32_t i = 0; i < n; np++) {
        out[np].s = i;
        out[np].e = step[i];
        out[np].id = step_id[i];
        i = step[i];
    }
    return np;
}

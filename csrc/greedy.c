/* Greedy longest match of one piece from either end: longest-prefix and longest-suffix, as
 * lbpe/model/greedy.py computes them (see core.h). A unit no token starts (or ends) with stands
 * alone, with its own id (uid; -1: the caller's fallback). */
#include "core.h"

/* Left to right: at each unit the longest token that starts there. */
LBPE_FN ptrdiff_t longest_prefix(Model *m, const char *s, const int32_t *ub, int32_t n,
                                 const int32_t *uid, Part *out) {
    Starts st;
    if (starts_begin(m, s, ub, n, &st) < 0) return -1;
    ptrdiff_t np = 0;
    for (int32_t i = 0, steps = 0; i < n; steps++) {
        if ((steps & (SIGNAL_EVERY - 1)) == SIGNAL_EVERY - 1 && lbpe_interrupted() < 0) return -1;
        int32_t count = starts_at(m, s, ub, n, i, &st);
        out[np].s = i;
        if (count) {
            out[np].e = st.ends[count - 1];
            out[np].id = st.ids[count - 1];
        } else {
            out[np].e = i + 1;
            out[np].id = uid[i];
        }
        i = out[np++].e;
    }
    return np;
}

/* Right to left: at each end the longest token that ends there, i.e. the one that starts
 * furthest left; the parts in text order. Every start is scanned first (the table is walked
 * from the left), remembering for each end the first start that reaches it. */
LBPE_FN ptrdiff_t longest_suffix(Model *m, const char *s, const int32_t *ub, int32_t n,
                                 const int32_t *uid, Part *out) {
    Starts st;
    if (starts_begin(m, s, ub, n, &st) < 0) return -1;
    /* from[j], from_id[j]: the leftmost start of a token ending at unit j (-1: none) and its id */
    int32_t *from = scratch(m, 4, ((size_t)n + 1) * sizeof(int32_t));
    int32_t *from_id = scratch(m, 5, ((size_t)n + 1) * sizeof(int32_t));
    if (!from || !from_id) return -1;
    for (int32_t j = 0; j <= n; j++) from[j] = -1;
    for (int32_t i = 0; i < n; i++) {
        if ((i & (SIGNAL_EVERY - 1)) == SIGNAL_EVERY - 1 && lbpe_interrupted() < 0) return -1;
        int32_t count = starts_at(m, s, ub, n, i, &st);
        for (int32_t k = 0; k < count; k++) {
            int32_t j = st.ends[k];
            if (from[j] < 0) {
                from[j] = i;
                from_id[j] = st.ids[k];
            }
        }
    }
    ptrdiff_t np = 0;
    for (int32_t j = n; j > 0; np++) {
        out[np].e = j;
        if (from[j] >= 0) {
            out[np].s = from[j];
            out[np].id = from_id[j];
        } else {
            out[np].s = j - 1;
            out[np].id = uid[j - 1];
        }
        j = out[np].s;
    }
    for (ptrdiff_t a = 0, z = np - 1; a < z; a++, z--) {
        Part t = out[a];
        out[a] = out[z];
        out[z] = t;
    }
    return np;
}

#!/usr/bin/env bash
# Builds the compiled extension (lbpe/_native.c over csrc/) with AddressSanitizer and
# UndefinedBehaviorSanitizer and runs the parity tests on it: any overrun, use after free or
# undefined behaviour in the C code stops the run with the sanitiser's report.
#
#   scripts/sanitize.sh [extra pytest arguments]      (needs gcc or clang with their runtimes)
#
# The tree is copied to a temporary directory (tracked and new files, as they are now), so the
# checkout's own build stays as it is. CPython itself is not instrumented: the sanitiser's
# runtime is preloaded, Python's allocator is switched to malloc so ASan sees every block, and
# leak checking is off (the interpreter keeps memory until exit on purpose).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python}
cc=${CC:-$("$python" -c 'import sysconfig; print((sysconfig.get_config_var("CC") or "cc").split()[0])')}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

git -C "$root" ls-files -z --cached --others --exclude-standard \
    | (cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$work"
# a file deleted in the checkout but not yet in git is listed and missing: tar said so above

flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
(cd "$work" && CC="$cc" CFLAGS="$flags" LDFLAGS="$flags" "$python" setup.py -q build_ext --inplace --force)

runtime=""
for lib in libasan.so libubsan.so; do
    path=$("$cc" -print-file-name="$lib")
    if [ ! -e "$path" ]; then
        echo "sanitize.sh: $cc has no $lib (install the sanitiser runtimes, e.g. Debian's libasan/libubsan)" >&2
        exit 1
    fi
    runtime="$runtime $path"
done

cd "$work"
export LD_PRELOAD="${runtime# }"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export PYTHONMALLOC=malloc
export PYTHONPATH="$work"
export LBPE_SANITIZED=1 # the slowest tests sample their cases here
# examples per generated-text test (60 in the suite): under the sanitisers each costs about
# 30 times more, and a wrong path shows as a report on the first example that reaches it
export LBPE_HYPOTHESIS_EXAMPLES="${LBPE_HYPOTHESIS_EXAMPLES:-20}"
"$python" -c 'import lbpe, sys; b = lbpe.backend(); print("sanitize.sh:", b.name, "path,", lbpe.__file__); sys.exit(b.name != "compiled")'
# the fast parity tests that reach the C code, on the compiled path only (the pure path's
# tests, and test_pretokenize.py's of Python's regex patterns, run nothing compiled)
"$python" -m pytest -q -p no:cacheprovider -m "not slow" -x --encode-path=compiled \
    tests/parity/test_compiled_vs_pure.py tests/parity/test_tiktoken.py tests/parity/test_hf_tokenizers.py \
    tests/parity/test_sentencepiece.py tests/parity/test_naive_lbpe.py \
    tests/unit/model/test_long_tokens.py tests/robustness/test_hostile_text.py \
    --deselect tests/parity/test_compiled_vs_pure.py::test_installing_without_a_c_compiler_gives_the_pure_path \
    "$@"

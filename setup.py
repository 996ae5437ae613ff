"""Builds lbpe's compiled fast path (lbpe/_native.c, the CPython glue, over the plain-C core in
csrc/) when a C compiler is available.

The extension is optional: if it cannot be built, installation still succeeds and lbpe runs
its pure-Python modules (``lbpe.backend()`` says which path is active and why). All other
metadata is in pyproject.toml.
"""

import sys
from pathlib import Path

from setuptools import Extension, setup

#: The core (plain C; csrc/core.h says what each file holds), compiled inside the glue
#: lbpe/_native.c, which includes its files (one unit: the calls between them are inlined).
ROOT = Path(__file__).resolve().parent
CORE = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "csrc").glob("*.[ch]"))
#: Only the module's init function is exported (the core's names stay inside the library).
HIDDEN = [] if sys.platform == "win32" else ["-fvisibility=hidden"]

setup(
    ext_modules=[
        Extension(
            "lbpe._native",
            sources=["lbpe/_native.c"],
            include_dirs=["csrc"],
            depends=CORE,
            optional=True,  # a failed build is a warning, not an error
            extra_compile_args=["-O2", *HIDDEN],
        )
    ]
)

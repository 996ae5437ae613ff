"""Builds lbpe's compiled fast path (lbpe/_native.c) when a C compiler is available.

The extension is optional: if it cannot be built, installation still succeeds and lbpe runs
its pure-Python modules (``lbpe.backend()`` says which path is active and why). All other
metadata is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "lbpe._native",
            sources=["lbpe/_native.c"],
            optional=True,  # a failed build is a warning, not an error
            extra_compile_args=["-O2"],
        )
    ]
)

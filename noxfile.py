"""Every check CI runs, one session each, in the environment the README's test line set up:

    nox -l                 # the sessions
    nox -s lint typecheck  # ruff (check and format) and mypy, as tests/integration/test_lint.py runs them
    nox -s unit            # the unit tier and the doctests (what `pytest` alone runs), about a minute
    nox -s tests           # the fast tier: every tier but its slow tests, on every core
    nox -s full            # the whole suite (what CI runs on one Python)
    nox -s matrix          # the fast tier on every other supported Python (scripts/test_matrix.py)
    nox -s sanitize        # the parity tests on an ASan + UBSan build of the C core

The sessions make no virtual environments and install nothing (``venv_backend="none"``): run the
README's test line once, then any session. ``nox -s full -- -k shards`` passes arguments on to
pytest.
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["lint", "typecheck", "tests"]

#: Every tier's tests and the package's doctests (``pytest`` alone runs ``tests/unit`` and the doctests).
TIERS = ("tests", "lbpe")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff's checks and its formatting, over the whole tree."""
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy over the package (its settings are in pyproject.toml)."""
    session.run("mypy")


@nox.session
def unit(session: nox.Session) -> None:
    """The unit tier (tests/unit, offline, small vocabularies) and the doctests: pytest's default."""
    session.run("python", "-m", "pytest", "-n", "auto", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """The fast tier: everything not marked slow, on every core."""
    session.run("python", "-m", "pytest", *TIERS, "-m", "not slow", "-n", "auto", *session.posargs)


@nox.session
def full(session: nox.Session) -> None:
    """The whole suite, a module per worker (each module's one server or browser stays on it)."""
    session.run(
        "python", "-m", "pytest", *TIERS, "-n", "auto", "--dist", "loadfile", "--no-loadscope-reorder", *session.posargs
    )


@nox.session
def matrix(session: nox.Session) -> None:
    """The fast tier on every other Python that requires-python allows, each in its own venv."""
    session.run("python", "scripts/test_matrix.py", *session.posargs)


@nox.session
def sanitize(session: nox.Session) -> None:
    """The parity tests on the compiled path built with AddressSanitizer and UBSan."""
    session.run("bash", "scripts/sanitize.sh", *session.posargs)

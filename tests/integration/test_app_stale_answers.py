"""An answer of Compare carries what it was asked (``details["asked"]``), and the page's own
script (lbpe/playground/app/app.js, run in Node) checks it against its controls when the answer
arrives: two comparisons in flight can end out of order, and the older one must not stay on the
panes. The browser test of the same is in tests/e2e/test_app_browser.py."""

from __future__ import annotations

import json

import pytest

from tests.support.app import load_app, run_app_script
from tests.support.data import english_text

app = load_app()
handlers = app.handlers

TEXTS = ["", "a", "héllo wörld", "😀 x 🇯🇵", "a\ud800b\udfff", "line\nbreak\r\nend\t", "東京 and Kyōto"]

#: The controls of one comparison, in the order the page passes them to ``done``.
CONTROLS = ["cl100k_base", True, False, False, "bpe", "dropout", 0.25, 7]


def test_a_text_is_fingerprinted_by_its_utf16_units():
    """Known answers: zlib's CRC-32 of the UTF-16LE bytes, and the count of UTF-16 units
    (an emoji is two, as in JavaScript's ``length``)."""
    a = handlers.compare_tab.asked("a", *CONTROLS)
    assert (a["text_units"], a["text_crc32"]) == (1, 1027557401)  # CRC-32 of b"a\x00"
    assert handlers.compare_tab.asked("😀 x", *CONTROLS)["text_units"] == 4
    assert handlers.compare_tab.asked(None, *CONTROLS)["text_units"] == 0


def test_the_page_fingerprints_a_text_as_the_server_does():
    texts = [*TEXTS, english_text(0)[:20_000]]
    body = f"process.stdout.write(JSON.stringify({json.dumps(texts)}.map(utf16Crc32)));"
    page = json.loads(run_app_script(body))
    assert page == [handlers.compare_tab.asked(t, *CONTROLS)["text_crc32"] for t in texts]


def _answers(*rounds: list[list], first: str = "") -> dict:
    """Run the page's script with a stand-in "Compare again" button and console: ``first``
    (JavaScript), then each round's answers given to ``done`` (each an argument list: details,
    then the controls, text first) and a wait past its check. Says how often the page pressed
    the button and what it warned."""
    calls = "".join(
        "".join(f"  window.lbpeApp.done(...{json.dumps(args)});\n" for args in r) + "  await wait();\n" for r in rounds
    )
    body = f"""
let pressed = 0; const warned = [];
document.querySelector = (sel) => (sel === "#compare-again" ? {{ click() {{ pressed += 1; }} }} : null);
console.warn = (m) => warned.push(m);
const wait = () => new Promise((r) => setTimeout(r, 400));
{first}
(async () => {{
{calls}  process.stdout.write(JSON.stringify({{ pressed, warned }}));
}})();
"""
    return json.loads(run_app_script(body))


@pytest.fixture(scope="module")
def answered():
    """A real answer of the Compare handler (its details) for the text ``"Capitals"``."""
    text, vocab, ws, ids, sp, left, right, rate, seed = ["Capitals", *CONTROLS]
    return handlers.compare(text, vocab, ws, ids, None, sp, left, right, rate, seed)[5]


def test_an_answer_of_the_controls_now_set_is_left_alone(answered):
    assert _answers([[answered, "Capitals", *CONTROLS]]) == {"pressed": 0, "warned": []}


@pytest.mark.parametrize("changed", range(len(CONTROLS) + 1))
def test_an_answer_of_other_controls_is_asked_again(answered, changed):
    """Any one control that differs from what the answer was of (the text, or any option)."""
    now = ["Capitals", *CONTROLS]
    other = {0: "Capitals!", 1: "gpt2", 5: "least-tokens", 6: "lbpe", 7: 0.5, 8: 8}
    now[changed] = other.get(changed, not now[changed])
    assert _answers([[answered, *now]]) == {"pressed": 1, "warned": []}


def test_a_comparison_started_meanwhile_checks_again_itself(answered):
    """Another comparison started after this answer came: its own end checks, so no press now."""
    body_first = "setTimeout(() => window.lbpeApp.busy([]), 50);"
    assert _answers([[answered, "Capitals!", *CONTROLS]], first=body_first)["pressed"] == 0


def test_the_page_asks_again_once_for_the_same_controls(answered):
    """An answer still of other controls after the page asked again for these: it says so on
    the console and does not ask in a loop."""
    stale = [answered, "Capitals!", *CONTROLS]
    result = _answers([stale], [stale])
    assert result["pressed"] == 1
    assert len(result["warned"]) == 1 and "not of the text and options now set" in result["warned"][0]


def test_an_answer_that_agrees_lets_the_page_ask_again_later(answered):
    """Asked again once for some controls, then an answer that agrees: the same controls, stale
    again later (typed away and back), are asked again, not just warned about."""
    stale, agrees = [answered, "Capitals!", *CONTROLS], [answered, "Capitals", *CONTROLS]
    assert _answers([stale], [agrees, stale]) == {"pressed": 2, "warned": []}


def test_dropout_rate_and_seed_count_only_while_dropout_is_compared():
    """The rate and seed boxes keep their values while hidden; a comparison without dropout is
    of the same thing whatever they hold (a link's restore compares with neither)."""
    plain = ["cl100k_base", True, False, False, "bpe", "lbpe"]
    asked = handlers.compare_tab.asked("Capitals", *plain, 0.1, 0)
    assert (asked["dropout"], asked["seed"]) == (None, None)
    assert handlers.compare_tab.asked("Capitals", *plain[:-1], "dropout", 0.1, 0)["dropout"] == 0.1
    restored = handlers.compare("Capitals", *plain[:3], None, *plain[3:], None, None)[5]
    assert _answers([[restored, "Capitals", *plain, 0.1, 0]]) == {"pressed": 0, "warned": []}
    # a rate or seed that differs while dropout is compared is asked again, as before
    dropped = handlers.compare("Capitals", *plain[:4], None, *plain[4:-1], "dropout", 0.1, 0)[5]
    assert _answers([[dropped, "Capitals", *plain[:-1], "dropout", 0.2, 0]])["pressed"] == 1

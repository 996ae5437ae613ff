"""The options LLaMA's tokenizer was trained with in ``sentencepiece``, which
``lbpe.train(style="llama")`` follows: ``tests/parity/test_train_llama.py`` and
``bench/train_llama.py`` train sentencepiece with them to compare against lbpe.

The caller adds what differs per run: the input (``input=`` or ``sentence_iterator=``), the
``model_writer``, ``vocab_size``, ``character_coverage`` and ``num_threads``.
"""

from __future__ import annotations

LLAMA_OPTIONS: dict[str, object] = {
    "model_type": "bpe",
    "byte_fallback": True,
    "split_digits": True,
    "max_sentencepiece_length": 16,
    "add_dummy_prefix": True,
    "remove_extra_whitespaces": False,
    "normalization_rule_name": "identity",
    "allow_whitespace_only_pieces": True,
    "split_by_unicode_script": True,
    "split_by_whitespace": True,
    "split_by_number": True,
    "treat_whitespace_as_suffix": False,
    "max_sentence_length": 1 << 20,
    "input_sentence_size": 0,
    "shuffle_input_sentence": False,
    "unk_id": 0,
    "bos_id": 1,
    "eos_id": 2,
    "pad_id": -1,
    "minloglevel": 2,
}

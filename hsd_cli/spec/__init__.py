"""The speculative core: model-agnostic decoupled speculative verification.

Names match the HSD paper, section 3.2. Glossary:
- draft: token list for one region (or one Stage-1 output), tokenized once per call.
- token drafts (`TokenDrafts`, align.py): per row of a batch (a page, a region crop), its drafts.
- window (`n` tokens): the last `n` accepted tokens, searched for in the drafts.
- candidate: the draft continuation after a window match, cut to `max_depth`.
- tree / node: candidates merged by shared prefix; node 0 (the root) is the last accepted
  token, which is not yet in the KV cache.
- step: one target forward pass over the linearized tree.
- accepted tokens: draft tokens on the chosen path that pass the rule with `tau`.
- bonus token: `u_hat` at the first failure (or after the leaf); always appended.
- AAL: accepted draft tokens per step, bonus excluded.

This package imports torch, `hsd_cli.config` and `hsd_cli.metrics` only: it knows no model
(tests/spec/test_isolation.py).
"""

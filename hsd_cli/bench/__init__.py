"""`hsd bench`: speed of ar / page / hsd / lookup measured side by side, as in the HSD paper 4.2.

Metrics (names match the paper, section 4.2):
- aal: accepted draft tokens per sequence-step (bonus token excluded; a rejection counts 0).
- sr_decode = T_decode(AR) / T_decode(method): draft generation plus every decode loop (Stage 1
  and Stage 2); prefills (page and region crops) are excluded (metrics.decode_time).
- sr_e2e = T_full(AR) / T_full(method): page image in -> tokens out (drafts, vision encoder,
  prefill, decode), disk I/O excluded.
- steps: target forward passes in the decode loop (a batched Stage-1 forward counts once).
- oracle target: the real forward passes run, but the greedy choice is forced to a reference
  token sequence (the page's ground truth), so acceptance is what a model that writes the ground
  truth would get from these drafts.
"""

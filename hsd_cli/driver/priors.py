"""What a row believes about its drafts before it has seen any verified: each draft source's prior
(its `prior` attribute, drafts/base.DraftSource), as an AcceptPrior.

A row corrects its prior with every tree it verifies (spec/budget.py, AcceptStats), but trees are
sized by that belief, so a prior too low for exact drafts on a costly device keeps every tree at
the root and nothing is ever learned. The numbers come from the dev corpus (benchmarks/):

- draft NED against the ground truth (benchmarks/draft_quality.py at 5e5dbb6):
  text layer 0.093 on 19 born-digital documents, rapidocr 0.197 on 12 page images;
- AAL of the page method with the oracle target, 4096 new tokens (hsd bench --oracle at the
  same time, pages grouped by draft_source): text layer 8.51 on 9 pages, rapidocr 4.99 on 16 pages. A chain of
  max_depth 48 after a full window match is expected to give first * (1 - cont^48) / (1 - cont)
  tokens: 0.85 and 0.9 give 8.5 (text layer), 0.7 and 0.85 give 4.7 (rapidocr); today's default
  (0.6, 0.8) gives 3.0, below both.

Only the full-window first token and the continuation are fitted; shorter windows and region
starts keep the default's ratio to them (the benchmarks do not split acceptance by window).
"""

from __future__ import annotations

from functools import cache

from hsd_cli.drafts.auto import source_class
from hsd_cli.spec.budget import DEFAULT_PRIOR, AcceptPrior


def fitted(full_window: float, cont: float) -> AcceptPrior:
    """A prior from its full-window first-token rate and continuation; shorter windows scale with the first."""
    scale = full_window / DEFAULT_PRIOR.first[3]
    return AcceptPrior(tuple(round(p * scale, 3) for p in DEFAULT_PRIOR.first), cont)


@cache
def prior_for(draft_source: str) -> AcceptPrior:
    """The prior of drafts made by the source page reports call `draft_source` (DEFAULT_PRIOR for
    an unknown or no source)."""
    source = source_class(draft_source)
    return DEFAULT_PRIOR if source is None else fitted(*source.prior)
